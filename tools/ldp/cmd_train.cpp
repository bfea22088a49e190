// ldp train (docs/cli.md "ldp train", docs/mechanisms.md H.7): a learner of --method on a CSV's
// training split, one user per row, against the non-private optimum of the same loss over the same
// set C = [0, 1]^p.
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "errors.h"
#include "mechanism_options.h"
#include "output.h"
#include "train_data.h"
#include "train_methods.h"
#include "train_objective.h"

namespace ldp::tools {
namespace {

struct train_options {
  std::string method, loss, format = "text";
  train_data_options data;
  train_settings settings;
  std::vector<std::pair<const char*, CLI::Option*>> method_options;  // checked against the method's row
};

wire::loss_kind parse_loss(const std::string& name) {
  if (name == "squared") return wire::loss_kind::squared;
  if (name == "logistic") return wire::loss_kind::logistic;
  if (name == "hinge") return wire::loss_kind::hinge;
  fail("--loss must be squared, logistic or hinge, got '{}'", escaped(name, 40));
}

bool lists(const char* names, const char* option) {
  const std::string padded = std::string(" ") + names + " ";
  return padded.find(std::string(" ") + option + " ") != std::string::npos;
}

void check_method_options(const train_options& o, const train_method& m) {
  for (const auto& [name, option] : o.method_options) {
    if (option->count() > 0 && !lists(m.options, name)) {
      fail("{} does not apply to --method {}{}", name, m.name,
           std::strlen(m.options) == 0 ? std::string(" (it takes no method options)")
                                       : fmt::format(" (it takes {})", m.options));
    }
    if (option->count() == 0 && lists(m.required, name)) fail("--method {} needs {}", m.name, name);
  }
  if (lists(m.required, "--epsilon")) check_epsilon(o.settings.epsilon);
  if (lists(m.options, "--delta")) check_delta(o.settings.delta);
}

// theta = 2 w - 1: the model in the units of the scaled features (wire/loss.h).
std::vector<double> theta_of(const std::vector<double>& w) {
  std::vector<double> theta;
  for (double v : w) theta.push_back(2 * v - 1);
  return theta;
}

nlohmann::ordered_json number_or_null(bool has, double v) { return has ? nlohmann::ordered_json(v) : nullptr; }

void run(train_options& o) {
  const train_method& method = find_train_method(o.method);
  check_method_options(o, method);
  train_settings& s = o.settings;
  s.loss = parse_loss(o.loss);
  s.seed = o.data.seed;
  const train_data data = load_train_data(o.data, s.loss);
  const examples& train = data.train;
  const bool classify = s.loss != wire::loss_kind::squared, tested = data.test.size() > 0;

  const std::vector<double> optimum = nonprivate_minimum(s.loss, data.objective, s.seed);
  const auto start = std::chrono::steady_clock::now();
  const train_result r = method.solve(data, s);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double loss = empirical_risk(s.loss, data.objective, r.w.data());
  const double best = empirical_risk(s.loss, data.objective, optimum.data());
  const double n = static_cast<double>(train.size());
  const bool reported = r.reports > 0;

  if (o.format == "json") {
    nlohmann::ordered_json j = {
        {"method", method.name},
        {"loss", o.loss},
        {"epsilon", number_or_null(lists(method.options, "--epsilon"), s.epsilon)},
        {"epsilon_impl", number_or_null(lists(method.options, "--epsilon"), r.epsilon_impl)},
        {"delta", r.delta},
        {"n", train.size()},
        {"p", train.p},
        {"features", data.feature_names},
        {"label", data.label_rule},
        {"train_rows", data.train_rows},
        {"test_rows", data.test.size()},
        {"w", r.w},
        {"theta", theta_of(r.w)},
        {"train_loss", loss},
        {"nonprivate_w", optimum},
        {"nonprivate_train_loss", best},
        {"excess_risk", loss - best},
        {"test_loss", number_or_null(tested, tested ? empirical_risk(s.loss, data.test, r.w.data()) : 0)},
        {"nonprivate_test_loss",
         number_or_null(tested, tested ? empirical_risk(s.loss, data.test, optimum.data()) : 0)},
        {"test_accuracy", number_or_null(classify && tested, tested ? accuracy(data.test, r.w.data()) : 0)},
        {"nonprivate_test_accuracy",
         number_or_null(classify && tested, tested ? accuracy(data.test, optimum.data()) : 0)},
        {"reports", r.reports},
        {"bytes_per_report", number_or_null(reported, double(r.report_bytes) / n)},
        {"device_seconds_per_report", number_or_null(reported, r.device_seconds / n)},
        {"seconds", seconds},
        {"details", r.details},
    };
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print("method {}, loss {}, {} users (training rows {}, test rows {}), p {} ({})\n", method.name, o.loss,
             format_count(train.size()), format_count(data.train_rows), format_count(data.test.size()), train.p,
             fmt::join(data.feature_names, ", "));
  fmt::print("label: {}\n", data.label_rule);
  if (lists(method.options, "--epsilon")) {
    fmt::print("epsilon {} (implemented {:.15g}){}\n", s.epsilon, r.epsilon_impl,
               r.delta > 0 ? fmt::format(", delta {:g}", r.delta) : std::string());
  }
  fmt::print("{}\n", r.summary);
  fmt::print("w      {:.6f}\ntheta  {:.6f}\n", fmt::join(r.w, " "), fmt::join(theta_of(r.w), " "));
  fmt::print("training loss {:.6f}, non-private optimum {:.6f}, excess risk {:.6f}\n", loss, best, loss - best);
  if (classify && tested) {
    fmt::print("test accuracy {:.4f}, non-private {:.4f}\n", accuracy(data.test, r.w.data()),
               accuracy(data.test, optimum.data()));
  } else if (tested) {
    fmt::print("test loss {:.6f}, non-private {:.6f}\n", empirical_risk(s.loss, data.test, r.w.data()),
               empirical_risk(s.loss, data.test, optimum.data()));
  }
  if (reported) {
    fmt::print("reports: {:.1f} bytes each on average, device time {:.2f} us per report\n", double(r.report_bytes) / n,
               1e6 * r.device_seconds / n);
  }
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (;;) {
    const std::size_t comma = text.find(',', at);
    out.push_back(text.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) return out;
    at = comma + 1;
  }
}

}  // namespace

command add_train(CLI::App& parent) {
  auto o = std::make_shared<train_options>();
  CLI::App* app = parent.add_subcommand(
      "train", "learn a model from a CSV, one user per row, against the non-private optimum (docs/cli.md)");
  std::string methods;
  for (const train_method& m : train_methods()) methods += fmt::format("\n  {}: {}", m.name, m.description);
  app->add_option("--method", o->method, "the learner:" + methods)->required();
  app->add_option("--loss", o->loss, "squared, logistic or hinge (docs/mechanisms.md H.0)")->required();
  app->add_option("--data", o->data.data, "csv:<path>, one user per training row")->required();
  app->add_option("--label", o->data.label, "the label column: a header name or a 1-based number")->required();
  auto features = std::make_shared<std::string>();
  CLI::Option* listed = app->add_option("--features", *features, "the feature columns, a,b,c (names or numbers)");
  app->add_option("--dim", o->data.dim, "p: the first p columns other than the label");
  app->add_flag("--intercept", o->data.intercept, "add a feature that is always 1 (it counts in p)");
  app->add_option("--positive", o->data.positive,
                  "logistic, hinge: the label value of class 1 (default: every value above the smallest)");
  app->add_option("--test-fraction", o->data.test_fraction, "the held-out share of the rows (default 0.3)");
  app->add_option("--users", o->data.users,
                  "users (default one per training row; more repeat the rows, fewer take the first)");
  app->add_option("--seed", o->data.seed, "seed of the split, the devices and the searches")->required();
  app->add_option("--format,-f", o->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  train_settings& s = o->settings;
  o->method_options = {
      {"--epsilon", app->add_option("--epsilon,-e", s.epsilon, "privacy level epsilon, in " + epsilon_range())},
      {"--delta", app->add_option("--delta", s.delta, "the delta of an (epsilon, delta) method")},
      {"--grid", app->add_option("--grid", s.grid, "Bernstein learners: k, (k + 1)^p grid points")},
      {"--order", app->add_option("--order", s.order, "Bernstein learners: h, the surrogate's order")},
      {"--strings", app->add_option("--strings", s.strings, "wang-genprot: T public samples per user (default 32)")},
      {"--degree", app->add_option("--degree", s.degree, "wang-glm: d, d (d + 1) + 1 copies a report (default 2)")},
      {"--steps", app->add_option("--steps", s.steps, "SGD: steps T, the users split across them (default sqrt n)")},
      {"--sgd-mechanism",
       app->add_option("--sgd-mechanism", s.sgd_mechanism,
                       "ldp-sgd: privunitg (default), l2-ball, vector-mean, projunit, fastprojunit")},
  };
  return {app, [o, features, listed] {
            if (listed->count() > 0) o->data.features = split_list(*features);
            run(*o);
          }};
}

}  // namespace ldp::tools

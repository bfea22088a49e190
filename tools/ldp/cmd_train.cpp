// ldp train (docs/cli.md "ldp train"): the command line parsed into a train_request (train_run.h),
// which run_train checks, trains and answers as JSON; printed as it is or as text.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "mechanism_options.h"
#include "progress.h"
#include "train_run.h"

namespace ldp::tools {
namespace {

struct train_options {
  train_request request;
  std::string format = "text";
  bool quiet = false;
  std::vector<std::pair<const char*, CLI::Option*>> method_options;  // given ones go to request.given
};

void run(train_options& o) {
  for (const auto& [name, option] : o.method_options) {
    if (option->count() > 0) o.request.given.emplace_back(name);
  }
  // The bar on stderr (progress.h), drawn once the method knows its step count.
  std::unique_ptr<progress> bar;
  const bool show = !o.quiet && o.format != "json";
  const train_progress report = [&](uint64_t step, uint64_t steps, double) {
    if (!bar) bar = std::make_unique<progress>("train", steps, false);
    bar->update(step);
    if (step == steps) bar->finish();
  };
  const nlohmann::ordered_json j = run_train(o.request, show ? report : train_progress());
  if (o.format == "json") {
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}", train_text(j));
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
  train_request& r = o->request;
  CLI::App* app =
      parent.add_subcommand("train", "learn a model from a CSV's users, against the non-private optimum (docs/cli.md)");
  std::string methods;
  for (const train_method& m : train_methods()) methods += fmt::format("\n  {}: {}", m.name, m.description);
  app->add_option("--method", r.method, "the learner:" + methods)->required();
  CLI::Option* loss = app->add_option("--loss", r.loss, "issue 14's learners: squared, logistic or hinge (H.0)");
  app->add_option("--model", r.model, "chapter I's training: linear, logistic or softmax (I.4)")->excludes(loss);
  app->add_option("--data", r.data.data, "csv:<path> (a .gz file is decompressed)")->required();
  app->add_option("--label", r.data.label, "the label column: a header name or a 1-based number")->required();
  auto features = std::make_shared<std::string>();
  CLI::Option* listed = app->add_option("--features", *features, "the feature columns, a,b,c (names or numbers)");
  app->add_option("--dim", r.data.dim, "p: the first p columns other than the label");
  app->add_flag("--intercept", r.data.intercept, "add a feature that is always 1 (it counts in p)");
  app->add_option("--positive", r.data.positive,
                  "logistic, hinge: the label value of class 1 (default: every value above the smallest)");
  app->add_option("--test-fraction", r.data.test_fraction, "the held-out share of the rows (default 0.3)");
  app->add_option("--users", r.data.users,
                  "--loss: users (default one per training row; more repeat the rows, fewer take the first); "
                  "--model: the rows dealt round-robin into N users (repeated when N is above the rows)");
  app->add_option("--samples-per-user", r.data.samples_per_user,
                  "--model: users of m consecutive shuffled training rows (default 1)");
  app->add_option("--user-column", r.data.user_column, "--model: the training rows grouped by this column's value");
  app->add_option("--plot", r.plot, "--model: write the training-loss curve as SVG");
  app->add_flag("--quiet", o->quiet, "no progress bar");
  app->add_option("--seed", r.data.seed, "seed of the split, the devices and the searches")->required();
  app->add_option("--format,-f", o->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  train_settings& s = r.settings;
  o->method_options = {
      {"--epsilon", app->add_option("--epsilon,-e", s.epsilon, "privacy level epsilon, in " + epsilon_range())},
      {"--delta", app->add_option("--delta", s.delta, "the delta of an (epsilon, delta) method")},
      {"--grid", app->add_option("--grid", s.grid, "Bernstein learners: k, (k + 1)^p grid points")},
      {"--order", app->add_option("--order", s.order, "Bernstein learners: h, the surrogate's order")},
      {"--strings", app->add_option("--strings", s.strings, "wang-genprot: T public samples per user (default 32)")},
      {"--degree", app->add_option("--degree", s.degree, "wang-glm: d, d (d + 1) + 1 copies a report (default 2)")},
      {"--steps", app->add_option("--steps", s.steps, "SGD: steps T, the users split across them (default sqrt n)")},
      {"--lr", app->add_option("--lr", s.lr, "--model: learning rate (default 0.5)")},
      {"--clip", app->add_option("--clip", s.clip, "--model: G, the users' gradients' L2 clip (default 1)")},
      {"--l2", app->add_option("--l2", s.l2, "--model: lambda of the regularizer lambda/2 ||theta||^2 (default 1e-3)")},
      {"--phases", app->add_option("--phases", s.phases, "levy-phased: Alg 4's phases (default 2)")},
      {"--sgd-mechanism",
       app->add_option("--sgd-mechanism", s.sgd_mechanism,
                       "ldp-sgd: privunitg (default), l2-ball, vector-mean, projunit, fastprojunit")},
  };
  return {app, [o, features, listed] {
            if (listed->count() > 0) o->request.data.features = split_list(*features);
            run(*o);
          }};
}

}  // namespace ldp::tools

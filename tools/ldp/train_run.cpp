#include "train_run.h"

#include <chrono>
#include <cstring>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "errors.h"
#include "mechanism_options.h"
#include "output.h"
#include "train_objective.h"

namespace ldp::tools {
namespace {

using json = nlohmann::ordered_json;

wire::loss_kind parse_loss(const std::string& name) {
  if (name == "squared") return wire::loss_kind::squared;
  if (name == "logistic") return wire::loss_kind::logistic;
  if (name == "hinge") return wire::loss_kind::hinge;
  fail("--loss must be squared, logistic or hinge, got '{}'", escaped(name, 40));
}

// Whether the space-separated list `names` holds `option`.
bool lists(const char* names, const std::string& option) {
  const std::string padded = std::string(" ") + names + " ";
  return padded.find(" " + option + " ") != std::string::npos;
}

bool given(const train_request& r, const std::string& option) {
  for (const std::string& g : r.given) {
    if (g == option) return true;
  }
  return false;
}

void check_method_options(const train_request& r, const train_method& m) {
  for (const std::string& name : r.given) {
    if (!lists(m.options, name)) {
      fail("{} does not apply to --method {}{}", name, m.name,
           std::strlen(m.options) == 0 ? std::string(" (it takes no method options)")
                                       : fmt::format(" (it takes {})", m.options));
    }
  }
  const std::string required = m.required;
  std::size_t at = 0;
  while (at < required.size()) {
    std::size_t blank = required.find(' ', at);
    if (blank == std::string::npos) blank = required.size();
    const std::string name = required.substr(at, blank - at);
    if (!name.empty() && !given(r, name)) fail("--method {} needs {}", m.name, name);
    at = blank + 1;
  }
  if (lists(m.required, "--epsilon")) check_epsilon(r.settings.epsilon);
  if (lists(m.options, "--delta")) check_delta(r.settings.delta);
}

// theta = 2 w - 1: the model in the units of the scaled features (wire/loss.h).
std::vector<double> theta_of(const std::vector<double>& w) {
  std::vector<double> theta;
  for (double v : w) theta.push_back(2 * v - 1);
  return theta;
}

json number_or_null(bool has, double v) { return has ? json(v) : json(nullptr); }

// --loss: issue 14's learners on C = [0, 1]^p against the non-private optimum of the same loss
// (docs/mechanisms.md H.7).
json run_loss_method(const train_request& r) {
  const train_method& method = find_train_method(r.method);
  check_method_options(r, method);
  train_settings s = r.settings;
  s.loss = parse_loss(r.loss);
  s.seed = r.data.seed;
  const train_data data = load_train_data(r.data, s.loss);
  const examples& train = data.train;
  const bool classify = s.loss != wire::loss_kind::squared, tested = data.test.size() > 0;

  const std::vector<double> optimum = nonprivate_minimum(s.loss, data.objective, s.seed);
  const auto start = std::chrono::steady_clock::now();
  const train_result res = method.solve(data, s);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double loss = empirical_risk(s.loss, data.objective, res.w.data());
  const double best = empirical_risk(s.loss, data.objective, optimum.data());
  const double n = static_cast<double>(train.size());
  const bool reported = res.reports > 0, private_method = lists(method.options, "--epsilon");
  return {
      {"method", method.name},
      {"loss", r.loss},
      {"epsilon", number_or_null(private_method, s.epsilon)},
      {"epsilon_impl", number_or_null(private_method, res.epsilon_impl)},
      {"delta", res.delta},
      {"n", train.size()},
      {"p", train.p},
      {"features", data.feature_names},
      {"label", data.label_rule},
      {"train_rows", data.train_rows},
      {"test_rows", data.test.size()},
      {"w", res.w},
      {"theta", theta_of(res.w)},
      {"train_loss", loss},
      {"nonprivate_w", optimum},
      {"nonprivate_train_loss", best},
      {"excess_risk", loss - best},
      {"test_loss", number_or_null(tested, tested ? empirical_risk(s.loss, data.test, res.w.data()) : 0)},
      {"nonprivate_test_loss", number_or_null(tested, tested ? empirical_risk(s.loss, data.test, optimum.data()) : 0)},
      {"test_accuracy", number_or_null(classify && tested, tested ? accuracy(data.test, res.w.data()) : 0)},
      {"nonprivate_test_accuracy",
       number_or_null(classify && tested, tested ? accuracy(data.test, optimum.data()) : 0)},
      {"reports", res.reports},
      {"bytes_per_report", number_or_null(reported, double(res.report_bytes) / n)},
      {"device_seconds_per_report", number_or_null(reported, res.device_seconds / n)},
      {"seconds", seconds},
      {"details", res.details},
      {"summary", res.summary},
  };
}

std::string loss_text(const json& j) {
  std::string out =
      fmt::format("method {}, loss {}, {} users (training rows {}, test rows {}), p {} ({})\n",
                  j["method"].get<std::string>(), j["loss"].get<std::string>(), format_count(j["n"].get<uint64_t>()),
                  format_count(j["train_rows"].get<uint64_t>()), format_count(j["test_rows"].get<uint64_t>()),
                  j["p"].get<uint32_t>(), fmt::join(j["features"].get<std::vector<std::string>>(), ", "));
  out += fmt::format("label: {}\n", j["label"].get<std::string>());
  const double delta = j["delta"].get<double>();
  if (!j["epsilon"].is_null()) {
    out += fmt::format("epsilon {} (implemented {:.15g}){}\n", j["epsilon"].get<double>(),
                       j["epsilon_impl"].get<double>(), delta > 0 ? fmt::format(", delta {:g}", delta) : std::string());
  }
  out += fmt::format("{}\n", j["summary"].get<std::string>());
  out += fmt::format("w      {:.6f}\ntheta  {:.6f}\n", fmt::join(j["w"].get<std::vector<double>>(), " "),
                     fmt::join(j["theta"].get<std::vector<double>>(), " "));
  out += fmt::format("training loss {:.6f}, non-private optimum {:.6f}, excess risk {:.6f}\n",
                     j["train_loss"].get<double>(), j["nonprivate_train_loss"].get<double>(),
                     j["excess_risk"].get<double>());
  if (!j["test_accuracy"].is_null()) {
    out += fmt::format("test accuracy {:.4f}, non-private {:.4f}\n", j["test_accuracy"].get<double>(),
                       j["nonprivate_test_accuracy"].get<double>());
  } else if (!j["test_loss"].is_null()) {
    out += fmt::format("test loss {:.6f}, non-private {:.6f}\n", j["test_loss"].get<double>(),
                       j["nonprivate_test_loss"].get<double>());
  }
  if (!j["bytes_per_report"].is_null()) {
    out += fmt::format("reports: {:.1f} bytes each on average, device time {:.2f} us per report\n",
                       j["bytes_per_report"].get<double>(), 1e6 * j["device_seconds_per_report"].get<double>());
  }
  return out;
}

}  // namespace

json run_train(const train_request& r, const train_progress&) {
  if (r.loss.empty() == r.model.empty()) fail("ldp train needs exactly one of --loss and --model");
  if (!r.model.empty()) fail("--model is not implemented yet");
  if (!r.plot.empty()) fail("--plot applies to --model only");
  return run_loss_method(r);
}

std::string train_text(const json& j) { return loss_text(j); }

}  // namespace ldp::tools

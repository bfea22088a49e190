#include "train_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "errors.h"
#include "mechanism_options.h"
#include "output.h"
#include "svg_plot.h"
#include "train_models.h"
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

// The row's options for the path the request takes (--loss or --model).
void check_method_options(const train_request& r, const train_method& m) {
  const bool model = !r.model.empty();
  if (model ? m.train == nullptr : m.solve == nullptr)
    fail("--method {} takes {}, not {}", m.name, model ? "--loss" : "--model", model ? "--model" : "--loss");
  const char* options = model ? m.model_options : m.options;
  for (const std::string& name : r.given) {
    if (!lists(options, name)) {
      fail("{} does not apply to --method {}{}", name, m.name,
           std::strlen(options) == 0 ? std::string(" (it takes no method options)")
                                     : fmt::format(" (it takes {})", options));
    }
  }
  const std::string required = model ? m.model_required : m.required;
  std::size_t at = 0;
  while (at < required.size()) {
    std::size_t blank = required.find(' ', at);
    if (blank == std::string::npos) blank = required.size();
    const std::string name = required.substr(at, blank - at);
    if (!name.empty() && !given(r, name)) fail("--method {} needs {}", m.name, name);
    at = blank + 1;
  }
  if (lists(required.c_str(), "--epsilon")) check_epsilon(r.settings.epsilon);
  if (lists(options, "--delta") && (!model || given(r, "--delta"))) check_delta(r.settings.delta);
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

wire::model_kind parse_model(const std::string& name) {
  if (name == "linear") return wire::model_kind::linear;
  if (name == "logistic") return wire::model_kind::logistic;
  if (name == "softmax") return wire::model_kind::softmax;
  fail("--model must be linear, logistic or softmax, got '{}'", escaped(name, 40));
}

// The defaults of docs/cli.md "ldp train" for what the request leaves at 0, and the checks of the rest.
train_settings model_settings(const train_request& r) {
  train_settings s = r.settings;
  s.seed = r.data.seed;
  if (!given(r, "--delta")) s.delta = default_model_delta;
  if (!given(r, "--lr")) s.lr = default_model_lr;
  if (!given(r, "--clip")) s.clip = default_model_clip;
  if (!given(r, "--l2")) s.l2 = default_model_l2;
  if (!given(r, "--phases")) s.phases = default_model_phases;
  if (!(s.lr > 0 && std::isfinite(s.lr))) fail("--lr must be positive, got {}", s.lr);
  if (!(s.clip > 0 && s.clip <= 1e6)) fail("--clip must be in (0, 1e6], got {}", s.clip);
  if (!(s.l2 >= 0 && std::isfinite(s.l2))) fail("--l2 must be at least 0, got {}", s.l2);
  if (s.phases == 0 || s.phases > 16) fail("--phases must be in [1, 16], got {}", s.phases);
  if (given(r, "--steps") && s.steps == 0) fail("--steps must be at least 1");
  return s;
}

json curve_json(const std::vector<std::pair<uint64_t, double>>& curve) {
  json out = json::array();
  for (const auto& [step, loss] : curve) out.push_back({{"step", step}, {"loss", loss}});
  return out;
}

// --model: chapter I's training (docs/mechanisms.md I.4).
json run_model_method(const train_request& r, const train_progress& progress) {
  const train_method& method = find_train_method(r.method);
  const wire::model_kind kind = parse_model(r.model);
  check_method_options(r, method);
  const train_settings s = model_settings(r);
  const model_data data = load_model_data(r.data, kind);
  const std::vector<double> optimum = nonprivate_model(data, s.l2);
  const auto start = std::chrono::steady_clock::now();
  const model_result res = method.train(model_run{data, s, progress});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double loss = model_objective(data, res.theta, s.l2);
  const double best = model_objective(data, optimum, s.l2);
  const bool tested = data.test.size() > 0, classify = kind != wire::model_kind::linear;
  const bool private_method = lists(method.model_options, "--epsilon");
  const bool approximate = lists(method.model_options, "--delta");
  if (!r.plot.empty()) {
    std::vector<std::pair<double, double>> points;
    for (const auto& [step, l] : res.curve) points.emplace_back(static_cast<double>(step), l);
    write_svg_curve_plot(r.plot, points, "training loss (regularized)", "step",
                         fmt::format("ldp train --method {} --model {}", method.name, r.model));
  }
  return {
      {"method", method.name},
      {"model", r.model},
      {"epsilon", number_or_null(private_method, s.epsilon)},
      {"delta", number_or_null(approximate, s.delta)},
      {"epsilon_spent", res.epsilon_spent},
      {"delta_spent", res.delta_spent},
      {"n", data.users()},
      {"m", data.max_samples},
      {"p", data.shape.features},
      {"classes", kind == wire::model_kind::linear ? json(nullptr)
                                                   : json(kind == wire::model_kind::softmax ? data.shape.classes : 2)},
      {"d", wire::model_dim(data.shape)},
      {"steps", res.steps},
      {"train_loss", loss},
      {"nonprivate_train_loss", best},
      {"excess_risk", loss - best},
      {"test_accuracy",
       number_or_null(classify && tested, tested ? model_accuracy(data.shape, data.test, res.theta) : 0)},
      {"nonprivate_test_accuracy",
       number_or_null(classify && tested, tested ? model_accuracy(data.shape, data.test, optimum) : 0)},
      {"test_loss", number_or_null(tested, tested ? model_mean_loss(data.shape, data.test, res.theta) : 0)},
      {"nonprivate_test_loss", number_or_null(tested, tested ? model_mean_loss(data.shape, data.test, optimum) : 0)},
      {"curve", curve_json(res.curve)},
      {"budget", res.budget},
      {"seconds", seconds},
      {"seconds_per_round", seconds / static_cast<double>(std::max<uint64_t>(1, res.steps))},
      {"device_seconds_per_contribution",
       number_or_null(res.contributions > 0,
                      res.device_seconds / static_cast<double>(std::max<uint64_t>(1, res.contributions)))},
      {"bytes_per_device_round", number_or_null(res.bytes_per_device_round >= 0, res.bytes_per_device_round)},
      {"details", res.details},
      {"features", data.feature_names},
      {"label", data.label_rule},
      {"users", data.user_rule},
      {"train_rows", data.train_rows},
      {"test_rows", data.test.size()},
      {"theta", res.theta},
      {"summary", res.summary},
  };
}

std::string model_text(const json& j) {
  std::string out = fmt::format(
      "method {}, model {}, {} users of at most {} samples (training rows {}, test rows {}: {}), p {}, d {}\n",
      j["method"].get<std::string>(), j["model"].get<std::string>(), format_count(j["n"].get<uint64_t>()),
      j["m"].get<uint64_t>(), format_count(j["train_rows"].get<uint64_t>()),
      format_count(j["test_rows"].get<uint64_t>()), j["users"].get<std::string>(), j["p"].get<uint32_t>(),
      j["d"].get<uint64_t>());
  out += fmt::format("label: {}\n", j["label"].get<std::string>());
  if (!j["epsilon"].is_null()) {
    out += fmt::format("requested epsilon {}{}; spent epsilon {:.6g}, delta {:g}\n", j["epsilon"].get<double>(),
                       j["delta"].is_null() ? std::string() : fmt::format(", delta {:g}", j["delta"].get<double>()),
                       j["epsilon_spent"].get<double>(), j["delta_spent"].get<double>());
    out += fmt::format("budget: {}\n", j["budget"].dump());
  }
  out += fmt::format("{}\n", j["summary"].get<std::string>());
  for (const json& point : j["curve"]) {
    out +=
        fmt::format("  step {:>6}  training loss {:.6f}\n", point["step"].get<uint64_t>(), point["loss"].get<double>());
  }
  out += fmt::format("training loss {:.6f}, non-private optimum {:.6f}, excess risk {:.6f}\n",
                     j["train_loss"].get<double>(), j["nonprivate_train_loss"].get<double>(),
                     j["excess_risk"].get<double>());
  if (!j["test_accuracy"].is_null()) {
    out += fmt::format("test accuracy {:.4f}, non-private {:.4f}\n", j["test_accuracy"].get<double>(),
                       j["nonprivate_test_accuracy"].get<double>());
  }
  if (!j["test_loss"].is_null()) {
    out += fmt::format("test loss {:.6f}, non-private {:.6f}\n", j["test_loss"].get<double>(),
                       j["nonprivate_test_loss"].get<double>());
  }
  out += fmt::format("{:.3f} s, {:.3g} s per round", j["seconds"].get<double>(), j["seconds_per_round"].get<double>());
  if (!j["device_seconds_per_contribution"].is_null()) {
    out += fmt::format(", device {:.2f} us per contribution, {:g} bytes per device per round",
                       1e6 * j["device_seconds_per_contribution"].get<double>(),
                       j["bytes_per_device_round"].get<double>());
  }
  return out + "\n";
}

}  // namespace

json run_train(const train_request& r, const train_progress& progress) {
  if (r.loss.empty() == r.model.empty()) fail("ldp train needs exactly one of --loss and --model");
  if (!r.model.empty()) return run_model_method(r, progress);
  if (!r.plot.empty()) fail("--plot applies to --model only");
  if (r.data.samples_per_user != 0 || !r.data.user_column.empty())
    fail("--samples-per-user and --user-column apply to --model only");
  return run_loss_method(r);
}

std::string train_text(const json& j) { return j.contains("model") ? model_text(j) : loss_text(j); }

}  // namespace ldp::tools

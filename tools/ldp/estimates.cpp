#include "estimates.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "block_text.h"
#include "errors.h"
#include "ldp/server/frequency.h"
#include "ldp/wire/oracle_params.h"
#include "output.h"
#include "state_io.h"

namespace ldp::tools {
namespace {

error_summary summarize(const std::vector<server::estimate>& all, const truth_table& truth) {
  error_summary e;
  double squares = 0, variances = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const double error = all[i].value - truth.values[i];
    squares += error * error;
    variances += all[i].variance;
    if (std::fabs(error) > e.max_abs_error) {
      e.max_abs_error = std::fabs(error);
      e.max_item = all[i].item;
    }
    if (all[i].ci_low <= truth.values[i] && truth.values[i] <= all[i].ci_high) ++e.covered;
  }
  e.size = all.size();
  e.rmse = std::sqrt(squares / static_cast<double>(all.size()));
  e.predicted_rmse = std::sqrt(variances / static_cast<double>(all.size()));
  return e;
}

const char* item_word(const estimate_report& r) { return r.means ? "coordinate" : "item"; }

// What the variances are (server::variance_kind): the kind every estimate shares, which is the case
// for every family's estimate_all; "mixed" otherwise.
const char* variance_kind_text(const std::vector<server::estimate>& all) {
  for (const server::estimate& e : all) {
    if (e.kind != all.front().kind) return "mixed";
  }
  return server::variance_kind_name(all.front().kind);  // make_estimate_report refuses an empty list
}

// "1 coordinate", "1,000 items".
std::string counted(const estimate_report& r, std::size_t n) {
  return fmt::format("{} {}{}", format_count(n), item_word(r), n == 1 ? "" : "s");
}

}  // namespace

std::string format_value(const estimate_report& r, double v) {
  return r.means ? fmt::format("{:.6g}", v) : fmt::format("{:.0f}", v);
}

estimate_report make_estimate_report(const server::aggregator& agg, double confidence, std::size_t top) {
  // The frequency oracles count items and the distribution family the reports per bucket (item =
  // bucket, docs/mechanisms.md G); the others estimate means.
  const wire::mechanism m = agg.parameters().mech;
  const bool counts =
      server::frequency_aggregator::handles(m) || wire::in_family(m, wire::mechanism_family::distribution);
  return make_estimate_report(agg.estimate_all(confidence), !counts, confidence, top);
}

estimate_report make_candidate_report(const server::aggregator& agg, const std::vector<uint32_t>& items,
                                      double confidence, std::size_t top) {
  const auto* frequency = dynamic_cast<const server::frequency_aggregator*>(&agg);
  if (frequency == nullptr) {
    fail("--candidates applies to frequency-oracle states only; this state is {}",
         wire::mechanism_name(agg.parameters().mech));
  }
  return make_estimate_report(frequency->estimate_items(span<const uint32_t>(items.data(), items.size()), confidence),
                              false, confidence, top);
}

estimate_report make_estimate_report(std::vector<server::estimate> all, bool means, double confidence,
                                     std::size_t top) {
  estimate_report r;
  r.means = means;
  r.confidence = confidence;
  r.all = std::move(all);
  if (r.all.empty()) fail("the aggregator gave no estimates (out of memory?)");
  r.listed.resize(r.all.size());
  std::iota(r.listed.begin(), r.listed.end(), std::size_t{0});
  if (top != 0) {
    top = std::min(top, r.all.size());
    std::partial_sort(r.listed.begin(), r.listed.begin() + static_cast<std::ptrdiff_t>(top), r.listed.end(),
                      [&](std::size_t a, std::size_t b) {
                        return r.all[a].value > r.all[b].value || (r.all[a].value == r.all[b].value && a < b);
                      });
    r.listed.resize(top);
  }
  return r;
}

void attach_truth(estimate_report& r, truth_table truth) {
  if (truth.means != r.means) {
    fail("the truth file holds {} but this state estimates {}", truth.means ? "means" : "counts",
         r.means ? "means" : "counts");
  }
  r.errors = summarize(r.all, truth);
  r.truth = std::move(truth);
}

void print_state_summary(std::FILE* out, const server::aggregator& agg, const std::string& note) {
  const uint64_t rejected = agg.rejected_total();
  fmt::print(out, "mechanism: {}\n", describe_state(agg));
  if (!note.empty()) fmt::print(out, "{}\n", note);
  fmt::print(out, "reports: {} accepted, {} rejected{}\n", format_count(agg.reports()), format_count(rejected),
             damaged_text(agg.damaged_chunks()));
  if (rejected != 0) print_text(out, rejection_table(agg.rejected()), "  ");
}

void print_estimate_text(std::FILE* out, const server::aggregator& agg, const estimate_report& r) {
  print_state_summary(out, agg, r.release ? r.release->text : std::string());
  print_estimate_table(out, r);
}

void print_estimate_table(std::FILE* out, const estimate_report& r) {
  const std::string which = r.listed.size() == r.all.size()
                                ? counted(r, r.all.size())
                                : fmt::format("top {} of {} by estimate", r.listed.size(), counted(r, r.all.size()));
  fmt::print(out, "estimates with {:g}% confidence intervals ({}):\n", 100 * r.confidence, which);
  if (r.projection) {
    const l1_projection& l1 = *r.projection;
    fmt::print(out,
               "projected onto the l1 ball of radius {:g} (unprojected l1 norm {:.6g}, threshold {:.6g}); the "
               "intervals are the unprojected estimates'\n",
               l1.radius, l1.unprojected_norm, l1.threshold);
  }
  table t{{item_word(r), "estimate", fmt::format("{:g}% CI", 100 * r.confidence)}, {true, true, true}, {}};
  if (r.truth) {
    t.header.push_back("true");
    t.numeric.push_back(true);
  }
  for (std::size_t i : r.listed) {
    const server::estimate& e = r.all[i];
    std::vector<std::string> row = {std::to_string(e.item), format_value(r, e.value),
                                    fmt::format("[{}, {}]", format_value(r, e.ci_low), format_value(r, e.ci_high))};
    if (r.truth) row.push_back(format_value(r, r.truth->values[i]));
    t.rows.push_back(std::move(row));
  }
  print_text(out, t, "  ");
  print_error_summary(out, r, "");
}

void print_error_summary(std::FILE* out, const estimate_report& r, const std::string& indent) {
  if (!r.truth) return;
  const error_summary& e = r.errors;
  fmt::print(out, "{}error against the exact answer, over {}:\n", indent, counted(r, e.size));
  fmt::print(out, "{}  RMSE {:.6g}, closed-form prediction {:.6g} (ratio {:.3f})\n", indent, e.rmse, e.predicted_rmse,
             e.rmse / e.predicted_rmse);
  fmt::print(out, "{}  max |error| {:.6g} ({} {})\n", indent, e.max_abs_error, item_word(r), e.max_item);
  fmt::print(out, "{}  {:g}% intervals containing the true value: {} of {} ({:.1f}%)\n", indent, 100 * r.confidence,
             e.covered, e.size, 100.0 * static_cast<double>(e.covered) / static_cast<double>(e.size));
}

void print_estimate_csv(std::FILE* out, const estimate_report& r) {
  table t{{item_word(r), "estimate", "variance", "ci_low", "ci_high"}, {}, {}};
  if (r.truth) t.header.push_back("true");
  if (r.projection) t.header.push_back("unprojected");
  for (std::size_t i : r.listed) {
    const server::estimate& e = r.all[i];
    std::vector<std::string> row = {std::to_string(e.item), fmt::format("{:.17g}", e.value),
                                    fmt::format("{:.17g}", e.variance), fmt::format("{:.17g}", e.ci_low),
                                    fmt::format("{:.17g}", e.ci_high)};
    if (r.truth) row.push_back(fmt::format("{:.17g}", r.truth->values[i]));
    if (r.projection) row.push_back(fmt::format("{:.17g}", r.projection->unprojected[i]));
    t.rows.push_back(std::move(row));
  }
  print_csv(out, t);
}

nlohmann::ordered_json state_json(const server::aggregator& agg) {
  const wire::params& p = agg.parameters();
  nlohmann::ordered_json j = {{"mechanism", wire::mechanism_name(p.mech)}, {"epsilon", wire::implemented_epsilon(p)}};
  // A memoized block's second level (docs/mechanisms.md E.1, E.2), right after the per-report one;
  // the other blocks have none (+inf) or no formula (NaN).
  if (std::isfinite(wire::longitudinal_epsilon(p))) j["epsilon_longitudinal"] = wire::longitudinal_epsilon(p);
  nlohmann::ordered_json parameters = nlohmann::ordered_json::object();
  for (const block_field& f : block_fields(p)) parameters[f.name] = f.value;
  j["fingerprint"] = fmt::format("{:016x}", agg.fingerprint());
  j["parameters"] = parameters;
  return j;
}

nlohmann::ordered_json rejected_json(const server::aggregator& agg) {
  nlohmann::ordered_json rejected = nlohmann::ordered_json::object();
  for (std::size_t s = 1; s < agg.rejected().size(); ++s) {
    const uint64_t c = agg.rejected()[s];
    if (c != 0) rejected[status_name(static_cast<status>(s))] = c;
  }
  return rejected;
}

nlohmann::ordered_json estimate_json(const server::aggregator& agg, const estimate_report& r) {
  nlohmann::ordered_json estimates = nlohmann::ordered_json::array();
  for (std::size_t i : r.listed) {
    const server::estimate& e = r.all[i];
    nlohmann::ordered_json entry = {{"item", e.item},
                                    {"estimate", e.value},
                                    {"variance", e.variance},
                                    {"ci_low", e.ci_low},
                                    {"ci_high", e.ci_high}};
    if (r.truth) entry["true"] = r.truth->values[i];
    if (r.projection) entry["unprojected"] = r.projection->unprojected[i];
    estimates.push_back(std::move(entry));
  }
  nlohmann::ordered_json j = state_json(agg);
  if (r.release) j["epsilon"] = r.release->epsilon_impl;  // in place: the key keeps its position
  j.update(nlohmann::ordered_json{
      {"kind", r.means ? "mean" : "count"},
      {"variance_kind", variance_kind_text(r.all)},
      {"size", r.all.size()},
      {"confidence", r.confidence},
      {"reports", agg.reports()},
      {"rejected", rejected_json(agg)},
      {"damaged_chunks", agg.damaged_chunks()},
      {"estimates", estimates},
  });
  if (r.projection) {
    j["l1_ball"] = {{"radius", r.projection->radius},
                    {"threshold", r.projection->threshold},
                    {"unprojected_norm", r.projection->unprojected_norm}};
  }
  if (r.release) {
    j["delta"] = r.release->delta;
    j["release"] = r.release->details;
  }
  if (r.truth) {
    const error_summary& e = r.errors;
    j["error"] = {{"rmse", e.rmse},
                  {"predicted_rmse", e.predicted_rmse},
                  {"max_abs_error", e.max_abs_error},
                  {"max_item", e.max_item},
                  {"covered", e.covered},
                  {"size", e.size}};
  }
  return j;
}

}  // namespace ldp::tools

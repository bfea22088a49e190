#include "distribution_output.h"

#include <fmt/format.h>

#include "errors.h"
#include "estimates.h"
#include "output.h"

namespace ldp::tools {
namespace {

const server::distribution_aggregator& distribution_of(const server::aggregator& agg) {
  const auto* d = dynamic_cast<const server::distribution_aggregator*>(&agg);
  if (d == nullptr) {
    fail("--range, --quantile and --density apply to square-wave, hierarchical and haar states only; this state is {}",
         wire::mechanism_name(agg.parameters().mech));
  }
  return *d;
}

void require(status s, const char* what) {
  if (s != status::ok) fail("cannot estimate the {}: {}", what, describe(s));
}

std::string real(double v) { return fmt::format("{:.6g}", v); }
std::string interval(double lo, double hi) { return fmt::format("[{}, {}]", real(lo), real(hi)); }

}  // namespace

distribution_report make_distribution_report(const server::aggregator& agg, const distribution_request& q) {
  const server::distribution_aggregator& d = distribution_of(agg);
  distribution_report r;
  r.confidence = q.options.confidence;
  r.reports = agg.reports();
  const server::distribution_query asked{q.ranges, q.quantiles, q.density};
  server::distribution_answer found;
  require(d.answer(asked, q.options, &found), "distribution");  // one fit of the model for every question
  r.ranges = std::move(found.ranges);
  r.quantiles = std::move(found.quantiles);
  r.density = std::move(found.density);
  return r;
}

void print_distribution_text(std::FILE* out, const server::aggregator& agg, const distribution_report& r) {
  print_state_summary(out, agg, "");
  const std::string ci = fmt::format("{:g}% CI", 100 * r.confidence);
  if (!r.ranges.empty()) {
    fmt::print(out, "ranges (the fraction of the reports whose value lies in the range):\n");
    table t{{"range", "fraction", ci, "count"}, {false, true, true, true}, {}};
    for (const server::range_estimate& e : r.ranges) {
      t.rows.push_back({interval(e.lo, e.hi), real(e.estimate), interval(e.ci_low, e.ci_high),
                        fmt::format("{:.0f}", e.estimate * static_cast<double>(r.reports))});
    }
    print_text(out, t, "  ");
  }
  if (!r.quantiles.empty()) {
    fmt::print(out, "quantiles:\n");
    table t{{"q", "value", ci}, {true, true, true}, {}};
    for (const server::quantile_estimate& e : r.quantiles)
      t.rows.push_back({fmt::format("{:g}", e.q), real(e.value), interval(e.ci_low, e.ci_high)});
    print_text(out, t, "  ");
  }
  if (!r.density.empty()) {
    fmt::print(out, "density (fraction of the reports per unit of value, at each bucket's midpoint):\n");
    table t{{"x", "density", ci}, {true, true, true}, {}};
    for (const server::density_estimate& e : r.density)
      t.rows.push_back({real(e.x), real(e.value), interval(e.ci_low, e.ci_high)});
    print_text(out, t, "  ");
  }
}

nlohmann::ordered_json distribution_json(const server::aggregator& agg, const distribution_report& r) {
  nlohmann::ordered_json j = state_json(agg);
  j["confidence"] = r.confidence;
  j["reports"] = agg.reports();
  j["rejected"] = rejected_json(agg);
  j["damaged_chunks"] = agg.damaged_chunks();
  if (!r.ranges.empty()) {
    nlohmann::ordered_json ranges = nlohmann::ordered_json::array();
    for (const server::range_estimate& e : r.ranges) {
      ranges.push_back({{"lo", e.lo},
                        {"hi", e.hi},
                        {"estimate", e.estimate},
                        {"count", e.estimate * static_cast<double>(r.reports)},
                        {"variance", e.variance},
                        {"ci_low", e.ci_low},
                        {"ci_high", e.ci_high}});
    }
    j["ranges"] = std::move(ranges);
  }
  if (!r.quantiles.empty()) {
    nlohmann::ordered_json quantiles = nlohmann::ordered_json::array();
    for (const server::quantile_estimate& e : r.quantiles)
      quantiles.push_back({{"q", e.q}, {"value", e.value}, {"ci_low", e.ci_low}, {"ci_high", e.ci_high}});
    j["quantiles"] = std::move(quantiles);
  }
  if (!r.density.empty()) {
    nlohmann::ordered_json density = nlohmann::ordered_json::array();
    for (const server::density_estimate& e : r.density)
      density.push_back({{"x", e.x}, {"value", e.value}, {"ci_low", e.ci_low}, {"ci_high", e.ci_high}});
    j["density"] = std::move(density);
  }
  return j;
}

}  // namespace ldp::tools

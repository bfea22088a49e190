// What `ldp estimate` and `ldp demo` print (docs/cli.md "estimate"): the aggregator's estimates
// with their confidence intervals, the listed subset (--top), and, given the exact answer, the
// error summary against the closed-form prediction. Rendered as a text table, CSV or one JSON
// object whose fields docs/cli.md documents.
#ifndef LDP_TOOLS_ESTIMATES_H
#define LDP_TOOLS_ESTIMATES_H

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "l1_ball.h"
#include "ldp/server/aggregator.h"
#include "truth.h"

namespace ldp::tools {

struct error_summary {
  double rmse = 0;            // sqrt(mean (estimate - true)^2) over every item or coordinate
  double predicted_rmse = 0;  // sqrt(mean closed-form variance): what the RMSE should be near
  double max_abs_error = 0;
  uint32_t max_item = 0;  // where the largest error is
  uint64_t covered = 0;   // intervals that contain the true value
  uint64_t size = 0;
};

// A central-DP release (central_release.h): the server's noise is in the estimates, which the
// report states next to the state's summary.
struct release_summary {
  double epsilon_impl = 0;
  double delta = 0;
  std::string text;                // one line for the table output
  nlohmann::ordered_json details;  // the JSON "release" object
};

struct estimate_report {
  bool means = false;  // coordinate means (else item counts)
  double confidence = 0.95;
  std::vector<server::estimate> all;
  std::vector<std::size_t> listed;  // indices into `all`, in display order
  std::optional<truth_table> truth;
  error_summary errors;  // when truth is set
  std::optional<release_summary> release;
  std::optional<l1_projection> projection;  // --l1-ball: the values are projected (l1_ball.h)
};

// top = 0 lists everything in index order; otherwise the top largest estimates (ties to the lower
// index). Throws cli_error if the aggregator cannot estimate.
estimate_report make_estimate_report(const server::aggregator& agg, double confidence, std::size_t top);
// The estimates of the given items of a frequency-oracle state (server::frequency_aggregator::
// estimate_items: the variances of a candidate list), listed in the given order (top = 0) or the top
// largest (ties to the earlier candidate). Throws cli_error for a state of another family.
estimate_report make_candidate_report(const server::aggregator& agg, const std::vector<uint32_t>& items,
                                      double confidence, std::size_t top);
// The same for estimates computed elsewhere (a central-DP release).
estimate_report make_estimate_report(std::vector<server::estimate> all, bool means, double confidence, std::size_t top);
// Adds the exact answer and the error summary; throws cli_error if it is of the other kind.
void attach_truth(estimate_report& r, truth_table truth);

// The state summary lines: mechanism, `note` (when not empty), reports, rejections.
void print_state_summary(std::FILE* out, const server::aggregator& agg, const std::string& note);
// The state summary lines, then the listed estimates as a table.
void print_estimate_text(std::FILE* out, const server::aggregator& agg, const estimate_report& r);
// The estimates table and the error summary of print_estimate_text, without the state lines.
void print_estimate_table(std::FILE* out, const estimate_report& r);
// Just the listed estimates, one row each (item,estimate,variance,ci_low,ci_high[,true]).
void print_estimate_csv(std::FILE* out, const estimate_report& r);
// The error summary lines (nothing without a truth table).
void print_error_summary(std::FILE* out, const estimate_report& r, const std::string& indent);
// The documented JSON object.
nlohmann::ordered_json estimate_json(const server::aggregator& agg, const estimate_report& r);

// The JSON fields that name a state's block, first in every estimate object: mechanism, epsilon
// (implemented), epsilon_longitudinal (memoized blocks), fingerprint, parameters.
nlohmann::ordered_json state_json(const server::aggregator& agg);
// The rejection counters with a non-zero count, by status name.
nlohmann::ordered_json rejected_json(const server::aggregator& agg);

// A count or a mean as the tables show it.
std::string format_value(const estimate_report& r, double v);

}  // namespace ldp::tools

#endif

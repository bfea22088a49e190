// What `ldp estimate` prints for the distribution queries of a square-wave, hierarchical or haar
// state (docs/cli.md "Distributions and ranges", docs/mechanisms.md G.4): --range a:b (the fraction
// and count of the reports in [a, b]), --quantile q and --density, each with its interval, as a text
// table or one JSON object (ranges, quantiles, density).
#ifndef LDP_TOOLS_DISTRIBUTION_OUTPUT_H
#define LDP_TOOLS_DISTRIBUTION_OUTPUT_H

#include <cstdio>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ldp/server/aggregator.h"
#include "ldp/server/distribution.h"

namespace ldp::tools {

struct distribution_request {
  std::vector<std::pair<double, double>> ranges;  // in the order of the command line
  std::vector<double> quantiles;
  bool density = false;
  server::distribution_options options;
};

struct distribution_report {
  double confidence = 0.95;
  uint64_t reports = 0;  // a range's count is its fraction of them
  std::vector<server::range_estimate> ranges;
  std::vector<server::quantile_estimate> quantiles;
  std::vector<server::density_estimate> density;
};

// The answers of a distribution state; cli_error for a state of another family or a refused query.
distribution_report make_distribution_report(const server::aggregator& agg, const distribution_request& q);

// The state summary lines, then a table per kind of query asked.
void print_distribution_text(std::FILE* out, const server::aggregator& agg, const distribution_report& r);
// The documented JSON object: the state's fields, then ranges, quantiles and density (those asked).
nlohmann::ordered_json distribution_json(const server::aggregator& agg, const distribution_report& r);

}  // namespace ldp::tools

#endif

// What `ldp estimate STATE --marginal a,b,c` prints for a kway-marginals state (docs/cli.md
// "Marginals", docs/mechanisms.md H.5): the 2^|A| cells of the marginal over the listed attributes,
// each with its estimate, variance and interval, as a text table or one JSON object; with --truth
// (simulate --truth-out) the exact cells too.
#ifndef LDP_TOOLS_MARGINAL_OUTPUT_H
#define LDP_TOOLS_MARGINAL_OUTPUT_H

#include <string>

#include "ldp/server/aggregator.h"

namespace ldp::tools {

struct marginal_request {
  std::string state;       // the file, for the text header
  std::string attributes;  // "0,3,5": attribute numbers from 0, distinct, at most k of them
  double confidence = 0.95;
  std::string format = "table";  // table or json
  std::string truth;             // optional truth file
};

// Prints the marginal; cli_error for a state of another mechanism or a bad attribute list.
void print_marginal(const server::aggregator& agg, const marginal_request& q);

}  // namespace ldp::tools

#endif

// ldp estimate STATE --query FILE for smooth-queries states (docs/cli.md "estimate", docs/mechanisms.md
// H.6): the queries of FILE, functions of the server's built-in family (server/smooth_queries.h) on
// the devices' scaled coordinates in [-1, 1]^p, answered from the state's feature estimates with
// their variances and intervals.
//
// FILE is a JSON array of objects: {"name": "...", "kind": "gaussian" | "smooth-step" | "monomial",
// "center": [p numbers in [-1, 1]] (gaussian, smooth-step) or "powers": [p integers >= 0]
// (monomial), "width": s > 0 (gaussian, smooth-step)}.
#ifndef LDP_TOOLS_SMOOTH_ANSWERS_H
#define LDP_TOOLS_SMOOTH_ANSWERS_H

#include <string>
#include <vector>

#include "ldp/server/aggregator.h"
#include "ldp/server/smooth_queries.h"

namespace ldp::tools {

// The queries of FILE for p attributes; cli_error naming the query and field at fault.
std::vector<server::smooth_query> read_smooth_queries(const std::string& path, uint32_t p);

// The answers as a table (table: name, kind, answer, sd, interval) or JSON (json = true).
void print_smooth_answers(const server::aggregator& agg, const std::string& state,
                          const std::vector<server::smooth_query>& queries, double confidence, bool json);

}  // namespace ldp::tools

#endif

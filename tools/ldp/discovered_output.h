// What `ldp estimate --discover K` prints (docs/cli.md "Discovery output and metrics"): the
// discovered strings in rank order with their estimated counts and intervals, and, given the truth,
// precision, recall and count error at K; as the tool's text table or as JSON. Strings are bytes:
// both renderings show them through printable_string, so any bytes print and the JSON is valid UTF-8.
#ifndef LDP_TOOLS_DISCOVERED_OUTPUT_H
#define LDP_TOOLS_DISCOVERED_OUTPUT_H

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "discovery_metrics.h"

namespace ldp::tools {

// The bytes as text, unambiguously: a backslash as "\\", a control byte or a byte that is not part
// of valid UTF-8 as "\xNN" (lower-case hex; output.h escaped), everything else as it is.
std::string printable_string(std::string_view bytes);

// {"discovered": [{"item", "estimate", "variance", "ci_low", "ci_high"}, ...] and, with metrics,
// "precision", "recall", "count_rmse" (null when undefined)}.
nlohmann::ordered_json discovered_json(const std::vector<discovered_string>& discovered,
                                       const std::optional<discovery_metrics>& metrics);

// A rank, estimate, interval and string row per discovered string, then the metrics line.
void print_discovered_table(std::FILE* out, const std::vector<discovered_string>& discovered, double confidence,
                            const std::optional<discovery_metrics>& metrics);

}  // namespace ldp::tools

#endif

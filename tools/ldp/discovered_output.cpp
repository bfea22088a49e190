#include "discovered_output.h"

#include <fmt/format.h>

#include "output.h"

namespace ldp::tools {

std::string printable_string(std::string_view bytes) {
  // escaped() leaves a backslash as it is; doubling it first keeps "\x41" typed by a user apart
  // from an escaped byte.
  std::string out;
  for (std::size_t at = 0;;) {
    const std::size_t slash = bytes.find('\\', at);
    out += escaped(bytes.substr(at, slash == std::string_view::npos ? std::string_view::npos : slash - at));
    if (slash == std::string_view::npos) return out;
    out += "\\\\";
    at = slash + 1;
  }
}

nlohmann::ordered_json discovered_json(const std::vector<discovered_string>& discovered,
                                       const std::optional<discovery_metrics>& metrics) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const discovered_string& s : discovered) {
    list.push_back({{"item", printable_string(s.item)},
                    {"estimate", s.estimate},
                    {"variance", s.variance},
                    {"ci_low", s.ci_low},
                    {"ci_high", s.ci_high}});
  }
  nlohmann::ordered_json j = {{"discovered", list}};
  if (metrics) {
    j["precision"] = metrics->precision;
    j["recall"] = metrics->recall;
    j["count_rmse"] = metrics->count_rmse;
  }
  return j;
}

void print_discovered_table(std::FILE* out, const std::vector<discovered_string>& discovered, double confidence,
                            const std::optional<discovery_metrics>& metrics) {
  fmt::print(out, "discovered strings with {:g}% confidence intervals ({} string{}):\n", 100 * confidence,
             format_count(discovered.size()), discovered.size() == 1 ? "" : "s");
  // The string last: its width in bytes is not its width on a terminal.
  table t{{"rank", "estimate", fmt::format("{:g}% CI", 100 * confidence), "string"}, {true, true, true, false}, {}};
  for (std::size_t i = 0; i < discovered.size(); ++i) {
    const discovered_string& s = discovered[i];
    t.rows.push_back({std::to_string(i + 1), fmt::format("{:.0f}", s.estimate),
                      fmt::format("[{:.0f}, {:.0f}]", s.ci_low, s.ci_high), printable_string(s.item)});
  }
  print_text(out, t, "  ");
  if (metrics) {
    fmt::print(out, "against the true top {}: precision {:.4f}, recall {:.4f}, count RMSE {:.6g}\n", metrics->k,
               metrics->precision, metrics->recall, metrics->count_rmse);
  }
}

}  // namespace ldp::tools

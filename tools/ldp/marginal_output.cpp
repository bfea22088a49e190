#include "marginal_output.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "block_text.h"
#include "errors.h"
#include "ldp/server/marginals.h"
#include "ldp/wire/oracle_params.h"
#include "output.h"
#include "truth.h"

namespace ldp::tools {
namespace {

std::vector<uint32_t> parse_attributes(const std::string& text, uint32_t p) {
  std::vector<uint32_t> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    char* end = nullptr;
    const unsigned long v = std::strtoul(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || item[0] == '-' || v >= p) {
      fail("--marginal must list attribute numbers in [0, {}) separated by commas, got '{}'", p, text);
    }
    out.push_back(static_cast<uint32_t>(v));
    at = comma + 1;
  }
  return out;
}

// The cell's values of the attributes, first attribute first: "0 1 1".
std::string pattern_text(uint32_t cell, std::size_t width) {
  std::string s;
  for (std::size_t i = 0; i < width; ++i) s += (i == 0 ? "" : " ") + std::to_string(cell >> i & 1);
  return s;
}

}  // namespace

void print_marginal(const server::aggregator& agg, const marginal_request& q) {
  const wire::params& p = agg.parameters();
  if (p.mech != wire::mechanism::kway_marginals) {
    fail("--marginal applies to kway-marginals states only; {} is {}", q.state, wire::mechanism_name(p.mech));
  }
  const auto attributes_count = static_cast<uint32_t>(p.get(wire::field::vector_dim));
  const uint64_t k = p.get(wire::field::marginal_order);
  const std::vector<uint32_t> attributes = parse_attributes(q.attributes, attributes_count);
  if (attributes.size() > k)
    fail("--marginal lists {} attributes, above the state's order k = {}", attributes.size(), k);
  if (agg.reports() == 0) fail("{} holds no reports: nothing to estimate", q.state);
  const std::vector<server::estimate> coordinates = agg.estimate_all(q.confidence);
  server::marginal_table table;
  const status s = server::marginal_estimate(p, coordinates, attributes, q.confidence, &table);
  if (s != status::ok) fail("--marginal {}: {} (distinct attributes, at most k = {})", q.attributes, describe(s), k);
  std::vector<double> truth;
  if (!q.truth.empty()) {
    // The exact cells from the exact conjunction fractions, by the same inclusion-exclusion.
    const truth_table t = read_truth(q.truth, coordinates.size());
    std::vector<server::estimate> exact(coordinates.size());
    for (std::size_t j = 0; j < exact.size(); ++j) exact[j] = {static_cast<uint32_t>(j), t.values[j], 0, 0, 0, {}};
    server::marginal_table exact_table;
    if (server::marginal_estimate(p, exact, attributes, q.confidence, &exact_table) != status::ok) {
      fail("internal: no exact marginal from {}", q.truth);
    }
    for (const server::estimate& e : exact_table.cells) truth.push_back(e.value);
  }
  if (q.format == "json") {
    nlohmann::ordered_json j = {{"mechanism", wire::mechanism_name(p.mech)},
                                {"epsilon", wire::implemented_epsilon(p)},
                                {"fingerprint", fmt::format("{:016x}", agg.fingerprint())},
                                {"reports", agg.reports()},
                                {"attributes", attributes},
                                {"confidence", q.confidence}};
    nlohmann::ordered_json cells = nlohmann::ordered_json::array();
    for (const server::estimate& e : table.cells) {
      std::vector<int> values;
      for (std::size_t i = 0; i < attributes.size(); ++i) values.push_back(static_cast<int>(e.item >> i & 1));
      nlohmann::ordered_json cell = {{"values", values},
                                     {"estimate", e.value},
                                     {"variance", e.variance},
                                     {"ci_low", e.ci_low},
                                     {"ci_high", e.ci_high}};
      if (!truth.empty()) cell["truth"] = truth[e.item];
      cells.push_back(cell);
    }
    j["cells"] = cells;
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print("state: {}\n{} {}, {} reports, epsilon {:.15g} implemented\n", q.state, wire::mechanism_name(p.mech),
             describe_block(p), format_count(agg.reports()), wire::implemented_epsilon(p));
  std::string names;
  for (uint32_t a : attributes) names += (names.empty() ? "" : " ") + std::to_string(a);
  fmt::print("marginal over attributes {} ({:g}% intervals):\n", names, 100 * q.confidence);
  fmt::print("{:>{}}  {:>10}  {:>12}  {:>10}  {:>10}{}\n", "values", 2 * attributes.size() + 4, "estimate", "std error",
             "ci_low", "ci_high", truth.empty() ? "" : "       truth");
  for (const server::estimate& e : table.cells) {
    fmt::print("{:>{}}  {:>10.6f}  {:>12.6f}  {:>10.6f}  {:>10.6f}", pattern_text(e.item, attributes.size()),
               2 * attributes.size() + 4, e.value, std::sqrt(e.variance), e.ci_low, e.ci_high);
    if (!truth.empty()) fmt::print("  {:>10.6f}", truth[e.item]);
    fmt::print("\n");
  }
}

}  // namespace ldp::tools

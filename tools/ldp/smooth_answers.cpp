#include "smooth_answers.h"

#include <cmath>
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "errors.h"
#include "estimates.h"
#include "files.h"
#include "output.h"

namespace ldp::tools {
namespace {

constexpr const char* kind_names[] = {"gaussian", "smooth-step", "monomial"};

const char* kind_name(server::smooth_query_kind k) { return kind_names[static_cast<int>(k)]; }

std::vector<double> numbers(const nlohmann::json& q, const char* key, uint32_t p, const std::string& name) {
  if (!q.contains(key) || !q[key].is_array() || q[key].size() != p)
    fail("--query: query '{}' needs \"{}\": an array of {} numbers (one per attribute)", escaped(name), key, p);
  std::vector<double> out;
  for (const auto& v : q[key]) {
    if (!v.is_number()) fail("--query: query '{}': \"{}\" holds a value that is not a number", escaped(name), key);
    out.push_back(v.get<double>());
  }
  return out;
}

server::smooth_query parse_query(const nlohmann::json& q, uint32_t p, std::size_t index) {
  if (!q.is_object()) fail("--query: entry {} is not an object", index);
  server::smooth_query out;
  out.name = q.contains("name") && q["name"].is_string() ? q["name"].get<std::string>() : fmt::format("q{}", index);
  const std::string kind = q.contains("kind") && q["kind"].is_string() ? q["kind"].get<std::string>() : "";
  if (kind == "monomial") {
    out.kind = server::smooth_query_kind::monomial;
    out.point = numbers(q, "powers", p, out.name);
    for (double a : out.point) {
      if (!(a >= 0 && a <= 1000 && a == std::floor(a)))
        fail("--query: query '{}': powers must be integers in [0, 1000]", escaped(out.name));
    }
    return out;
  }
  if (kind != "gaussian" && kind != "smooth-step")
    fail("--query: query '{}': \"kind\" must be gaussian, smooth-step or monomial", escaped(out.name));
  out.kind = kind == "gaussian" ? server::smooth_query_kind::gaussian : server::smooth_query_kind::smooth_step;
  out.point = numbers(q, "center", p, out.name);
  if (!q.contains("width") || !q["width"].is_number() || !(q["width"].get<double>() > 0) ||
      !std::isfinite(q["width"].get<double>())) {
    fail("--query: query '{}' needs \"width\": a positive number", escaped(out.name));
  }
  out.width = q["width"].get<double>();
  return out;
}

}  // namespace

std::vector<server::smooth_query> read_smooth_queries(const std::string& path, uint32_t p) {
  const std::vector<unsigned char> bytes = read_file(path, "--query", uint64_t{1} << 24);
  const nlohmann::json doc = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (doc.is_discarded()) fail("--query: {} is not JSON", escaped(path));
  if (!doc.is_array() || doc.empty()) fail("--query: {} must hold a non-empty JSON array of queries", escaped(path));
  std::vector<server::smooth_query> out;
  for (std::size_t i = 0; i < doc.size(); ++i) out.push_back(parse_query(doc[i], p, i));
  return out;
}

void print_smooth_answers(const server::aggregator& agg, const std::string& state,
                          const std::vector<server::smooth_query>& queries, double confidence, bool json) {
  const wire::params& p = agg.parameters();
  const auto dim = static_cast<uint32_t>(p.get(wire::field::vector_dim));
  const auto t = static_cast<uint32_t>(p.get(wire::field::degree));
  const std::vector<server::estimate> features = agg.estimate_all(confidence);
  if (features.size() != p.get(wire::field::domain)) fail("internal: {} gave no feature estimates", state);
  std::vector<server::smooth_answer> answers;
  for (const server::smooth_query& q : queries) {
    const std::vector<double> c =
        server::chebyshev_coefficients(dim, t, [&](const double* x) { return server::evaluate(q, x); });
    answers.push_back(server::answer_smooth_query(c, features, confidence));
  }
  if (json) {
    nlohmann::ordered_json out = {{"mechanism", "smooth-queries"},
                                  {"dim", dim},
                                  {"degree", t},
                                  {"reports", agg.reports()},
                                  {"confidence", confidence}};
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < queries.size(); ++i) {
      list.push_back({{"name", queries[i].name},
                      {"kind", kind_name(queries[i].kind)},
                      {"value", answers[i].value},
                      {"variance", answers[i].variance},
                      {"ci_low", answers[i].ci_low},
                      {"ci_high", answers[i].ci_high}});
    }
    out["answers"] = std::move(list);
    fmt::print("{}\n", out.dump(2));
    return;
  }
  fmt::print("state: {}\n", state);
  print_state_summary(stdout, agg, "");
  table rows{{"query", "kind", "answer", "sd", fmt::format("{:g}% interval", 100 * confidence)},
             {false, false, true, true, true},
             {}};
  for (std::size_t i = 0; i < queries.size(); ++i) {
    rows.rows.push_back({escaped(queries[i].name), kind_name(queries[i].kind), fmt::format("{:.6g}", answers[i].value),
                         fmt::format("{:.3g}", std::sqrt(answers[i].variance)),
                         fmt::format("[{:.6g}, {:.6g}]", answers[i].ci_low, answers[i].ci_high)});
  }
  print_text(stdout, rows);
}

}  // namespace ldp::tools

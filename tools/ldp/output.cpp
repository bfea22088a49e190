#include "output.h"

#include <algorithm>

#include <fmt/format.h>

namespace ldp::tools {

std::string format_bytes(uint64_t n) {
  static const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1000 && u < 5) {
    v /= 1000;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", n) : fmt::format("{:.{}f} {}", v, v < 10 ? 2 : v < 100 ? 1 : 0, units[u]);
}

std::string format_count(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format_rate(double per_second, const char* unit) {
  if (per_second >= 1e6) return fmt::format("{:.2f} M {}/s", per_second / 1e6, unit);
  if (per_second >= 1e3) return fmt::format("{:.1f} k {}/s", per_second / 1e3, unit);
  return fmt::format("{:.0f} {}/s", per_second, unit);
}

std::string format_seconds(double s) {
  return s >= 1 ? fmt::format("{:.2f} s", s) : fmt::format("{:.0f} ms", s * 1000);
}

void print_text(std::FILE* out, const table& t, const std::string& indent) {
  std::vector<std::size_t> width(t.header.size());
  for (std::size_t c = 0; c < t.header.size(); ++c) width[c] = t.header[c].size();
  for (const auto& row : t.rows) {
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string text = indent;
    for (std::size_t c = 0; c < cells.size() && c < width.size(); ++c) {
      const bool right = c < t.numeric.size() && t.numeric[c];
      const std::string pad(width[c] - cells[c].size(), ' ');
      text += (c == 0 ? "" : "  ") + (right ? pad + cells[c] : cells[c] + (c + 1 < cells.size() ? pad : ""));
    }
    fmt::print(out, "{}\n", text);
  };
  line(t.header);
  std::vector<std::string> rule;
  for (std::size_t w : width) rule.emplace_back(w, '-');
  line(rule);
  for (const auto& row : t.rows) line(row);
}

void print_csv(std::FILE* out, const table& t) {
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      std::string cell = cells[c];
      if (cell.find_first_of(",\"\n") != std::string::npos) {
        std::string quoted = "\"";
        for (char ch : cell) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        cell = quoted + "\"";
      }
      text += (c == 0 ? "" : ",") + cell;
    }
    fmt::print(out, "{}\n", text);
  };
  line(t.header);
  for (const auto& row : t.rows) line(row);
}

table rejection_table(const uint64_t* counts, int size) {
  table t{{"reason", "reports"}, {false, true}, {}};
  for (int s = 1; s < size; ++s) {
    if (counts[s] == 0) continue;
    t.rows.push_back({status_name(static_cast<status>(s)), format_count(counts[s])});
  }
  return t;
}

}  // namespace ldp::tools

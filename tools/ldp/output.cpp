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

namespace {

// The length of the UTF-8 sequence at text[i] (2 to 4 bytes, no overlong forms, no surrogates, at
// most U+10FFFF), 1 for printable ASCII, 0 for anything to escape.
std::size_t printable_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b = byte(i);
  if (b < 0x80) return b >= 0x20 && b != 0x7f ? 1 : 0;
  const std::size_t n = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 0;
  if (n == 0 || b > 0xf4 || i + n > text.size()) return 0;
  uint32_t cp = b & (0x7f >> n);
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3f);
  }
  static const uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < smallest[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp <= 0x9f) return 0;
  return n;
}

}  // namespace

std::string escaped(std::string_view text, std::size_t max_bytes) {
  const std::size_t end = std::min(text.size(), max_bytes);
  std::string out;
  for (std::size_t i = 0; i < end;) {
    const std::size_t n = printable_length(text, i);
    if (n == 0) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  if (end < text.size()) out += "...";
  return out;
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

table rejection_table(const server::rejection_counts& counts) {
  table t{{"reason", "reports"}, {false, true}, {}};
  for (std::size_t s = 1; s < counts.size(); ++s) {
    if (counts[s] == 0) continue;
    t.rows.push_back({status_name(static_cast<status>(s)), format_count(counts[s])});
  }
  return t;
}

std::string damaged_text(uint64_t chunks) {
  if (chunks == 0) return "";
  return fmt::format(", {} damaged chunk{} (records unknown)", format_count(chunks), chunks == 1 ? "" : "s");
}

}  // namespace ldp::tools

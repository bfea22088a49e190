#include "text_input.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <unordered_map>

#include "csv.h"
#include "errors.h"
#include "files.h"
#include "output.h"

namespace ldp::tools {
namespace {

// The files a text spec reads (docs/cli.md "Data"): the path itself, or a directory's regular
// files without an extension (fortunes keeps its index files *.dat and links *.u8 next to the
// texts), sorted by name so the item order does not depend on the file system.
std::vector<std::string> text_files(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return {path};
  std::vector<std::string> files;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.find('.') == std::string::npos && it->is_regular_file(ec)) files.push_back(it->path().string());
  }
  if (ec) fail("text directory {}: {}", path, ec.message());
  if (files.empty()) fail("text directory {} has no regular file without an extension", path);
  std::sort(files.begin(), files.end());
  return files;
}

// ASCII only, whatever the locale (docs/cli.md "Data").
bool word_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '\'';
}

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

text_spec parse_text_spec(const std::string& spec) {
  static constexpr std::string_view words = ":words";
  text_spec s;
  s.words = spec.size() >= words.size() && spec.compare(spec.size() - words.size(), words.size(), words) == 0;
  s.path = s.words ? spec.substr(0, spec.size() - words.size()) : spec;
  if (s.path.empty()) fail("--data text: needs a file or directory (text:<path>[:words])");
  return s;
}

void for_each_text_line(const std::string& path, const char* what,
                        const std::function<void(std::string_view text, uint64_t number)>& line) {
  csv_limits limits;
  limits.what = what;
  line_reader in(path, limits);
  const char *begin = nullptr, *end = nullptr;
  for (uint64_t number = 1; in.next(&begin, &end, number); ++number) {
    if (end != begin && end[-1] == '\r') --end;
    if (end != begin) line(std::string_view(begin, static_cast<std::size_t>(end - begin)), number);
  }
}

text_items read_text_items(const text_spec& spec, std::size_t max_item_bytes) {
  text_items out;
  for (const std::string& file : text_files(spec.path)) {
    for_each_text_line(file, "text file", [&](std::string_view text, uint64_t number) {
      if (!spec.words) {
        if (text.find('\0') != std::string_view::npos) fail("text file {} line {}: holds a zero byte", file, number);
        if (text.size() > max_item_bytes) {
          fail("text file {} line {}: {} bytes, longer than the {} of a string item", file, number, text.size(),
               max_item_bytes);
        }
        out.items.emplace_back(text);
        return;
      }
      for (std::size_t i = 0; i < text.size();) {
        if (!word_byte(text[i])) {
          ++i;
          continue;
        }
        std::size_t j = i;
        while (j < text.size() && word_byte(text[j])) ++j;
        if (j - i > max_item_bytes) {
          ++out.skipped_long_words;
        } else {
          std::string word(text.substr(i, j - i));
          for (char& c : word) c = ascii_lower(c);
          out.items.push_back(std::move(word));
        }
        i = j;
      }
    });
  }
  return out;
}

bool ranks_before(const string_count& a, const string_count& b) {
  return a.count > b.count || (a.count == b.count && a.item < b.item);
}

std::vector<string_count> count_strings(const std::vector<std::string>& items) {
  std::unordered_map<std::string, uint64_t> counts;
  for (const std::string& item : items) ++counts[item];
  std::vector<string_count> out;
  out.reserve(counts.size());
  for (auto& [item, count] : counts) out.push_back({item, count});
  std::sort(out.begin(), out.end(), ranks_before);
  return out;
}

std::string string_truth_csv(const std::vector<string_count>& counts) {
  std::string out = "item,count\n";
  for (const string_count& c : counts) {
    out += '"';
    for (char ch : c.item) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    out += fmt::format("\",{}\n", c.count);
  }
  return out;
}

void write_string_truth(const std::string& path, const std::vector<string_count>& counts) {
  atomic_output out(path, "truth file");
  out.write(string_truth_csv(counts));
  out.commit();
}

std::vector<string_count> read_string_truth(const std::string& path) {
  std::vector<string_count> out;
  std::unordered_map<std::string, uint64_t> first_line;
  bool header = false;
  for_each_text_line(path, "truth file", [&](std::string_view text, uint64_t number) {
    if (!header) {
      if (text != "item,count") fail("truth file {} line {}: the header must be item,count", path, number);
      header = true;
      return;
    }
    string_count c;
    std::size_t comma = 0;
    if (text.front() == '"') {
      std::size_t i = 1;
      for (;; ++i) {
        if (i >= text.size()) fail("truth file {} line {}: the quoted item does not end", path, number);
        if (text[i] != '"') {
          c.item += text[i];
        } else if (i + 1 < text.size() && text[i + 1] == '"') {
          c.item += '"';
          ++i;
        } else {
          break;
        }
      }
      comma = i + 1;
      if (comma >= text.size() || text[comma] != ',') {
        fail("truth file {} line {}: needs a comma after the quoted item", path, number);
      }
    } else {
      comma = text.rfind(',');
      if (comma == std::string_view::npos) fail("truth file {} line {}: needs item,count", path, number);
      c.item = text.substr(0, comma);
      if (c.item.find('"') != std::string::npos) {
        fail("truth file {} line {}: an item holding '\"' must be quoted", path, number);
      }
    }
    const std::string_view count = text.substr(comma + 1);
    const std::from_chars_result r = std::from_chars(count.data(), count.data() + count.size(), c.count);
    if (count.empty() || r.ec != std::errc() || r.ptr != count.data() + count.size()) {
      fail("truth file {} line {}: '{}' is not a count (a non-negative integer)", path, number, escaped(count, 40));
    }
    if (c.item.empty()) fail("truth file {} line {}: the item is empty", path, number);
    if (c.item.find('\0') != std::string::npos) fail("truth file {} line {}: the item holds a zero byte", path, number);
    const auto [at, fresh] = first_line.emplace(c.item, number);
    if (!fresh) fail("truth file {} line {}: the item appears twice (first on line {})", path, number, at->second);
    out.push_back(std::move(c));
  });
  if (!header) fail("truth file {} is empty: needs the header item,count", path);
  return out;
}

}  // namespace ldp::tools

#include "candidates.h"

#include <charconv>
#include <unordered_map>

#include "errors.h"
#include "output.h"
#include "text_input.h"

namespace ldp::tools {

std::vector<uint32_t> read_item_candidates(const std::string& path, uint32_t d) {
  std::vector<uint32_t> items;
  std::unordered_map<uint32_t, uint64_t> first_line;
  for_each_text_line(path, "candidate file", [&](std::string_view text, uint64_t number) {
    const std::size_t b = text.find_first_not_of(" \t");
    if (b == std::string_view::npos) return;  // a blank line
    text = text.substr(b, text.find_last_not_of(" \t") + 1 - b);
    uint64_t item = 0;
    const std::from_chars_result r = std::from_chars(text.data(), text.data() + text.size(), item);
    const bool integer =
        r.ptr == text.data() + text.size() && (r.ec == std::errc() || r.ec == std::errc::result_out_of_range);
    if (!integer) {
      fail("candidate file {} line {}: '{}' is not an item number (a non-negative integer)", path, number,
           escaped(text, 40));
    }
    if (r.ec != std::errc() || item >= d) {
      fail("candidate file {} line {}: item {} is not in the state's domain [0, {})", path, number, escaped(text, 40),
           d);
    }
    const auto [at, fresh] = first_line.emplace(static_cast<uint32_t>(item), number);
    if (!fresh)
      fail("candidate file {} line {}: item {} appears twice (first on line {})", path, number, item, at->second);
    items.push_back(static_cast<uint32_t>(item));
  });
  if (items.empty()) fail("candidate file {} holds no candidates", path);
  return items;
}

}  // namespace ldp::tools

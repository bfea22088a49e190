// Strings from text files (docs/cli.md "Data", text:): the items of the string-discovery
// mechanisms, read as one item per line or as the word tokens of a text, their exact counts, and
// the truth file of strings (docs/cli.md "Truth files") that estimate --truth compares a discovery
// with.
#ifndef LDP_TOOLS_TEXT_INPUT_H
#define LDP_TOOLS_TEXT_INPUT_H

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ldp::tools {

// `text:<path>` (lines) or `text:<path>:words`; <path> is a file or a directory.
struct text_spec {
  std::string path;
  bool words = false;
};

// Parses what follows "text:". Throws cli_error for an empty path.
text_spec parse_text_spec(const std::string& spec);

// Calls line(text, number) for every non-empty line of the file: its bytes without the "\n" or
// "\r\n" that ends it; number is 1-based. A line longer than 64 MiB is an error naming the file
// and line (as for CSV files). `what` names the file in errors ("text file", "candidate file").
void for_each_text_line(const std::string& path, const char* what,
                        const std::function<void(std::string_view text, uint64_t number)>& line);

struct text_items {
  std::vector<std::string> items;   // in file order (the files of a directory sorted by name)
  uint64_t skipped_long_words = 0;  // word tokens longer than the maximum (words only)
};

// The items of `spec`: its lines, or its word tokens (maximal runs of ASCII letters, digits and
// the apostrophe, lowercased; every other byte separates). A directory stands for its regular
// files whose names have no '.', sorted by name. A line holding a zero byte or longer than
// max_item_bytes is an error naming file and line; a word longer than max_item_bytes is skipped
// and counted, since real text has a few (fortunes: 27 of 437,011, run-together sentences and a
// protein name).
text_items read_text_items(const text_spec& spec, std::size_t max_item_bytes);

struct string_count {
  std::string item;
  uint64_t count = 0;
};

// Whether a comes first in the ranking of true counts: count descending, then bytes ascending.
bool ranks_before(const string_count& a, const string_count& b);

// The distinct items with their exact counts, ranked by ranks_before.
std::vector<string_count> count_strings(const std::vector<std::string>& items);

// The truth file of strings: "item,count" then one line per string, the item in double quotes
// with a quote doubled, so any bytes but zero and "\n" round-trip.
std::string string_truth_csv(const std::vector<string_count>& counts);
void write_string_truth(const std::string& path, const std::vector<string_count>& counts);
// Reads it back in file order; an item may also be unquoted when it holds no '"' (split at the
// last comma). Throws cli_error naming file and line for a missing header, a bad line, an empty
// item, a zero byte, a count that is not a non-negative integer, or an item that appears twice.
std::vector<string_count> read_string_truth(const std::string& path);

}  // namespace ldp::tools

#endif

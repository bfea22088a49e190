// The candidate list of `ldp estimate STATE --candidates FILE` (docs/cli.md "estimate"): one
// candidate per line, read with the text input's line reading (text_input.h), so a list of item
// numbers and a list of strings are the same kind of file.
#ifndef LDP_TOOLS_CANDIDATES_H
#define LDP_TOOLS_CANDIDATES_H

#include <cstdint>
#include <string>
#include <vector>

namespace ldp::tools {

// The item numbers of the file in file order: one decimal integer per line (blanks around it
// allowed, blank lines skipped). Throws cli_error naming the file and line for a line that is not
// an integer, an item >= d or one that appears twice, and for a file without candidates.
std::vector<uint32_t> read_item_candidates(const std::string& path, uint32_t d);

}  // namespace ldp::tools

#endif

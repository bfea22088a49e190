// The exact non-private answer of a simulation (docs/cli.md "Truth files"): CSV with a header,
// "item,count" (frequency oracles: every item of the domain, zeros included) or
// "coordinate,mean" (numeric mechanisms). simulate and demo write it; estimate --truth reads it.
#ifndef LDP_TOOLS_TRUTH_H
#define LDP_TOOLS_TRUTH_H

#include <cstdint>
#include <string>
#include <vector>

namespace ldp::tools {

struct truth_table {
  bool means = false;          // coordinate,mean rather than item,count
  std::vector<double> values;  // indexed by item or coordinate
};

// The CSV text of a truth table (counts printed as integers, means with 17 significant digits).
std::string truth_csv(const truth_table& t);
void write_truth(const std::string& path, const truth_table& t);
// Reads a truth file; items or coordinates must be distinct integers in [0, size) (size = the
// state's domain or dimension); missing ones are 0. Throws cli_error naming file and line.
truth_table read_truth(const std::string& path, std::size_t size);

}  // namespace ldp::tools

#endif

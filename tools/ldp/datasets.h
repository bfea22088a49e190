// What the simulated devices hold (docs/cli.md "Data"), from a --data SPEC:
//   zipf:<s>      item v in [0, d) held by a share proportional to (v + 1)^-s of the devices
//   uniform       every item held by the same share (within one device)
//   builtin       a skewed "emoji popularity" table: item ranked r has weight (r + 2.7)^-1.1
//                 (Zipf-Mandelbrot, the shape of published emoji and word frequencies), and rank r
//                 is item (r * a + 7) mod d, a the first integer >= 0.618 d coprime with d, so the
//                 popular items are spread over the domain
//   csv:<path>[:<column>]   one device per data row; the column is a header name or a 1-based
//                 number (default the first); items must be integers in [0, d)
// The synthetic sets are exact allocations, not samples: shares are rounded to whole devices by
// largest remainder (ties to the lower item) and devices hold items in increasing order, so the
// data, and with it the truth file, are a deterministic function of SPEC, d and N on every host
// (weights use the wire module's deterministic exp/log).
#ifndef LDP_TOOLS_DATASETS_H
#define LDP_TOOLS_DATASETS_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mechanism_options.h"

namespace ldp::tools {

struct data_shape {
  input_kind input = input_kind::item;
  uint32_t domain = 0;  // items: d
};

class dataset {
 public:
  virtual ~dataset() = default;
  uint64_t devices() const { return devices_; }
  // The item device i holds (input_kind::item), i < devices().
  virtual uint32_t item(uint64_t device) const = 0;

 protected:
  explicit dataset(uint64_t devices) : devices_(devices) {}

 private:
  uint64_t devices_;
};

// `devices` is N (0: the CSV's row count; required otherwise). Throws cli_error naming the problem
// (unknown SPEC, unreadable CSV and its line, an item outside [0, d), too few rows).
std::unique_ptr<dataset> make_dataset(const std::string& spec, const data_shape& shape, uint64_t devices);

// The exact non-private answer: counts[v] of every item.
std::vector<uint64_t> item_counts(const dataset& data, uint32_t domain);

}  // namespace ldp::tools

#endif

// Reading a NumPy .npy array as --data (docs/cli.md "Data"): format versions 1.0, 2.0 and 3.0,
// little- or big-endian float32/64, int8/16/32/64 and uint8/16/32/64, C or Fortran order, 1-D (one
// number per device) or 2-D (a row per device). The header is parsed strictly and bounded
// (docs/security_model.md "Memory contract"): a header longer than 64 KiB, a shape whose data is not
// exactly the rest of the file (a truncated file, a header that lies), or any other dtype, key or
// syntax is refused before the data are read, so memory never exceeds what the file size justifies.
#ifndef LDP_TOOLS_NPY_H
#define LDP_TOOLS_NPY_H

#include <cstdint>
#include <string>
#include <vector>

namespace ldp::tools {

// The rows of a .npy file of `width` numbers per row (a 1-D array is one number per row).
struct npy_rows {
  uint64_t rows = 0;           // the file's rows
  std::vector<double> values;  // its first min(rows, max_rows) rows, row after row
};

// Reads the file: every number must be finite; only the first `max_rows` rows (0: all) are kept.
// Throws cli_error for a bad header, a shape that is not rows of `width` numbers, no rows, a file
// that ends early, or a number that is not finite (naming its row and column).
npy_rows read_npy(const std::string& path, uint32_t width, uint64_t max_rows);

}  // namespace ldp::tools

#endif

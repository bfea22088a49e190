// What the simulated devices hold (docs/cli.md "Data"), from a --data SPEC.
//
// Frequency oracles (items in [0, d)):
//   zipf:<s>  item v held by a share proportional to (v + 1)^-s of the devices
//   uniform   every item held by the same share (within one device)
//   builtin   a skewed "emoji popularity" table: the item of rank r has weight (r + 2.7)^-1.1
//             (Zipf-Mandelbrot, the shape of published emoji and word frequencies), and rank r is
//             item (r * a + 7) mod d, a the first integer >= 0.618 d coprime with d, so the popular
//             items are spread over the domain
// Shares are rounded to whole devices by largest remainder (ties to the lower item), and devices
// hold items in increasing order: exact allocations, not samples.
//
// Numeric mechanisms (reals; u_i = (i + 1/2) / N for device i, and for vectors u_ij a uniform in
// [0, 1) from SipHash-2-4 of (i, j) under the fixed key "ldp-tool-data-v1"):
//   uniform   scalar: lo + (hi - lo) u_i; laplace-vector: lo + (hi - lo) u_ij per coordinate;
//             vector-mean: (2 u_ij - 1) R / sqrt(d) per coordinate (inside the ball)
//   builtin   skewed: scalar lo + (hi - lo) K(u_i) with K the Kumaraswamy(2, 5) quantile
//             (1 - (1 - u)^(1/5))^(1/2), mean 0.3694 of the range, like session lengths;
//             laplace-vector K(u_ij) per coordinate; vector-mean 0.6 R m + 0.4 (2 u_ij - 1) R /
//             sqrt(d), m the unit vector proportional to 0.7^j (a few large coordinates)
// kent (T observations per user, i.i.d. from one distribution as C.1 assumes):
//   uniform   lo + (hi - lo) u_ij for observation j
//   builtin   lo + (hi - lo) K(u_ij): skewed, mean lo + 0.3694 (hi - lo)
//   (kent --dim d asks for T d reals, observation after observation; M3 scales lo, hi by 1/sqrt(d))
// sparse-projection (d reals, s non-zero; u_ik as above, k = 0 places them, k >= 1 sizes them):
//   uniform   s consecutive coordinates (mod d) from floor(d u_i0), values (2 u_ik - 1) L / sqrt(s)
//   builtin   the same from floor(d K(u_i0)) (low coordinates popular), values (1 + u_ik) L / (2 sqrt(s))
// winsorized-mean (m samples of d reals; sample k of coordinate j uses u_i(d + k d + j)):
//   uniform   lo + (hi - lo) u, i.i.d. over the range
//   builtin   the user's center c_j = lo + (hi - lo) K(u_ij) plus (hi - lo)(2u - 1) / 10, clamped
// CSV (any mechanism): csv:<path>[:<column>], one device per data row; the column is a header name
// or a 1-based number (default the first); vectors take d consecutive columns from it; items must
// be integers in [0, d); kent takes T consecutive columns, winsorized-mean m d (sample after sample).
//
// Arrays (the Python package, issue 13): the caller's items or reals, one device per row as a CSV's,
// read in place.
//
// Everything is a deterministic function of SPEC, the parameters and N on every host (the weights
// and quantiles use the wire module's deterministic exp/log), independent of --seed.
#ifndef LDP_TOOLS_DATASETS_H
#define LDP_TOOLS_DATASETS_H

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ldp/base/span.h"
#include "mechanism_options.h"

namespace ldp::tools {

struct data_shape {
  input_kind input = input_kind::item;
  uint32_t domain = 0;    // items: d
  uint32_t dim = 1;       // reals per device (vectors: d; kent: T)
  double lo = 0, hi = 0;  // the value range (scalar, laplace-vector)
  double radius = 0;      // vector-mean, sparse-projection: the L2 ball (else 0)
  uint32_t sparsity = 0;  // sparse-projection: s
  uint32_t samples = 1;   // winsorized-mean: m samples of dim reals each
};

// The shape the block's devices expect (ranges in real units).
data_shape shape_of(const parameter_block& block);

class dataset {
 public:
  virtual ~dataset() = default;
  uint64_t devices() const { return devices_; }
  uint32_t width() const { return width_; }  // reals per device (1 for items)
  // Device i's item (input_kind::item) or its shape.dim reals (the others), i < devices().
  virtual uint32_t item(uint64_t device) const;
  virtual void values(uint64_t device, span<double> out) const;
  // Device i's string (input_kind::string, string_sim.h), i < devices().
  virtual std::string_view text(uint64_t device) const;

 protected:
  dataset(uint64_t devices, uint32_t width) : devices_(devices), width_(width) {}

 private:
  uint64_t devices_;
  uint32_t width_;
};

// `devices` is N (0: the CSV's or .npy's row count; required otherwise). Throws cli_error naming the
// problem (unknown SPEC, unreadable CSV and its line, a bad .npy, an item outside [0, d), too few rows).
std::unique_ptr<dataset> make_dataset(const std::string& spec, const data_shape& shape, uint64_t devices);

// The file a csv: or npy: SPEC reads ("" for the synthetic data): an input of docs/cli.md "Files".
std::string data_file(const std::string& spec);

// Reals per device for the shape: 1 for items, dim * samples otherwise (a CSV row's width).
uint32_t width_of(const data_shape& shape);

// Data the caller holds, read in place (it must outlive the dataset): device i's item items[i], or
// its width_of(shape) reals values[i * width, (i + 1) * width). Throws cli_error for no devices, an
// item outside [0, d), or values that are not whole rows.
std::unique_ptr<dataset> item_array(span<const int64_t> items, uint32_t domain);
std::unique_ptr<dataset> value_array(span<const double> values, const data_shape& shape);

// The devices `ids` of `data` (which must outlive the view), in that order.
std::unique_ptr<dataset> subset(const dataset& data, std::vector<uint64_t> ids);

// The exact non-private answer of an item dataset: counts[v] of every item.
std::vector<uint64_t> item_counts(const dataset& data, uint32_t domain);

}  // namespace ldp::tools

#endif

// Private pieces shared by the aggregators (not part of the public API): the family registry, the
// A.0 template estimator, the normal quantile of a confidence level, an in-place FWHT on exact
// integer counts, little-endian I/O for the state body, and one factory per oracle.
#ifndef LDP_SERVER_SRC_DETAIL_H
#define LDP_SERVER_SRC_DETAIL_H

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/kernels/kernel_table.h"
#include "ldp/server/frequency.h"
#include "ldp/wire/params.h"

namespace ldp::server::detail {

// Accepted reports per aggregator are capped at 2^62 (never reached in practice). Every count is
// bounded by the number of reports, so with this cap all sums, signed sketch cells and FWHT stages
// stay exact in int64, and merging two states can be checked for overflow up front.
inline constexpr uint64_t max_reports = uint64_t{1} << 62;

// ---- Families (aggregator.cpp dispatches create and deserialize on them) ----------------------
// A family serves some mechanisms. make() checks what validate() cannot and allocates (it may
// throw: the caller catches). body_size() is the exact length of the family's saved counts for n
// reports (false when it does not fit in 64 bits), computed from the block alone so that a saved
// state is length-checked before its block sizes any allocation.
using make_function = status (*)(const wire::params& p, std::unique_ptr<aggregator>* out);
struct family {
  make_function make;
  bool (*body_size)(const wire::params& p, uint64_t n, uint64_t* bytes);
};

// The family serving m (from the mechanism table's family, wire/mechanism_table.h), or null.
[[nodiscard]] const family* family_of(wire::mechanism m) noexcept;

// Whether the family serving m is the one `make` creates: each aggregator's handles().
[[nodiscard]] bool served_by(wire::mechanism m, make_function make) noexcept;

// frequency_aggregator.cpp
[[nodiscard]] status make_frequency_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out);
[[nodiscard]] bool frequency_body_size(const wire::params& p, uint64_t n, uint64_t* bytes);
// vector_mean.cpp
[[nodiscard]] status make_vector_mean_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out);
[[nodiscard]] bool vector_mean_body_size(const wire::params& p, uint64_t n, uint64_t* bytes);
// sparse_projection.cpp
[[nodiscard]] status make_sparse_projection_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out);
[[nodiscard]] bool sparse_projection_body_size(const wire::params& p, uint64_t n, uint64_t* bytes);
// winsorized.cpp
[[nodiscard]] status make_winsorized_bins_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out);
[[nodiscard]] bool winsorized_bins_body_size(const wire::params& p, uint64_t n, uint64_t* bytes);
[[nodiscard]] status make_winsorized_sums_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out);
[[nodiscard]] bool winsorized_sums_body_size(const wire::params& p, uint64_t n, uint64_t* bytes);

// mean_aggregator.cpp
[[nodiscard]] status make_mean_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out);
[[nodiscard]] bool mean_body_size(const wire::params& p, uint64_t n, uint64_t* bytes);

// ---- Estimation (estimation.cpp) -----------------------------------------------------------

// An implemented probability T / 2^w from the block (MECHANISMS.md D.1: p-hat, q-hat).
[[nodiscard]] double threshold_probability(const wire::params& p, wire::field f) noexcept;

// z with P(|Z| <= z) = confidence for a standard normal Z: erfc(z / sqrt 2) = 1 - confidence,
// solved by bisection. 0 for confidence 0, +inf for 1, NaN outside [0, 1].
[[nodiscard]] double confidence_z(double confidence) noexcept;

// A plug-in count clipped to [0, n] (A.0).
[[nodiscard]] double clip_count(double c, double n) noexcept;

// The A.0 template for a "pure" oracle: a report supports the true value with probability p and
// any other value with probability q (implemented values).
struct support_model {
  double p = 0;
  double q = 0;

  // True when p == q, where no estimator exists (epsilon_impl = 0).
  [[nodiscard]] bool degenerate() const noexcept { return !(p - q != 0); }
  // (C_v - n q) / (p - q).
  [[nodiscard]] double count(double support, double n) const noexcept { return (support - n * q) / (p - q); }
  // n q (1 - q) / (p - q)^2 + c_v (1 - p - q) / (p - q), with c_v = the estimate clipped to [0, n].
  [[nodiscard]] double variance(double estimate, double n) const noexcept {
    return n * leading() + clip_count(estimate, n) * (1 - p - q) / (p - q);
  }
  // The coefficient of n in the variance: q (1 - q) / (p - q)^2.
  [[nodiscard]] double leading() const noexcept { return q * (1 - q) / ((p - q) * (p - q)); }
};

// The implemented support model of a pure oracle block (MECHANISMS.md A.1-A.5): GRR p-hat = T/2^w,
// q-hat = (1 - p-hat)/(d - 1); SUE/OUE T_keep/2^w, T_other/2^w; BLH/OLH p-hat, q* = 1/g; HR
// p-hat, 1/2. Other mechanisms give p = q = 0 (degenerate).
[[nodiscard]] support_model pure_model(const wire::params& p) noexcept;

// The CMS/HCMS scale c = 1/(1 - 2 q-hat) with q-hat = T_other/2^w (A.6); inf when q-hat = 1/2.
[[nodiscard]] double sketch_scale(const wire::params& p) noexcept;

// The grid step gamma = 2^-f of a block with frac_bits f: real units per grid unit.
inline double grid_step(const wire::params& p) noexcept {
  return std::ldexp(1.0, -static_cast<int>(p.get(wire::field::frac_bits)));
}

// The estimate of a coordinate no report speaks to: value and interval NaN, variance +inf.
inline estimate empty_estimate(uint32_t item) noexcept {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return estimate{item, nan, std::numeric_limits<double>::infinity(), nan, nan};
}

// An estimate with its interval count +- z sqrt(variance).
[[nodiscard]] estimate make_estimate(uint32_t item, double count, double variance, double z) noexcept;

// The A.0 estimates of `items` from their support counts C_v = support[v] (GRR, SUE, OUE).
[[nodiscard]] std::vector<estimate> template_estimates(const support_model& model,
                                                       const std::vector<uint64_t>& support,
                                                       span<const uint32_t> items, uint64_t n,
                                                       double z);

// In-place fast Walsh-Hadamard transform in Sylvester (natural) order: x <- H x with
// H[r, y] = (-1)^popcount(r & y), over any exact integer type with + and - (int64_t, or the 128-bit
// sums of vector-laplace). n must be a power of two. Exact as long as every partial sum fits (for
// int64, |x| summed over all entries below 2^63, which max_reports guarantees here).
template <class Int>
void fwht(Int* x, std::size_t n) noexcept {
  for (std::size_t h = 1; h < n; h <<= 1) {
    for (std::size_t i = 0; i < n; i += 2 * h) {
      for (std::size_t j = i; j < i + h; ++j) {
        const Int a = x[j], b = x[j + h];
        x[j] = a + b;
        x[j + h] = a - b;
      }
    }
  }
}
inline void fwht(span<int64_t> x) noexcept { fwht(x.data(), x.size()); }

// ---- Kernels (estimation.cpp) ---------------------------------------------------------------

// The kernel table for this CPU, kernels::select(platform::detect_cpu()), chosen on first use.
[[nodiscard]] const kernels::table& kernel_table() noexcept;

// Whether an FWHT of `size` (a power of two) entries whose absolute values sum to at most `bound`
// is exact in the table's int32 fwht_i32 (arithmetic mod 2^32): every stage's entries are bounded
// by that sum, so bound < 2^31 suffices; the kernel takes up to 2^30 entries.
[[nodiscard]] bool fwht_fits_i32(std::size_t size, uint64_t bound) noexcept;

// kernel_table().fwht_i32 on x (size a power of two, at most 2^30).
void fwht_i32(span<int32_t> x) noexcept;

// ---- State body I/O (little-endian, frequency_aggregator.cpp documents the layout) ----------

void put_u16(std::vector<unsigned char>& out, uint16_t v);
void put_u32(std::vector<unsigned char>& out, uint32_t v);
void put_u64(std::vector<unsigned char>& out, uint64_t v);
void put_u64s(std::vector<unsigned char>& out, const std::vector<uint64_t>& values);

// A bounds-checked cursor: a read past the end clears `ok` and returns 0 (or an empty span).
struct body_reader {
  span<const unsigned char> rest;
  bool ok = true;

  explicit body_reader(span<const unsigned char> bytes) noexcept : rest(bytes) {}
  span<const unsigned char> bytes(std::size_t n) noexcept;
  uint64_t u16() noexcept;
  uint64_t u32() noexcept;
  uint64_t u64() noexcept;
};

// Reads exactly values.size() u64 from `bytes` (wrong_length otherwise).
[[nodiscard]] status read_u64s(span<const unsigned char> bytes, std::vector<uint64_t>& values) noexcept;

// Cells of a count array as a size_t, or false when that many u64 do not fit in memory on this
// target (a 32-bit size_t, say).
[[nodiscard]] bool cell_count(uint64_t cells, std::size_t* out) noexcept;

// ---- Column popcount queue (popcount_queue.cpp) -------------------------------------------

// Bit-vector reports (wire bits(nbits)) waiting for the kernel table's column popcount
// (PERFORMANCE.md 7). One kernel call also passes over all nbits counters, so reports are queued
// and counted a block at a time: at most 256 reports and `budget` bytes, at least one report.
// Unary reports use one queue; CMS one per sketch row.
class popcount_queue {
 public:
  popcount_queue(std::size_t nbits, std::size_t budget);

  std::size_t stride() const noexcept { return stride_; }
  bool empty() const noexcept { return queued_ == 0; }
  // Queues one report (stride() bytes), counting the block into counts[0 .. nbits) when full.
  void push(const unsigned char* bits, uint64_t* counts) noexcept;
  // Counts the queued reports into counts and empties the queue.
  void flush(uint64_t* counts) noexcept;
  // Counts the queued reports into counts and keeps them queued (for const readers, on a copy).
  void add_queued(uint64_t* counts) const noexcept;

 private:
  std::size_t nbits_;
  std::size_t stride_;    // bytes per report, ceil(nbits / 8)
  std::size_t capacity_;  // reports per block
  std::vector<unsigned char> block_;
  std::size_t queued_ = 0;
};

// ---- Histogram state (GRR over d values, HR over K values) ---------------------------------

// Counts h[y] of the report's index; the histogram sums to n. Subclasses estimate from it.
class histogram_aggregator : public frequency_aggregator {
 protected:
  histogram_aggregator(const wire::params& p, std::size_t cells, support_model model)
      : frequency_aggregator(p), model_(model), hist_(cells) {}

  status ingest(const wire::report& r) noexcept final;
  void merge_counts(const aggregator& other) final;
  void write_body(std::vector<unsigned char>& out) const final;
  status read_body(span<const unsigned char> body) final;

  support_model model_;
  std::vector<uint64_t> hist_;
};

// ---- One factory per oracle family --------------------------------------------------------
// Each checks what validate() cannot (a block whose estimator divides by zero is
// invalid_parameters; a state too large for this target is overflow), then allocates (which may
// throw: frequency_aggregator::create catches).

using aggregator_ptr = std::unique_ptr<frequency_aggregator>;

// The factory of an aggregator over `cells` support counts with the implemented pure model (GRR,
// SUE, OUE: d cells; HR: K cells).
template <class Aggregator>
status make_pure_aggregator(const wire::params& p, uint64_t cells, aggregator_ptr* out) {
  const support_model model = pure_model(p);
  if (model.degenerate()) return status::invalid_parameters;
  std::size_t size = 0;
  if (!cell_count(cells, &size)) return status::overflow;
  *out = std::make_unique<Aggregator>(p, size, model);
  return status::ok;
}

[[nodiscard]] status make_grr_aggregator(const wire::params& p, aggregator_ptr* out);       // grr.cpp
[[nodiscard]] status make_unary_aggregator(const wire::params& p, aggregator_ptr* out);     // unary.cpp
[[nodiscard]] status make_local_hash_aggregator(const wire::params& p, aggregator_ptr* out);  // local_hashing.cpp
[[nodiscard]] status make_hr_aggregator(const wire::params& p, aggregator_ptr* out);        // hadamard_response.cpp
[[nodiscard]] status make_sketch_aggregator(const wire::params& p, aggregator_ptr* out);    // sketch.cpp

}  // namespace ldp::server::detail

#endif

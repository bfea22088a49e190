// Shared estimation pieces: MECHANISMS.md A.0 (the variance template, plug-in c_v clipped to
// [0, n]), A.5/A.6 (the FWHT decode of HR and HCMS), the normal-approximation interval, and the
// server's kernel table (chosen once from the CPU's features).
#include <cmath>
#include <limits>

#include "detail.h"
#include "ldp/base/bits.h"
#include "ldp/platform/cpu.h"

namespace ldp::server::detail {

double threshold_probability(const wire::params& p, wire::field f) noexcept {
  const int w = static_cast<int>(p.get(wire::field::threshold_bits));
  return std::ldexp(static_cast<double>(p.get(f)), -w);
}

support_model pure_model(const wire::params& p) noexcept {
  using wire::field;
  using wire::mechanism;
  support_model model;
  model.p = threshold_probability(p, field::threshold_keep);
  switch (p.mech) {
    case mechanism::grr: {
      // (1 - T/2^w)/(d - 1) = (2^w - T)/(2^w (d - 1)), with 2^w - T exact in integers.
      const int w = static_cast<int>(p.get(field::threshold_bits));
      const uint64_t rest = (uint64_t{1} << w) - p.get(field::threshold_keep);
      model.q = std::ldexp(static_cast<double>(rest), -w) / static_cast<double>(p.get(field::domain) - 1);
      break;
    }
    case mechanism::sue:
    case mechanism::oue:
    case mechanism::kent_vote: model.q = threshold_probability(p, field::threshold_other); break;
    case mechanism::blh:
    case mechanism::olh: model.q = 1.0 / static_cast<double>(p.get(field::hash_range)); break;  // q* (A.4)
    case mechanism::hr: model.q = 0.5; break;  // orthogonal rows (A.5)
    case mechanism::none:
    case mechanism::cms:
    case mechanism::hcms:
    case mechanism::laplace:
    case mechanism::laplace_vector:
    case mechanism::duchi:
    case mechanism::vector_duchi:
    case mechanism::vector_laplace:
    case mechanism::sparse_projection:
    case mechanism::kent_refine:
    case mechanism::winsorized_bins:
    case mechanism::winsorized_sums: model = support_model{}; break;
  }
  return model;
}

double sketch_scale(const wire::params& p) noexcept {
  return 1 / (1 - 2 * threshold_probability(p, wire::field::threshold_other));
}

double confidence_z(double confidence) noexcept {
  if (!(confidence >= 0 && confidence <= 1)) return std::numeric_limits<double>::quiet_NaN();
  if (confidence == 0) return 0;
  if (confidence == 1) return std::numeric_limits<double>::infinity();
  // P(|Z| > z) = erfc(z / sqrt 2) decreases from 1 at z = 0 to 0: bisect until the bracket stops
  // shrinking (erfc underflows to 0 near z = 38.5, so [0, 64] brackets every representable tail).
  const double tail = 1 - confidence;
  const double inv_sqrt2 = 0.70710678118654752440;
  double lo = 0, hi = 64;
  for (int i = 0; i < 256; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    if (std::erfc(mid * inv_sqrt2) > tail) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo + (hi - lo) / 2;
}

double clip_count(double c, double n) noexcept {
  if (!(c > 0)) return 0;  // also maps NaN to 0
  return c < n ? c : n;
}

estimate make_estimate(uint32_t item, double count, double variance, double z) noexcept {
  estimate e;
  e.item = item;
  e.value = count;
  e.variance = variance;
  const double half = z * std::sqrt(variance > 0 ? variance : 0.0);
  e.ci_low = count - half;
  e.ci_high = count + half;
  return e;
}

const kernels::table& kernel_table() noexcept {
  static const kernels::table& table = kernels::select(platform::detect_cpu());
  return table;
}

bool fwht_fits_i32(std::size_t size, uint64_t bound) noexcept {
  return size <= (std::size_t{1} << 30) && bound < (uint64_t{1} << 31);
}

void fwht_i32(span<int32_t> x) noexcept {
  unsigned log2n = 0;
  while ((std::size_t{1} << log2n) < x.size()) ++log2n;
  kernel_table().fwht_i32(x.data(), log2n);
}

void put_u16(std::vector<unsigned char>& out, uint16_t v) {
  out.push_back(static_cast<unsigned char>(v));
  out.push_back(static_cast<unsigned char>(v >> 8));
}

void put_u32(std::vector<unsigned char>& out, uint32_t v) {
  unsigned char b[4];
  store_le32(b, v);
  out.insert(out.end(), b, b + 4);
}

void put_u64(std::vector<unsigned char>& out, uint64_t v) {
  unsigned char b[8];
  store_le64(b, v);
  out.insert(out.end(), b, b + 8);
}

void put_u64s(std::vector<unsigned char>& out, const std::vector<uint64_t>& values) {
  out.reserve(out.size() + 8 * values.size());
  for (uint64_t v : values) put_u64(out, v);
}

span<const unsigned char> body_reader::bytes(std::size_t n) noexcept {
  if (!ok || rest.size() < n) {
    ok = false;
    return {};
  }
  const span<const unsigned char> out = rest.first(n);
  rest = rest.subspan(n);
  return out;
}

uint64_t body_reader::u16() noexcept {
  const span<const unsigned char> b = bytes(2);
  return ok ? uint64_t{b[0]} | uint64_t{b[1]} << 8 : 0;
}

uint64_t body_reader::u32() noexcept {
  const span<const unsigned char> b = bytes(4);
  return ok ? load_le32(b.data()) : 0;
}

uint64_t body_reader::u64() noexcept {
  const span<const unsigned char> b = bytes(8);
  return ok ? load_le64(b.data()) : 0;
}

status read_u64s(span<const unsigned char> bytes, std::vector<uint64_t>& values) noexcept {
  if (bytes.size() / 8 != values.size() || bytes.size() % 8 != 0) return status::wrong_length;
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = load_le64(bytes.data() + 8 * i);
  return status::ok;
}

bool cell_count(uint64_t cells, std::size_t* out) noexcept {
  // Twice the cells must fit: merging and decoding copy a count array.
  const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<std::size_t>::max() / 16);
  if (cells > limit) return false;
  *out = static_cast<std::size_t>(cells);
  return true;
}

std::vector<estimate> template_estimates(const support_model& model,
                                         const std::vector<uint64_t>& support,
                                         span<const uint32_t> items, uint64_t reports, double z) {
  const auto n = static_cast<double>(reports);
  std::vector<estimate> out;
  out.reserve(items.size());
  for (uint32_t v : items) {
    const double c = model.count(static_cast<double>(support[v]), n);
    out.push_back(make_estimate(v, c, model.variance(c, n), z));
  }
  return out;
}

status histogram_aggregator::ingest(const wire::report& r) noexcept {
  if (r.index >= hist_.size()) return status::out_of_range;  // the decoder already checks
  ++hist_[r.index];
  return status::ok;
}

void histogram_aggregator::merge_counts(const aggregator& other) {
  const auto& o = static_cast<const histogram_aggregator&>(other);
  for (std::size_t y = 0; y < hist_.size(); ++y) hist_[y] += o.hist_[y];
}

void histogram_aggregator::write_body(std::vector<unsigned char>& out) const { put_u64s(out, hist_); }

status histogram_aggregator::read_body(span<const unsigned char> body) {
  const status s = read_u64s(body, hist_);
  if (s != status::ok) return s;
  uint64_t total = 0;
  for (uint64_t h : hist_) {
    if (!checked_add(total, h, &total)) return status::malformed_report;
  }
  return total == reports_ ? status::ok : status::malformed_report;
}

}  // namespace ldp::server::detail

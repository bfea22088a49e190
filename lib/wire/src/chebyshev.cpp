#include "ldp/wire/chebyshev.h"

namespace ldp::wire {
namespace {

// v / 2^f rounded half up, written as a floor division: right shifts of negative values are
// implementation-defined in C++17.
int64_t round_to_grid(int64_t v, unsigned frac_bits) {
  if (frac_bits == 0) return v;
  const int64_t unit = int64_t{1} << frac_bits;
  const int64_t shifted = v + unit / 2;
  return shifted >= 0 ? shifted / unit : -((-shifted + unit - 1) / unit);
}

int64_t clamp_unit(int64_t v, int64_t one) { return v < -one ? -one : v > one ? one : v; }

// One step of the recurrence: T_(v+1) from T_v (current) and T_(v-1) (before), unclamped.
struct recurrence {
  int64_t x, before, current;  // T_(v-1), T_v at v = 1 to start
  unsigned frac_bits;
  int64_t advance() {
    const int64_t next = round_to_grid(2 * x * current, frac_bits) - before;
    before = current;
    current = next;
    return next;
  }
};

recurrence start(int64_t x, unsigned frac_bits) {
  const int64_t one = int64_t{1} << frac_bits;
  x = clamp_unit(x, one);
  return {x, one, x, frac_bits};
}

}  // namespace

void chebyshev_values(int64_t x, unsigned frac_bits, span<int64_t> out) noexcept {
  const int64_t one = int64_t{1} << frac_bits;
  recurrence r = start(x, frac_bits);
  for (std::size_t v = 0; v < out.size(); ++v) out[v] = v == 0 ? one : clamp_unit(v == 1 ? r.x : r.advance(), one);
}

void chebyshev_features(span<const int64_t> x, unsigned frac_bits, uint32_t t, span<int64_t> out) noexcept {
  const int64_t one = int64_t{1} << frac_bits;
  out[0] = one;            // the empty product
  std::size_t filled = 1;  // t^j after axis j - 1
  for (int64_t xj : x) {
    recurrence r = start(xj, frac_bits);
    for (std::size_t v = 1; v < t; ++v) {
      const int64_t tv = clamp_unit(v == 1 ? r.x : r.advance(), one);
      for (std::size_t l = 0; l < filled; ++l) out[v * filled + l] = round_to_grid(out[l] * tv, frac_bits);
    }
    filled *= t;
  }
}

double chebyshev_feature_error_bound(uint64_t l, uint32_t t, uint32_t p) noexcept {
  double bound = p > 1 ? 0.5 * (p - 1) : 0.0;
  for (uint32_t j = 0; j < p; ++j) {
    const auto v = static_cast<double>(l % t);
    bound += v * (v - 1) / 4;
    l /= t;
  }
  return bound;
}

}  // namespace ldp::wire

#include "ldp/wire/marginals.h"

#include "derivation.h"
#include "ldp/base/bits.h"
#include "ldp/wire/mean_params.h"

namespace ldp::wire {
namespace {

constexpr uint64_t saturated = ~uint64_t{0};

uint64_t saturating_add(uint64_t a, uint64_t b) { return a > saturated - b ? saturated : a + b; }

uint32_t popcount(uint64_t v) {
  uint32_t n = 0;
  for (; v != 0; v &= v - 1) ++n;
  return n;
}

}  // namespace

uint64_t binomial(uint32_t n, uint32_t s) noexcept {
  if (s > n) return 0;
  if (s > n - s) s = n - s;
  // C(n - s + i, i) = C(n - s + i - 1, i - 1) (n - s + i) / i for i = 1..s. With g = gcd(c, i),
  // i / g divides n - s + i (it divides c (n - s + i) and is coprime to c / g), so each step is
  // (c / g) ((n - s + i) / (i / g)) exactly and overflows only when the result does.
  uint64_t c = 1;
  for (uint32_t i = 1; i <= s; ++i) {
    uint64_t g = c, r = i;
    while (r != 0) {
      const uint64_t t = g % r;
      g = r;
      r = t;
    }
    uint64_t next = 0;
    if (!checked_mul(c / g, (uint64_t{n} - s + i) / (i / g), &next)) return saturated;
    c = next;
  }
  return c;
}

uint64_t conjunction_count(uint32_t p, uint32_t k) noexcept {
  if (k < 1 || k > p) return 0;
  uint64_t total = 0;
  for (uint32_t s = 1; s <= k; ++s) total = saturating_add(total, binomial(p, s));
  return total;
}

uint32_t conjunction_index(uint32_t p, uint64_t set) noexcept {
  const uint32_t size = popcount(set);
  uint64_t index = size > 1 ? conjunction_count(p, size - 1) : 0;
  uint32_t i = 0;
  for (uint32_t c = 0; c < 64; ++c) {
    if ((set >> c & 1) != 0) index += binomial(c, ++i);
  }
  return static_cast<uint32_t>(index);
}

derived_params make_kway_marginals(uint32_t p, uint32_t k, unsigned frac_bits, double epsilon) noexcept {
  const uint64_t coordinates = conjunction_count(p, k);
  if (p > marginals_max_attributes || coordinates == 0 || coordinates > marginals_max_coordinates) {
    derived_params out;
    out.code = status::invalid_argument;
    return out;
  }
  params block;
  block.mech = mechanism::kway_marginals;
  block.set(field::vector_dim, p).set(field::marginal_order, k);
  return detail::laplace_vector_block(block, static_cast<uint32_t>(coordinates), 0.0, 1.0, frac_bits, epsilon);
}

bool detail::marginals_rules_hold(const params& p) noexcept {
  const uint64_t attributes = p.get(field::vector_dim), k = p.get(field::marginal_order);
  if (attributes < 1 || attributes > marginals_max_attributes || k < 1 || k > attributes) return false;
  const uint64_t coordinates = conjunction_count(static_cast<uint32_t>(attributes), static_cast<uint32_t>(k));
  if (coordinates > marginals_max_coordinates || p.get(field::domain) != coordinates) return false;
  const uint64_t f = p.get(field::frac_bits);
  return p.get_signed(field::clip_lo) == 0 && f <= 62 && p.get_signed(field::clip_hi) == int64_t{1} << f;
}

}  // namespace ldp::wire

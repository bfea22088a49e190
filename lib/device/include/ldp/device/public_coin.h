// Device side of the public-coin learners (docs/mechanisms.md H.2 bernstein-1bit, H.3
// bernstein-genprot). User i (the index the deployment assigns, 0 <= i < n, one report per index)
// evaluates its loss at the grid point of its public group only, and reports its index with one bit
// (1bit) or the index g of one of its T public samples (genprot). No heap, no exceptions.
//
// [impl] A report:
// 1. The group l = pi(i) mod (k + 1)^p and the public samples y_{i,t} (random/public_coin.h) come from
//    the block's seed and i: public, fixed before any data.
// 2. ell = the loss at grid point l (wire::loss_value for a built-in loss, the caller's loss_fn for
//    loss `caller`), clamped to [0, 1] (NaN: invalid_argument before anything is drawn), then
//    v = ell V by unbiased randomized rounding: v = floor(ell V) + Bernoulli(frac), the fraction
//    taken to 32 bits (a bias below 2^-32 / V of a unit, H.2). Private coin.
// 3. 1bit: b ~ Bernoulli(T(a) / 2^32), a = |y_i| - |y_i - v| (wire/public_coin_params.h).
//    genprot: b_t ~ Bernoulli(T(a_t) / 2^32) for t = 0..T-1, g uniform among the t with b_t = 1
//    (reservoir sampling: the c-th one replaces the choice with probability 1/c), uniform in [0, T)
//    when there is none (Alg 8 steps 10-13). Private coins.
#ifndef LDP_DEVICE_PUBLIC_COIN_H
#define LDP_DEVICE_PUBLIC_COIN_H

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/coins.h"
#include "ldp/device/context.h"
#include "ldp/device/loss_fn.h"
#include "ldp/random/drbg.h"
#include "ldp/random/public_coin.h"
#include "ldp/wire/public_coin_params.h"

namespace ldp::device {

// One user's example: the built-in losses read x (p features in [0, 1]) and the label; a caller
// loss reads nothing but its own `loss_user`.
struct learner_example {
  uint32_t user = 0;  // i in [0, n)
  const double* x = nullptr;
  uint32_t dim = 0;  // p of x (must equal the block's vector_dim for a built-in loss)
  double label = 0;
  loss_fn loss = nullptr;
  const void* loss_user = nullptr;
};

// v in {0..V} from ell in [0, 1] by randomized rounding (step 2).
template <class Coins>
int64_t quantize_loss(double ell, unsigned frac_bits, Coins& coins) noexcept {
  const double scaled = std::ldexp(ell, static_cast<int>(frac_bits) + 32);  // < 2^49, exact integer part
  const auto fixed = static_cast<uint64_t>(scaled);
  const auto whole = static_cast<int64_t>(fixed >> 32);
  return whole + (coins.bernoulli(fixed & 0xffffffffu) ? 1 : 0);
}

// The bit of a user with quantized loss v against the public sample y (step 3, 1bit).
template <class Coins>
bool one_bit_report(const wire::params& p, int64_t v, int64_t y, Coins& coins) noexcept {
  return coins.bernoulli(wire::coin_threshold(p, wire::coin_margin(y, v, wire::coin_grid(p))));
}

// The index g of genprot (step 3); sample(t) gives y_t.
template <class Coins, class Samples>
uint32_t genprot_report(const wire::params& p, int64_t v, Samples sample, Coins& coins) noexcept {
  const auto strings = static_cast<uint32_t>(p.get(wire::field::public_strings));
  const int64_t grid = wire::coin_grid(p);
  uint32_t kept = 0, choice = 0;
  for (uint32_t t = 0; t < strings; ++t) {
    if (!coins.bernoulli(wire::coin_threshold(p, wire::coin_margin(sample(t), v, grid)))) continue;
    ++kept;
    if (coins.uniform_below(kept) == 0) choice = t;
  }
  return kept == 0 ? coins.uniform_below(strings) : choice;
}

class public_coin_context {
 public:
  // The p coordinates of the group's grid point.
  [[nodiscard]] static constexpr std::size_t workspace_size(const wire::params& p) noexcept {
    return static_cast<std::size_t>(p.get(wire::field::vector_dim)) * sizeof(double);
  }

  // invalid_argument for another block (or a misaligned workspace), validate()'s status for an
  // invalid one, workspace_too_small below workspace_size(p).
  [[nodiscard]] static status init(span<std::byte> workspace, const wire::params& p, public_coin_context* out) noexcept;

  const wire::params& parameters() const noexcept { return block_.params; }
  uint64_t fingerprint() const noexcept { return block_.fingerprint; }

  // The group of user i and the user's quantized loss there (steps 1, 2): invalid_argument for i >= n,
  // a missing loss or features, a p that does not match, a NaN loss.
  [[nodiscard]] uint32_t group_of(uint32_t user) const noexcept;
  template <class Coins>
  status quantized_loss(const learner_example& e, Coins& coins, int64_t* v) noexcept;

  // The report's fields with any coins (drbg_coins, the audit's enumerator).
  template <class Coins>
  status fields(const learner_example& e, Coins& coins, wire::report* r) noexcept;

  // The one report (or payload) of this user (out: max_output_size(p, f) bytes always suffice).
  [[nodiscard]] status randomize(const learner_example& e, random::drbg& rng, span<unsigned char> out, framing f,
                                 std::size_t* written) noexcept;

 private:
  [[nodiscard]] int64_t sample(uint32_t user, uint32_t string) const noexcept;
  [[nodiscard]] status loss_at_group(const learner_example& e, double* ell) noexcept;

  validated_block block_{};
  random::public_partition partition_{};
  span<double> point_{};
};

template <class Coins>
status public_coin_context::quantized_loss(const learner_example& e, Coins& coins, int64_t* v) noexcept {
  double ell = 0;
  const status s = loss_at_group(e, &ell);
  if (s != status::ok) return s;
  *v = quantize_loss(ell, static_cast<unsigned>(block_.params.get(wire::field::frac_bits)), coins);
  return status::ok;
}

template <class Coins>
status public_coin_context::fields(const learner_example& e, Coins& coins, wire::report* r) noexcept {
  *r = wire::report{};
  r->mech = block_.params.mech;
  if (!block_.ready) return status::invalid_argument;
  int64_t v = 0;
  const status s = quantized_loss(e, coins, &v);
  if (s != status::ok) return s;
  r->index = e.user;
  switch (wire::public_coin_of(r->mech)) {
    case wire::public_coin_member::one_bit:
      r->bit = one_bit_report(block_.params, v, sample(e.user, 0), coins) ? 1 : 0;
      break;
    case wire::public_coin_member::genprot:
      r->value = genprot_report(
          block_.params, v, [&](uint32_t t) { return sample(e.user, t); }, coins);
      break;
  }
  return status::ok;
}

}  // namespace ldp::device

#endif

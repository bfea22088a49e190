// Device side of the frequency oracles (docs/mechanisms.md A.1-A.6): GRR, SUE, OUE, BLH, OLH, FLH, HR,
// CMS and HCMS. A device holds one item v in [0, d) and writes one wire report (docs/wire_format.md). No
// heap, no exceptions: unary and sketch encodings use a caller workspace of
// frequency_context::workspace_size(p) bytes, and every size is a constant expression of the block.
#ifndef LDP_DEVICE_FREQUENCY_H
#define LDP_DEVICE_FREQUENCY_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/bits.h"
#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/coins.h"
#include "ldp/device/context.h"
#include "ldp/device/memo_key.h"
#include "ldp/random/drbg.h"
#include "ldp/wire/hash.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"

namespace ldp::device {

// A frequency oracle ready to randomize items (see context.h). The workspace holds the unary or
// sketch bits (SUE, OUE: d bits; CMS: m bits; none for the others), which a report's bits point to
// until the next randomization.
class frequency_context {
 public:
  [[nodiscard]] static constexpr std::size_t workspace_size(const wire::params& p) noexcept { return layout(p).size(); }

  // invalid_argument for a block that is not a frequency oracle (or a misaligned workspace),
  // validate()'s status for an invalid one, unsupported for thresholds out of another 2^w than
  // 2^32 (the coins compare 32-bit words, coins.h: such a block would be misread as different
  // probabilities), workspace_too_small below workspace_size(p). *out randomizes nothing
  // (invalid_argument) unless init succeeded.
  [[nodiscard]] static status init(span<std::byte> workspace, const wire::params& p, frequency_context* out) noexcept;

  const wire::params& parameters() const noexcept { return block_.params; }
  uint64_t fingerprint() const noexcept { return block_.fingerprint; }

  // The report fields of `item` with coins from `coins` (drbg_coins on the device; the privacy
  // audits pass their own). out_of_range for item >= d; nothing is drawn then.
  template <class Coins>
  status fields(uint32_t item, Coins& coins, wire::report* r) noexcept;

  // The report or payload of `item` (out: max_output_size(p, f) bytes always suffice).
  // invalid_argument for a memoized block: its reports come from randomize_memoized only, so no
  // path skips the permanent stage.
  [[nodiscard]] status randomize(uint32_t item, random::drbg& rng, span<unsigned char> out, framing f,
                                 std::size_t* written) noexcept;

  // Memoized randomized response (docs/mechanisms.md E.1), memoized sue, oue, olh and blh blocks,
  // and dbitflip (E.3: permanent only) (wire::needs_device_secret; invalid_argument for others and
  // for a null secret). The permanent response of `item`: fields() with coins from the value's
  // memoized stream; OLH/BLH hash, and dBitFlip samples its buckets, with the device-permanent seed. Deterministic in (secret, use case, block, item) and the same on every
  // kernel table.
  [[nodiscard]] status permanent_fields(uint32_t item, memo_key key, const kernels::table& k, wire::report* r) noexcept;

  // Both stages with any coins (the audits enumerate them): fields() with `permanent`, then the
  // instantaneous stage with `instant`: unary, each bit kept at instant_keep when 1 and set at
  // instant_other when 0 (two Bernoulli masks and a branch-free select); local hashing, GRR with
  // instant_keep on the g buckets.
  template <class PermanentCoins, class InstantCoins>
  status memoized_fields(uint32_t item, PermanentCoins& permanent, InstantCoins& instant, wire::report* r) noexcept;

  // One memoized report or payload of `item`: the permanent response under `key`, then the
  // instantaneous stage with coins from `rng` (whose kernel table also derives the memo seeds).
  [[nodiscard]] status randomize_memoized(uint32_t item, memo_key key, random::drbg& rng, span<unsigned char> out,
                                          framing f, std::size_t* written) noexcept;

 private:
  // The permanent bits, then (memoized unary blocks) the two instantaneous masks.
  struct placement {
    workspace_layout layout;
    std::size_t masks = 0;
  };
  static constexpr placement place(const wire::params& p) noexcept {
    placement at;
    at.layout.place<uint64_t>(bit_words(p));
    at.masks = at.layout.place<uint64_t>(mask_words(p));
    return at;
  }
  static constexpr workspace_layout layout(const wire::params& p) noexcept { return place(p).layout; }
  static constexpr std::size_t mask_words(const wire::params& p) noexcept {
    return wire::is_memoized(p) && wire::kind_of(p.mech) == wire::payload_kind::unary_bits ? 2 * bit_words(p) : 0;
  }
  static constexpr std::size_t bit_words(const wire::params& p) noexcept {
    const bool unary = p.mech == wire::mechanism::sue || p.mech == wire::mechanism::oue;
    const uint64_t n = unary                            ? p.get(wire::field::domain)
                       : p.mech == wire::mechanism::cms ? p.get(wire::field::sketch_columns)
                                                        : 0;
    return static_cast<std::size_t>((n + 63) / 64);
  }

  template <class Coins>
  status instantaneous(Coins& coins, wire::report* r) noexcept;
  // Calls use(coins) with the permanent coins of `item` under `key` (frequency.cpp).
  template <class Use>
  status with_permanent_coins(uint32_t item, memo_key key, const kernels::table& k, Use use) noexcept;

  validated_block block_{};
  span<uint64_t> bits_{};
  span<uint64_t> masks_{};  // memoized unary blocks: instant_keep's mask, then instant_other's
};

// ---------------------------------------------------------------------------------------------
// Implementation (templates: the audits instantiate them with their own coins).

namespace detail {

// GRR on n symbols (A.1): keep x with T / 2^32, else uniform over the n - 1 others.
template <class Coins>
uint32_t grr(uint32_t x, uint64_t n, uint64_t keep, Coins& coins) noexcept {
  if (coins.bernoulli(keep)) return x;
  const uint32_t r = coins.uniform_below(static_cast<uint32_t>(n - 1));
  return r + (r >= x ? 1u : 0u);
}

// Unary and sketch bits leave as little-endian bytes over the same memory (wire bits(n)).
inline span<const unsigned char> words_to_bytes(span<uint64_t> words, std::size_t nbits) noexcept {
  auto* bytes = reinterpret_cast<unsigned char*>(words.data());
  for (std::size_t i = 0; i < (nbits + 63) / 64; ++i) {
    const uint64_t w = words[i];
    store_le64(bytes + 8 * i, w);
  }
  return {bytes, (nbits + 7) / 8};
}

inline void set_bit(span<uint64_t> words, uint64_t j, bool value) noexcept {
  const uint64_t bit = uint64_t{1} << (j % 64);
  uint64_t& w = words[static_cast<std::size_t>(j / 64)];
  w = (w & ~bit) | (value ? bit : 0);  // branch-free on the value (no timing on the true item)
}

// Unary encoding of value < d into the d bits of `workspace` (SUE, OUE, and the kent-vote of
// docs/mechanisms.md C.1 P1, which is SUE over cells): all d positions Bernoulli(q), then the true one
// redrawn: Bernoulli(p), or a raw bit for OUE (p = 1/2 exactly, A.3). Each random word feeds one
// set of lanes only. r->bits points into `workspace` afterwards.
template <class Coins>
status unary_encode(const wire::params& p, uint32_t value, Coins& coins, span<uint64_t> workspace,
                    wire::report* r) noexcept {
  const auto d = static_cast<std::size_t>(p.get(wire::field::domain));
  const status s = coins.mask(workspace, d, p.get(wire::field::threshold_other));
  if (s != status::ok) return s;
  const uint64_t keep = p.get(wire::field::threshold_keep);
  const bool bit = p.mech == wire::mechanism::oue ? coins.raw_bit() : coins.bernoulli(keep);
  set_bit(workspace, value, bit);
  r->bits = words_to_bytes(workspace, d);
  return status::ok;
}

}  // namespace detail

template <class Coins>
status frequency_context::fields(uint32_t value, Coins& coins, wire::report* r) noexcept {
  using wire::field;
  using wire::frequency_oracle;
  const wire::params& p = block_.params;
  const span<uint64_t> workspace = bits_;
  *r = wire::report{};
  r->mech = p.mech;
  if (!block_.ready) return status::invalid_argument;
  const uint64_t d = p.get(field::domain);
  if (value >= d) return status::out_of_range;
  const uint64_t keep = p.get(field::threshold_keep), other = p.get(field::threshold_other);
  switch (wire::oracle_of(p.mech)) {  // init() accepted a frequency oracle only
    case frequency_oracle::grr: r->index = detail::grr(value, d, keep, coins); return status::ok;
    case frequency_oracle::sue:
    case frequency_oracle::oue: return detail::unary_encode(p, value, coins, workspace, r);
    case frequency_oracle::blh:
    case frequency_oracle::olh: {
      // A fresh seed per report, private but revealed (A.4); then GRR on the g buckets.
      const uint64_t g = p.get(field::hash_range);
      r->seed = coins.raw_u64();
      const uint32_t bucket = wire::hash_to_range(wire::report_hash_key(r->seed), value, static_cast<uint32_t>(g));
      r->index = detail::grr(bucket, g, keep, coins);
      return status::ok;
    }
    case frequency_oracle::flh: {
      // One of the k public functions, uniform and revealed, drawn before the item is read (A.4);
      // then GRR on the g buckets. The report's index is j g + y.
      const auto g = static_cast<uint32_t>(p.get(field::hash_range));
      const uint32_t j = coins.uniform_below(static_cast<uint32_t>(p.get(field::sketch_rows)));
      const uint32_t bucket = wire::flh_bucket(wire::flh_value(wire::flh_function(p.hash_seed, j), value), g);
      r->index = j * g + detail::grr(bucket, g, keep, coins);
      return status::ok;
    }
    case frequency_oracle::hr: {
      // Row v + 1 (A.5): y uniform on C_v = {y : popcount(row & y) even} with T / 2^32, else on
      // its complement. Flipping the row's lowest set bit moves y between the two halves.
      const uint32_t row = value + 1;
      const bool in_set = coins.bernoulli(keep);
      uint32_t y = coins.uniform_below(static_cast<uint32_t>(p.get(field::hadamard_dim)));
      const bool even = (popcount32(row & y) & 1u) == 0;
      if (even != in_set) y ^= row & (0u - row);
      r->index = y;
      return status::ok;
    }
    case frequency_oracle::cms: {
      // Row j uniform (revealed); the m signs are -1 except +1 at h_j(v), each flipped with q_f.
      // Bit 1 means +1 on the wire.
      const uint64_t m = p.get(field::sketch_columns);
      const uint32_t j = coins.uniform_below(static_cast<uint32_t>(p.get(field::sketch_rows)));
      const uint32_t h = wire::sketch_hash(p.hash_seed)(j, value, static_cast<uint32_t>(m));
      const status s = coins.mask(workspace, static_cast<std::size_t>(m), other);
      if (s != status::ok) return s;
      workspace[h / 64] ^= uint64_t{1} << (h % 64);  // flips of the -1 signs, and of the one +1
      r->index = j;
      r->bits = detail::words_to_bytes(workspace, static_cast<std::size_t>(m));
      return status::ok;
    }
    case frequency_oracle::hcms: {
      // Row j and column l uniform (revealed); the sign H_m[l, h_j(v)], flipped with q (A.6).
      const uint64_t m = p.get(field::sketch_columns);
      const uint32_t j = coins.uniform_below(static_cast<uint32_t>(p.get(field::sketch_rows)));
      const uint32_t l = coins.uniform_below(static_cast<uint32_t>(m));
      const uint32_t h = wire::sketch_hash(p.hash_seed)(j, value, static_cast<uint32_t>(m));
      const bool plus = (popcount32(l & h) & 1u) == 0;
      const bool flip = coins.bernoulli(other);
      r->index = j;
      r->column = l;
      r->bit = static_cast<uint8_t>(plus != flip ? 1 : 0);
      return status::ok;
    }
    case frequency_oracle::dbitflip: {
      // E.3: the device's seed (revealed; device-permanent under memoization) names its d sampled
      // buckets; then one bit per sampled bucket in increasing order, Bernoulli(keep) at the item
      // and Bernoulli(other) elsewhere (the threshold is selected, not branched on), packed into
      // the index.
      r->seed = coins.raw_u64();
      uint32_t buckets[wire::dbitflip_max_sampled];
      const auto sampled = static_cast<uint32_t>(p.get(field::sampled_buckets));
      wire::dbitflip_buckets(r->seed, static_cast<uint32_t>(d), sampled, buckets);
      uint32_t bits = 0;
      for (uint32_t i = 0; i < sampled; ++i) {
        const uint64_t threshold = buckets[i] == value ? keep : other;
        bits |= static_cast<uint32_t>(coins.bernoulli(threshold) ? 1u : 0u) << i;
      }
      r->index = bits;
      return status::ok;
    }
  }
  return status::invalid_argument;  // a value outside the enumeration
}

template <class PermanentCoins, class InstantCoins>
status frequency_context::memoized_fields(uint32_t item, PermanentCoins& permanent, InstantCoins& instant,
                                          wire::report* r) noexcept {
  if (!wire::needs_device_secret(block_.params)) {
    *r = wire::report{};
    return status::invalid_argument;
  }
  const status s = fields(item, permanent, r);
  return s != status::ok ? s : instantaneous(instant, r);
}

template <class Coins>
status frequency_context::instantaneous(Coins& coins, wire::report* r) noexcept {
  using wire::field;
  using wire::frequency_oracle;
  const wire::params& p = block_.params;
  switch (wire::oracle_of(p.mech)) {  // validate() admits the memo fields on these four only
    case frequency_oracle::sue:
    case frequency_oracle::oue: {
      // S = B' ? M_keep : M_other per bit. B' is already in wire byte order (fields() converted it
      // in place); the masks are converted alike, and a bitwise select does not care about the order.
      const auto d = static_cast<std::size_t>(p.get(field::domain));
      const std::size_t words = masks_.size() / 2;
      const span<uint64_t> keep(masks_.data(), words), other(masks_.data() + words, words);
      status s = coins.mask(keep, d, p.get(field::instant_keep));
      if (s == status::ok) s = coins.mask(other, d, p.get(field::instant_other));
      if (s != status::ok) return s;
      (void)detail::words_to_bytes(keep, d);
      (void)detail::words_to_bytes(other, d);
      for (std::size_t i = 0; i < words; ++i) bits_[i] = (bits_[i] & keep[i]) | (~bits_[i] & other[i]);
      // With the report, the masks would give B' back wherever they differ: they do not outlive it.
      secure_zero(masks_.data(), masks_.size() * sizeof(uint64_t));
      return status::ok;
    }
    case frequency_oracle::blh:
    case frequency_oracle::olh:
      r->index = detail::grr(r->index, p.get(field::hash_range), p.get(field::instant_keep), coins);
      return status::ok;
    case frequency_oracle::grr:
    case frequency_oracle::hr:
    case frequency_oracle::cms:
    case frequency_oracle::hcms:
    case frequency_oracle::flh: break;
    case frequency_oracle::dbitflip: return status::ok;  // permanent only (E.3)
  }
  return status::invalid_argument;
}

}  // namespace ldp::device

#endif

#include "ldp/device/frequency.h"

#include "ldp/base/bits.h"

namespace ldp::device {

status frequency_context::init(span<std::byte> workspace, const wire::params& p, frequency_context* out) noexcept {
  *out = frequency_context{};
  if (family_of(p.mech) != family::frequency) return status::invalid_argument;
  const status valid = wire::validate(p);
  if (valid != status::ok) return valid;
  if (p.get(wire::field::threshold_bits) != wire::oracle_threshold_bits) return status::unsupported;
  const std::size_t size = workspace_size(p);
  const status checked = check_workspace(workspace, size);
  if (checked != status::ok) return checked;
  out->block_.accept(p);
  out->bits_ = carve<uint64_t>(workspace, 0, bit_words(p));
  out->masks_ = carve<uint64_t>(workspace, place(p).masks, mask_words(p));
  return status::ok;
}

status frequency_context::randomize(uint32_t item, random::drbg& rng, span<unsigned char> out, framing f,
                                    std::size_t* written) noexcept {
  if (wire::needs_device_secret(block_.params)) {
    *written = 0;
    return status::invalid_argument;
  }
  drbg_coins coins(rng);
  return emit(
      block_.params, block_.fingerprint, [&](wire::report* r) { return fields(item, coins, r); }, f, out, written);
}

template <class Use>
status frequency_context::with_permanent_coins(uint32_t item, memo_key key, const kernels::table& k, Use use) noexcept {
  if (!block_.ready || !wire::needs_device_secret(block_.params) || key.secret == nullptr) {
    return status::invalid_argument;
  }
  if (item >= block_.params.get(wire::field::domain)) return status::out_of_range;
  const memo_scope scope{key.use_case, block_.fingerprint};
  unsigned char seed[random::drbg::seed_size];
  // The revealed hash seed of local hashing is the device's, whatever its value (docs/mechanisms.md
  // E.1: a per-value seed sent in clear would show exactly when the value changes). Drawn before
  // the item is read.
  uint64_t revealed = 0;
  if (wire::kind_of(block_.params.mech) == wire::payload_kind::hash_bucket) {
    memo_seed(k, key.secret, scope, memo_purpose::device, 0, seed);
    random::drbg device_stream(seed, k);
    revealed = device_stream.next_u64();
  }
  memo_seed(k, key.secret, scope, memo_purpose::value, item, seed);
  random::drbg value_stream(seed, k);
  secure_zero(seed, sizeof seed);
  permanent_coins coins(value_stream, revealed);
  return use(coins);
}

status frequency_context::permanent_fields(uint32_t item, memo_key key, const kernels::table& k,
                                           wire::report* r) noexcept {
  *r = wire::report{};
  return with_permanent_coins(item, key, k, [&](permanent_coins& coins) { return fields(item, coins, r); });
}

status frequency_context::randomize_memoized(uint32_t item, memo_key key, random::drbg& rng, span<unsigned char> out,
                                             framing f, std::size_t* written) noexcept {
  drbg_coins instant(rng);
  return emit(
      block_.params, block_.fingerprint,
      [&](wire::report* r) {
        return with_permanent_coins(item, key, rng.kernel(),
                                    [&](permanent_coins& coins) { return memoized_fields(item, coins, instant, r); });
      },
      f, out, written);
}

}  // namespace ldp::device

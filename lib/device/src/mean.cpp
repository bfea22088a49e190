#include "ldp/device/mean.h"

namespace ldp::device {

status mean_context::init(span<std::byte>, const wire::params& p, mean_context* out) noexcept {
  *out = mean_context{};
  const wire::payload_kind kind = wire::kind_of(p.mech);
  if (kind != wire::payload_kind::fixed_value && kind != wire::payload_kind::bit) return status::invalid_argument;
  const status valid = wire::validate(p);
  if (valid != status::ok) return valid;
  out->block_.accept(p);
  return status::ok;
}

namespace {

// A DRBG seeded with memo_seed(purpose, input); the seed is wiped once the generator is keyed.
class memo_stream {
 public:
  memo_stream(const kernels::table& k, const unsigned char* secret, memo_scope scope, memo_purpose purpose,
              uint32_t input) noexcept
      : seed_(derive(k, secret, scope, purpose, input)), rng(seed_.bytes, k) {
    secure_zero(seed_.bytes, sizeof seed_.bytes);
  }

 private:
  struct seed_bytes {
    unsigned char bytes[random::drbg::seed_size];
  };
  static seed_bytes derive(const kernels::table& k, const unsigned char* secret, memo_scope scope, memo_purpose purpose,
                           uint32_t input) noexcept {
    seed_bytes out;
    memo_seed(k, secret, scope, purpose, input, out.bytes);
    return out;
  }
  seed_bytes seed_;

 public:
  random::drbg rng;
};

}  // namespace

uint64_t memo_permanent::device_uniform(uint64_t n) const noexcept {
  memo_stream s(kernels_, secret_, scope_, memo_purpose::device, 0);
  return random::uniform_below64(s.rng, n);
}

bool memo_permanent::value_bit(uint32_t input, uint64_t threshold, uint64_t denominator) const noexcept {
  memo_stream s(kernels_, secret_, scope_, memo_purpose::value, input);
  return below_fraction(s.rng, threshold, denominator);
}

status mean_context::randomize(int64_t x, random::drbg& rng, span<unsigned char> out, framing f,
                               std::size_t* written) const noexcept {
  const auto fields = [&](wire::report* r) {
    *r = wire::report{};
    r->mech = block_.params.mech;
    if (!block_.ready || wire::is_memoized_mean(block_.params)) return status::invalid_argument;
    if (block_.params.mech == wire::mechanism::duchi) {
      r->bit = duchi_bit(block_.params, x, rng);
    } else {
      r->value = laplace_noisy(block_.params, x, rng);
    }
    return status::ok;
  };
  return emit(block_.params, block_.fingerprint, fields, f, out, written);
}

status mean_context::randomize_memoized(int64_t x, const memo_key& key, random::drbg& rng, span<unsigned char> out,
                                        framing f, std::size_t* written) const noexcept {
  const auto fields = [&](wire::report* r) {
    *r = wire::report{};
    r->mech = block_.params.mech;
    if (!block_.ready || !wire::is_memoized_mean(block_.params) || key.secret == nullptr) {
      return status::invalid_argument;
    }
    memo_permanent permanent(rng.kernel(), key.secret, {key.use_case, block_.fingerprint});
    drbg_coins instant(rng);
    r->bit = memoized_duchi_bit(block_.params, x, permanent, instant);
    return status::ok;
  };
  return emit(block_.params, block_.fingerprint, fields, f, out, written);
}

}  // namespace ldp::device

#include "ldp/device/kent_support.h"

#include "ldp/kernels/kernel_table.h"

namespace ldp::device {

using wire::field;

status kent_support_context::init(span<std::byte> workspace, const wire::params& p,
                                  kent_support_context* out) noexcept {
  *out = kent_support_context{};
  if (p.mech != wire::mechanism::kent_support) return status::invalid_argument;
  const status valid = wire::validate(p);
  if (valid != status::ok) return valid;
  const placement at = layout(p);
  const status checked = check_workspace(workspace, at.bytes.size());
  if (checked != status::ok) return checked;
  const auto d = static_cast<uint32_t>(p.get(field::domain));
  const auto s = static_cast<std::size_t>(p.get(field::sparsity));
  out->signs_ = carve<uint32_t>(workspace, at.signs, random::projection_row_words(d));
  out->kept_ = carve<uint32_t>(workspace, at.kept, s);
  out->magnitudes_ = carve<uint64_t>(workspace, at.magnitudes, s);
  out->block_.accept(p);
  return status::ok;
}

status kent_support_context::support(span<const int64_t> observations, span<const uint32_t>* out) noexcept {
  *out = {};
  if (!block_.ready) return status::invalid_argument;
  const wire::params& p = block_.params;
  const auto d = static_cast<std::size_t>(p.get(field::domain));
  if (observations.size() == 0 || observations.size() % d != 0) return status::invalid_argument;
  const std::size_t count = observations.size() / d;
  const auto cap = static_cast<std::size_t>(p.get(field::observations));
  const std::size_t used = count < cap ? count : cap;  // P6
  const int64_t lo = p.get_signed(field::clip_lo), hi = p.get_signed(field::clip_hi);
  // tau T~ <= max|clip| T~ < 2^63 on valid blocks (wire_format.md 3.3), as is every |S_j|.
  const uint64_t bar = p.get(field::vote_threshold) * used;
  const std::size_t s = kept_.size();
  std::size_t held = 0;
  // kept_[0..held) by decreasing |S_j|, ties in increasing j (coordinates arrive in increasing j,
  // so a later coordinate displaces only a strictly smaller one).
  for (std::size_t j = 0; j < d; ++j) {
    int64_t sum = 0;
    for (std::size_t t = 0; t < used; ++t) {
      const int64_t x = observations[t * d + j];
      sum += x < lo ? lo : x > hi ? hi : x;
    }
    const uint64_t magnitude = sum < 0 ? 0 - static_cast<uint64_t>(sum) : static_cast<uint64_t>(sum);
    if (magnitude < bar || (held == s && magnitude <= magnitudes_[s - 1])) continue;
    std::size_t at = held < s ? held++ : s - 1;
    for (; at > 0 && magnitudes_[at - 1] < magnitude; --at) {
      magnitudes_[at] = magnitudes_[at - 1];
      kept_[at] = kept_[at - 1];
    }
    magnitudes_[at] = magnitude;
    kept_[at] = static_cast<uint32_t>(j);
  }
  // Increasing index order (insertion sort of at most s entries).
  for (std::size_t i = 1; i < held; ++i) {
    const uint32_t v = kept_[i];
    std::size_t k = i;
    for (; k > 0 && kept_[k - 1] > v; --k) kept_[k] = kept_[k - 1];
    kept_[k] = v;
  }
  *out = span<const uint32_t>(kept_.data(), held);
  return status::ok;
}

status kent_support_context::sign_sum(uint64_t seed, span<const uint32_t> kept, int64_t* out) noexcept {
  *out = 0;
  unsigned char key[random::chacha20_key_size];
  random::projection_key(seed, key);
  const auto d = static_cast<uint32_t>(block_.params.get(field::domain));
  const status s = random::projection_row_signs(kernels::native(), key, d, 0, signs_);
  if (s != status::ok) return s;
  int64_t sum = 0;
  for (uint32_t j : kept) sum += ((signs_[j / 32] >> (j % 32)) & 1u) != 0 ? -1 : 1;
  *out = sum;
  return status::ok;
}

status kent_support_context::randomize(span<const int64_t> observations, random::drbg& rng, span<unsigned char> out,
                                       framing f, std::size_t* written) noexcept {
  return emit(
      block_.params, block_.fingerprint, [&](wire::report* r) { return fields(observations, rng, r); }, f, out,
      written);
}

}  // namespace ldp::device

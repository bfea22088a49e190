#include "ldp/device/winsorized.h"

#include "ldp/kernels/kernel_table.h"
#include "ldp/wire/central_params.h"

namespace ldp::device {
namespace {

using wire::field;

bool is_winsorized(const wire::params& p) {
  return p.mech == wire::mechanism::winsorized_bins || p.mech == wire::mechanism::winsorized_sums;
}

unsigned log2_of(uint64_t power_of_two) {
  unsigned l = 0;
  while ((uint64_t{1} << l) < power_of_two) ++l;
  return l;
}

}  // namespace

status winsorized_rotated_mean(const wire::params& p, span<const int64_t> samples, std::size_t count,
                               const winsorized_workspace& ws) noexcept {
  if (!is_winsorized(p) || wire::validate(p) != status::ok || count == 0) return status::invalid_argument;
  const auto d = static_cast<std::size_t>(p.get(field::vector_dim));
  const auto padded = static_cast<uint32_t>(p.get(field::hadamard_dim));
  if (samples.size() / d != count || samples.size() % d != 0) return status::invalid_argument;
  if (ws.rotated.size() < padded || ws.signs.size() < winsorized_sign_words(p)) return status::workspace_too_small;
  const std::size_t used = count < p.get(field::observations) ? count : static_cast<std::size_t>(p.get(field::observations));
  const int64_t lo = p.get_signed(field::clip_lo), hi = p.get_signed(field::clip_hi);
  for (std::size_t i = 0; i < padded; ++i) {
    if (i >= d) {
      ws.rotated[i] = 0;
      continue;
    }
    int64_t sum = 0;  // |sum| <= m M < 2^32 * 2^31
    for (std::size_t s = 0; s < used; ++s) {
      const int64_t x = samples[s * d + i];
      sum += x < lo ? lo : x > hi ? hi : x;
    }
    // |mean| <= M < 2^31 (wire_format.md 3.3): fits int32, and d M < 2^31 bounds every FWHT stage.
    ws.rotated[i] = static_cast<int32_t>(wire::rounded_mean(sum, used));
  }
  const status s = random::rotation_signs(p.rotation_seed, padded, ws.signs);
  if (s != status::ok) return s;
  kernels::native().rotate_i32(ws.rotated.data(), ws.signs.data(), log2_of(padded));
  return status::ok;
}

status winsorized_fields(const wire::params& p, span<const unsigned char> windows, span<const int64_t> samples,
                         std::size_t count, const winsorized_workspace& ws, wire::report* r) noexcept {
  *r = wire::report{};
  const bool round2 = p.mech == wire::mechanism::winsorized_sums;
  if (round2) {
    const status checked = wire::check_window_list(p, windows);
    if (checked != status::ok) return checked;
  }
  const auto padded = static_cast<std::size_t>(p.get(field::hadamard_dim));
  if (ws.values.size() < padded) return status::workspace_too_small;
  const status s = winsorized_rotated_mean(p, samples, count, ws);
  if (s != status::ok) return s;
  for (std::size_t j = 0; j < padded; ++j) {
    ws.values[j] = round2 ? wire::winsorized_clamp(p, wire::window_list_bin(p, windows, j), ws.rotated[j])
                          : int64_t{wire::winsorized_bin(p, ws.rotated[j])};
  }
  r->mech = p.mech;
  r->values = span<const int64_t>(ws.values.data(), padded);
  return status::ok;
}

status encode_winsorized_payload(const wire::params& p, span<const unsigned char> windows,
                                 span<const int64_t> samples, std::size_t count, const winsorized_workspace& ws,
                                 span<unsigned char> out, std::size_t* written) noexcept {
  *written = 0;
  wire::report r;
  const status s = winsorized_fields(p, windows, samples, count, ws, &r);
  if (s != status::ok) return s;
  return wire::encode_payload(p, r, out, written);
}

status encode_winsorized(const wire::params& p, uint64_t fingerprint, span<const unsigned char> windows,
                         span<const int64_t> samples, std::size_t count, const winsorized_workspace& ws,
                         span<unsigned char> out, std::size_t* written) noexcept {
  *written = 0;
  wire::report r;
  const status s = winsorized_fields(p, windows, samples, count, ws, &r);
  if (s != status::ok) return s;
  return wire::encode_report(p, fingerprint, r, out, written);
}

}  // namespace ldp::device

#include "ldp/wire/central_params.h"

#include "ldp/base/bits.h"
#include "ldp/wire/checksum.h"

namespace ldp::wire {

bool sparse_projection_ranges_hold(const params& p) noexcept {
  const int64_t l = p.get_signed(field::clip_hi);
  if (l < 1 || p.get_signed(field::clip_lo) != -l) return false;
  uint64_t squared = 0, bound = 0;
  return checked_mul(static_cast<uint64_t>(l), static_cast<uint64_t>(l), &squared) &&
         checked_mul(squared, p.get(field::sparsity), &bound) && bound < (uint64_t{1} << 63);
}

status make_sparse_projection(uint32_t d, uint32_t s, unsigned frac_bits, int64_t radius_fixed, params* out) noexcept {
  *out = params{};
  params p;
  p.mech = mechanism::sparse_projection;
  p.set(field::domain, d).set(field::sparsity, s).set(field::frac_bits, frac_bits);
  p.set_signed(field::clip_lo, radius_fixed < 1 ? 0 : -radius_fixed).set_signed(field::clip_hi, radius_fixed);
  if (validate(p) != status::ok) return status::invalid_argument;
  *out = p;
  return status::ok;
}

namespace {

constexpr unsigned char window_key[16] = {'l', 'd', 'p', 'k', 'i', 't', ' ', 'w',
                                          'i', 'n', 'd', 'o', 'w', ' ', 'v', '1'};

uint64_t magnitude(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }

bool is_winsorized(const params& p) {
  return p.mech == mechanism::winsorized_bins || p.mech == mechanism::winsorized_sums;
}

}  // namespace

bool winsorized_ranges_hold(const params& p) noexcept {
  const uint64_t rotated = p.get(field::hadamard_dim), d = p.get(field::vector_dim);
  if (p.get(field::domain) != rotated || d < 1 || d > rotated) return false;
  const int64_t lo = p.get_signed(field::clip_lo), hi = p.get_signed(field::clip_hi);
  const uint64_t m = magnitude(lo) > magnitude(hi) ? magnitude(lo) : magnitude(hi);
  uint64_t bound = 0;
  if (!checked_mul(m, d, &bound) || bound >= (uint64_t{1} << 31)) return false;
  const uint64_t b = p.get(field::bin_range), tau = p.get(field::bin_half_width);
  if (b < 1 || b >= (uint64_t{1} << 31) || tau < 1 || winsorized_bin_count(p) > (uint64_t{1} << 24)) return false;
  if (p.mech == mechanism::winsorized_sums) {
    const uint64_t w = p.get(field::window_half_width);
    if (w < 1 || w >= (uint64_t{1} << 31) || b + w >= (uint64_t{1} << 31)) return false;
  }
  return true;
}

status make_winsorized_bins(uint32_t d, unsigned frac_bits, int64_t clip_lo, int64_t clip_hi, uint32_t m,
                            uint64_t bin_range, uint64_t tau, const unsigned char rotation_seed[seed_size],
                            params* out) noexcept {
  *out = params{};
  uint32_t rotated = 1;
  while (rotated < d && rotated <= (uint32_t{1} << 29)) rotated <<= 1;
  params p;
  p.mech = mechanism::winsorized_bins;
  p.set(field::domain, rotated).set(field::hadamard_dim, rotated).set(field::vector_dim, d);
  p.set(field::frac_bits, frac_bits).set_signed(field::clip_lo, clip_lo).set_signed(field::clip_hi, clip_hi);
  p.set(field::observations, m).set(field::bin_range, bin_range).set(field::bin_half_width, tau);
  p.set_seed(field::rotation_seed, rotation_seed);
  if (validate(p) != status::ok) return status::invalid_argument;
  *out = p;
  return status::ok;
}

status encode_window_list(const params& round1, span<const uint32_t> bins, span<unsigned char> out,
                          std::size_t* written) noexcept {
  *written = 0;
  if (!is_winsorized(round1) || validate(round1) != status::ok) return status::invalid_argument;
  const uint64_t l = winsorized_bin_count(round1);
  if (bins.size() != round1.get(field::hadamard_dim)) return status::invalid_argument;
  const std::size_t size = window_list_size(round1);
  if (out.size() < size) return status::buffer_too_small;
  const std::size_t width = index_bytes(l);
  unsigned char* o = out.data();
  *o++ = window_list_version;
  store_le64(o, fingerprint(round1));
  o += 8;
  for (uint32_t k : bins) {
    if (k >= l) return status::out_of_range;
    for (std::size_t i = 0; i < width; ++i) *o++ = static_cast<unsigned char>(k >> (8 * i));
  }
  *written = size;
  return status::ok;
}

uint64_t window_list_digest(span<const unsigned char> list) noexcept { return siphash24(window_key, list); }

status check_window_list(const params& round2, span<const unsigned char> list) noexcept {
  if (round2.mech != mechanism::winsorized_sums || validate(round2) != status::ok) return status::invalid_argument;
  if (list.size() != window_list_size(round2)) return status::wrong_length;
  if (list[0] != window_list_version) return status::unsupported_version;
  if (window_list_digest(list) != round2.get(field::window_digest)) return status::parameter_mismatch;
  // The digest matched the server's own encoding, whose bins are all < l; checking again costs
  // one pass and keeps a corrupted server from driving a device out of range.
  const uint64_t l = winsorized_bin_count(round2);
  for (std::size_t j = 0; j < round2.get(field::hadamard_dim); ++j) {
    if (window_list_bin(round2, list, j) >= l) return status::out_of_range;
  }
  return status::ok;
}

uint32_t window_list_bin(const params& p, span<const unsigned char> list, std::size_t j) noexcept {
  const std::size_t width = index_bytes(winsorized_bin_count(p));
  const unsigned char* at = list.data() + 9 + j * width;
  uint32_t k = 0;
  for (std::size_t i = 0; i < width; ++i) k |= uint32_t{at[i]} << (8 * i);
  return k;
}

status make_winsorized_sums(const params& round1, uint64_t w, span<const unsigned char> list, params* out) noexcept {
  *out = params{};
  if (round1.mech != mechanism::winsorized_bins || validate(round1) != status::ok) return status::invalid_argument;
  if (list.size() != window_list_size(round1) || list[0] != window_list_version ||
      load_le64(list.data() + 1) != fingerprint(round1)) {
    return status::invalid_argument;
  }
  params p = round1;
  p.mech = mechanism::winsorized_sums;
  p.set(field::window_half_width, w).set(field::window_digest, window_list_digest(list));
  if (validate(p) != status::ok) return status::invalid_argument;
  *out = p;
  return status::ok;
}

}  // namespace ldp::wire

#include "ldp/wire/string_params.h"

#include "derivation.h"
#include "ldp/wire/checksum.h"

namespace ldp::wire {
namespace {

// docs/mechanisms.md F.1: SipHash-2-4 under this public key over a message whose first byte names its
// kind ('P' prefix, 'R' puzzle, 'F' fragment, 'W' word), so items of different kinds never share a
// message; the top 32 bits of the output are reduced to [0, d) by multiply-shift.
constexpr unsigned char string_key[16] = {'l', 'd', 'p', 'k', 'i', 't', ' ', 's',
                                          't', 'r', 'i', 'n', 'g', 's', ' ', '1'};

uint64_t string_hash(const unsigned char* message, std::size_t size) noexcept {
  return siphash24(string_key, span<const unsigned char>(message, size));
}

uint32_t to_domain(const params& p, uint64_t h) noexcept {
  return static_cast<uint32_t>(((h >> 32) * p.get(field::domain)) >> 32);
}

uint32_t string_length_of(const params& p) noexcept { return static_cast<uint32_t>(p.get(field::string_length)); }

// A discovery block: the inner oracle's block made by `inner`, then the string fields.
derived_params with_strings(mechanism m, const derived_params& inner, uint32_t length, uint32_t eta) noexcept {
  derived_params out = inner;
  if (out.code != status::ok) return derived_params{params{}, 0, status::invalid_argument};
  params p = inner.block;
  p.mech = m;
  p.set(field::string_length, length);
  if (m != mechanism::sfp) p.set(field::prefix_bits, eta);
  out.block = p;
  out.code = validate(p) == status::ok ? status::ok : status::invalid_argument;
  return out;
}

uint32_t domain_or_default(uint32_t d) noexcept { return d == 0 ? string_default_domain : d; }

}  // namespace

status pad_string(const params& p, span<const unsigned char> s, padded_string* out) noexcept {
  *out = padded_string{};
  if (s.empty() || s.size() > string_length_of(p)) return status::out_of_range;
  for (const unsigned char c : s) {
    if (c == 0) return status::out_of_range;
  }
  for (std::size_t i = 0; i < s.size(); ++i) out->bytes[i] = s[i];
  return status::ok;
}

uint32_t prefix_item(const params& p, uint32_t bits, const unsigned char* prefix) noexcept {
  // 'P', the length in bits (u16 LE), then the ceil(bits / 8) bytes with the bits past `bits` cleared.
  unsigned char message[3 + max_string_bytes] = {'P', static_cast<unsigned char>(bits & 0xffu),
                                                 static_cast<unsigned char>(bits >> 8)};
  const uint32_t bytes = (bits + 7) / 8;
  for (uint32_t i = 0; i < bytes; ++i) message[3 + i] = prefix[i];
  if (bits % 8 != 0) message[2 + bytes] &= static_cast<unsigned char>(0xffu << (8 - bits % 8));
  return to_domain(p, string_hash(message, 3 + bytes));
}

uint32_t sfp_puzzle(const params& p, const padded_string& word) noexcept {
  unsigned char message[1 + max_string_bytes] = {'R'};
  const uint32_t length = string_length_of(p);
  for (uint32_t i = 0; i < length; ++i) message[1 + i] = word.bytes[i];
  return static_cast<uint32_t>(string_hash(message, 1 + length) >> 56);
}

uint32_t sfp_fragment_item(const params& p, uint32_t g, uint32_t puzzle,
                           const unsigned char fragment[sfp_fragment_bytes]) noexcept {
  const unsigned char message[5] = {'F', static_cast<unsigned char>(g), static_cast<unsigned char>(puzzle), fragment[0],
                                    fragment[1]};
  return to_domain(p, string_hash(message, sizeof message));
}

uint32_t sfp_word_item(const params& p, const padded_string& word) noexcept {
  unsigned char message[1 + max_string_bytes] = {'W'};
  const uint32_t length = string_length_of(p);
  for (uint32_t i = 0; i < length; ++i) message[1 + i] = word.bytes[i];
  return to_domain(p, string_hash(message, 1 + length));
}

uint32_t string_item(const params& p, uint32_t g, const padded_string& s) noexcept {
  switch (string_of(p.mech)) {
    case string_member::pem:
    case string_member::treehist: return prefix_item(p, string_prefix_length(p, g), s.bytes);
    case string_member::sfp:
      if (sfp_word_group(p, g)) return sfp_word_item(p, s);
      return sfp_fragment_item(p, g, sfp_puzzle(p, s), s.bytes + sfp_fragment_bytes * g);
  }
  return 0;
}

derived_params make_pem(double epsilon, uint32_t length, uint32_t eta, uint32_t d, uint32_t g) noexcept {
  derived_params inner = make_olh(epsilon, domain_or_default(d), g);
  inner.block.mech = mechanism::olh;  // make_olh names g = 2 blh; the inner oracle of pem is olh (F.2)
  return with_strings(mechanism::pem, inner, length, eta);
}

derived_params make_treehist(double epsilon, uint32_t length, uint32_t eta, uint32_t k, uint32_t m,
                             const unsigned char hash_seed[seed_size], uint32_t d) noexcept {
  if (hash_seed == nullptr) return derived_params{params{}, 0, status::invalid_argument};
  return with_strings(mechanism::treehist, make_hcms(epsilon, domain_or_default(d), k, m, hash_seed), length, eta);
}

derived_params make_sfp(double epsilon, uint32_t length, uint32_t k, uint32_t m,
                        const unsigned char hash_seed[seed_size], uint32_t d) noexcept {
  if (hash_seed == nullptr) return derived_params{params{}, 0, status::invalid_argument};
  return with_strings(mechanism::sfp, make_cms(epsilon, domain_or_default(d), k, m, hash_seed), length, 0);
}

bool detail::string_rules_hold(const params& p) noexcept {
  const uint64_t length = p.get(field::string_length);
  if (length < 1 || length > max_string_bytes) return false;
  if (p.mech == mechanism::sfp) {
    if (length % sfp_fragment_bytes != 0) return false;
  } else {
    const uint64_t eta = p.get(field::prefix_bits);
    if (eta != 1 && eta != 2 && eta != 4 && eta != 8) return false;
  }
  return validate(string_inner_block(p)) == status::ok;
}

}  // namespace ldp::wire

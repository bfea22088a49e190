// String items and the string-discovery blocks (docs/mechanisms.md F, docs/wire_format.md 3.2 and 5).
//
// A string item is 1..L bytes without a zero byte (L = the block's string_length <= 64), padded with
// zero bytes to L. A discovery block names an inner frequency oracle (pem: OLH, treehist: HCMS, sfp:
// CMS) and G groups; a device draws its group g uniformly before it reads its string, maps (block,
// g, string) to an item of the inner oracle's domain [0, d) with the SipHash below, and sends one
// report: g, then the inner oracle's payload of that item. Device and server share these routines,
// so a server can evaluate any candidate prefix, fragment or word the way devices derive theirs.
#ifndef LDP_WIRE_STRING_PARAMS_H
#define LDP_WIRE_STRING_PARAMS_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/params.h"
#include "ldp/wire/string_block.h"

namespace ldp::wire {

// A string item padded to max_string_bytes (bytes past L are zero too).
struct padded_string {
  unsigned char bytes[max_string_bytes] = {};
};

// Pads s into *out: out_of_range when s is empty, longer than L or holds a zero byte (nothing else is
// an item: zero is the padding, so "ab" and "ab\0" would be one item).
[[nodiscard]] status pad_string(const params& p, span<const unsigned char> s, padded_string* out) noexcept;

// The item in [0, d) that group g of block p derives from a padded string: pem and treehist, the
// prefix item of its first string_prefix_length(p, g) bits; sfp, the fragment item of its puzzle
// and bytes 2g, 2g + 1, or the word item. Precondition: validate(p) == ok, g < string_groups(p).
[[nodiscard]] uint32_t string_item(const params& p, uint32_t g, const padded_string& s) noexcept;

// The pieces, for servers evaluating candidates (a prefix's bits past `bits` are ignored, read
// most significant bit first within each byte: bit i of the string is bit 7 - i % 8 of byte i / 8).
[[nodiscard]] uint32_t prefix_item(const params& p, uint32_t bits, const unsigned char* prefix) noexcept;
[[nodiscard]] uint32_t sfp_puzzle(const params& p, const padded_string& word) noexcept;  // in [0, 256)
[[nodiscard]] uint32_t sfp_fragment_item(const params& p, uint32_t g, uint32_t puzzle,
                                         const unsigned char fragment[sfp_fragment_bytes]) noexcept;
[[nodiscard]] uint32_t sfp_word_item(const params& p, const padded_string& word) noexcept;

// Blocks from epsilon (each device sends one report, so the block's epsilon is its inner oracle's):
// strings of at most `length` bytes (1..64; sfp: even, >= 2) hashed into [0, d) (d = 0: 2^31).
// pem: OLH (g = 0 chooses, as make_olh) and prefixes grown by eta in {1, 2, 4, 8} bits a group;
// treehist: HCMS with k rows and m columns (a power of two) and eta as pem; sfp: CMS with k rows, m
// columns. invalid_argument for arguments outside those ranges.
[[nodiscard]] derived_params make_pem(double epsilon, uint32_t length, uint32_t eta, uint32_t d = 0,
                                      uint32_t g = 0) noexcept;
[[nodiscard]] derived_params make_treehist(double epsilon, uint32_t length, uint32_t eta, uint32_t k, uint32_t m,
                                           const unsigned char hash_seed[seed_size], uint32_t d = 0) noexcept;
[[nodiscard]] derived_params make_sfp(double epsilon, uint32_t length, uint32_t k, uint32_t m,
                                      const unsigned char hash_seed[seed_size], uint32_t d = 0) noexcept;

namespace detail {
// The block rules of wire_format.md 3.3 for string-discovery blocks (string_params.cpp): the string
// length and prefix step in range, and a valid inner block.
[[nodiscard]] bool string_rules_hold(const params& p) noexcept;
}  // namespace detail

}  // namespace ldp::wire

#endif

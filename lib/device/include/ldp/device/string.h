// Device side of string discovery (docs/mechanisms.md F.1-F.4): pem, treehist and sfp. A device holds
// one string of 1..L bytes (no zero byte), draws its group g uniformly in [0, G), derives the item of
// group g from (block, g, string) with the shared SipHash of lib/wire (string_params.h) and sends one
// report: g, then its inner oracle's payload of that item (pem: OLH, treehist: HCMS, sfp: CMS;
// docs/wire_format.md 5, group_round).
//
// Privacy: g is drawn from the generator alone, so it says nothing about the string; for every g the
// rest of the report is the inner oracle's report of some item of [0, d), epsilon-LDP over all items
// (docs/mechanisms.md A.4, A.6). The pair is therefore LDP with the inner oracle's epsilon, the
// block's implemented_epsilon (F.1).
#ifndef LDP_DEVICE_STRING_H
#define LDP_DEVICE_STRING_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/bits.h"
#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/context.h"
#include "ldp/device/frequency.h"
#include "ldp/random/drbg.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"
#include "ldp/wire/string_block.h"
#include "ldp/wire/string_params.h"

namespace ldp::device {

// A string-discovery block ready to randomize strings (see context.h): a frequency_context of the
// inner block (string_inner_block) on the same workspace, whose reports it relabels with the outer
// mechanism and the group.
class string_context {
 public:
  [[nodiscard]] static constexpr std::size_t workspace_size(const wire::params& p) noexcept {
    return frequency_context::workspace_size(wire::string_inner_block(p));
  }

  // invalid_argument for a block that is not string discovery (or a misaligned workspace),
  // validate()'s status for an invalid one, else the inner frequency_context's init status
  // (workspace_too_small below workspace_size(p)). *out randomizes nothing unless init succeeded.
  [[nodiscard]] static status init(span<std::byte> workspace, const wire::params& p, string_context* out) noexcept;

  const wire::params& parameters() const noexcept { return block_.params; }
  uint64_t fingerprint() const noexcept { return block_.fingerprint; }

  // The report fields of string s with coins from `coins` (drbg_coins on the device; the audits
  // pass their own): r->group, then the inner oracle's fields of the derived item (r->mech is the
  // discovery mechanism). out_of_range for a string pad_string refuses (empty, longer than L, a
  // zero byte); nothing is drawn then.
  template <class Coins>
  status fields(span<const unsigned char> s, Coins& coins, wire::report* r) noexcept;

  // The report or payload of s (out: max_output_size(p, f) bytes always suffice).
  [[nodiscard]] status randomize(span<const unsigned char> s, random::drbg& rng, span<unsigned char> out, framing f,
                                 std::size_t* written) noexcept;

 private:
  validated_block block_{};
  frequency_context inner_{};
};

template <class Coins>
status string_context::fields(span<const unsigned char> s, Coins& coins, wire::report* r) noexcept {
  const wire::params& p = block_.params;
  *r = wire::report{};
  r->mech = p.mech;
  if (!block_.ready) return status::invalid_argument;
  // Only whether s is an item at all is read before the draw (a refusal draws nothing); the group
  // is the first coin and does not depend on the string's bytes (F.1).
  wire::padded_string padded;
  const status accepted = wire::pad_string(p, s, &padded);
  if (accepted != status::ok) return accepted;
  const uint32_t g = coins.uniform_below(wire::string_groups(p));
  const uint32_t item = wire::string_item(p, g, padded);
  secure_zero(padded.bytes, sizeof padded.bytes);  // the string does not outlive the report on the stack
  const status inner = inner_.fields(item, coins, r);
  r->mech = p.mech;
  r->group = g;
  return inner;
}

}  // namespace ldp::device

#endif

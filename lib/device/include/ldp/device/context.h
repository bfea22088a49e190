// What every device context shares (the static-context pattern: size, init once, randomize many).
// A context is a small value type made by init() from a parameter block and caller memory: init
// validates the block once, caches its fingerprint and carves the buffers it needs out of one
// byte workspace of workspace_size(p) bytes, which must outlive the context. randomize() then
// writes either a full report (header + payload, docs/wire_format.md section 4) or the payload alone
// (section 5) for a batch record (section 6), as the caller's `framing` asks.
#ifndef LDP_DEVICE_CONTEXT_H
#define LDP_DEVICE_CONTEXT_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/random/rotation.h"
#include "ldp/wire/mechanism.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"

namespace ldp::device {

// The device context that takes a mechanism's input (one per header of this module). mean_context
// also randomizes the local mean of a kent-refine device that the caller computed.
enum class family : uint8_t {
  none,
  frequency,
  mean,
  vector_mean,
  sparse_projection,
  user_level,
  winsorized,
  unit_vector,
  projected_unit,  // the unit-vector family's projunit and fastprojunit (projected_unit.h)
  string,          // pem, treehist and sfp (string.h)
  distribution,    // square-wave, hierarchical and haar (distribution.h)
  kent_support,    // Kent M4a's support vote (kent_support.h)
  public_coin,     // bernstein-1bit and bernstein-genprot (public_coin.h)
  glm,             // glm-copies, the GLM learner's noisy copies (glm.h)
};

// Derived from the mechanism table's family (and, for the means, the member: laplace-vector takes
// a vector, so the vector context randomizes it, and so the bernstein member's grid losses).
[[nodiscard]] constexpr family family_of(wire::mechanism m) noexcept {
  const wire::mechanism_row* row = wire::find_mechanism(m);
  if (row == nullptr) return family::none;
  switch (row->family) {
    case wire::mechanism_family::frequency_oracle: return family::frequency;
    case wire::mechanism_family::mean:
      switch (wire::mean_of(m)) {
        case wire::mean_member::laplace:
        case wire::mean_member::duchi: return family::mean;
        case wire::mean_member::laplace_vector:
        case wire::mean_member::bernstein:  // H.1: a laplace-vector of grid losses
        case wire::mean_member::kway_marginals:
        case wire::mean_member::smooth_queries: return family::vector_mean;
      }
      break;
    case wire::mechanism_family::vector_mean: return family::vector_mean;
    case wire::mechanism_family::sparse_projection: return family::sparse_projection;
    case wire::mechanism_family::user_level_vote:
    case wire::mechanism_family::user_level_refine: return family::user_level;
    case wire::mechanism_family::winsorized_bins:
    case wire::mechanism_family::winsorized_sums: return family::winsorized;
    case wire::mechanism_family::unit_vector:
      switch (wire::unit_vector_of(m)) {
        case wire::unit_vector_member::l2_ball:
        case wire::unit_vector_member::privunitg: return family::unit_vector;
        case wire::unit_vector_member::projunit:
        case wire::unit_vector_member::fastprojunit: return family::projected_unit;
      }
      break;
    case wire::mechanism_family::string_discovery: return family::string;
    case wire::mechanism_family::user_level_support: return family::kent_support;
    case wire::mechanism_family::distribution: return family::distribution;
    case wire::mechanism_family::public_coin: return family::public_coin;
    case wire::mechanism_family::gaussian_copies: return family::glm;
  }
  return family::none;  // a value outside the enumerations
}

// The block a context randomizes for, set by the last step of a successful init() (every check
// passed), with its fingerprint cached for the report headers; randomize() refuses a context whose
// block is not ready (default-constructed, or init() failed).
struct validated_block {
  wire::params params{};
  uint64_t fingerprint = 0;
  bool ready = false;

  void accept(const wire::params& p) noexcept {
    params = p;
    fingerprint = wire::fingerprint(p);
    ready = true;
  }
};

// What randomize() writes: a report carries the header (and the cached fingerprint), a batch record
// the payload alone.
enum class framing : uint8_t { report, payload };

// Bytes that always hold one output of the block in that framing.
[[nodiscard]] constexpr std::size_t max_output_size(const wire::params& p, framing f) noexcept {
  return f == framing::report ? wire::max_report_size(p) : wire::max_payload_size(p);
}

// The one step every randomize() shares: fields(&r) fills the report (pointing into the context's
// workspace), which is then encoded in the asked framing. *written is 0 unless a report was written.
// Precondition: p passed validate() (every context's init checks it once, so no report re-checks it).
template <class Fields>
[[nodiscard]] status emit(const wire::params& p, uint64_t fingerprint, Fields fields, framing f,
                          span<unsigned char> out, std::size_t* written) noexcept {
  *written = 0;
  wire::report r;
  const status s = fields(&r);
  if (s != status::ok) return s;
  return f == framing::report ? wire::encode_report_validated(p, fingerprint, r, out, written)
                              : wire::encode_payload_validated(p, r, out, written);
}

// A workspace starts at a multiple of this (a uint64_t array, or alignas(8) bytes); the buffers a
// context carves from it are aligned within it.
inline constexpr std::size_t workspace_alignment = alignof(uint64_t);

// Byte offsets of a context's buffers, one after the other, each aligned for its type. The same
// constexpr layout gives workspace_size() and the offsets init() carves at, so they cannot drift.
class workspace_layout {
 public:
  // The offset of `count` values of T, placed after everything placed so far.
  template <class T>
  constexpr std::size_t place(std::size_t count) noexcept {
    static_assert(alignof(T) <= workspace_alignment);
    size_ = round_up(size_, alignof(T));
    const std::size_t at = size_;
    size_ += count * sizeof(T);
    return at;
  }
  // Whole aligned units, so that an array of uint64_t of size() / 8 holds the workspace exactly.
  [[nodiscard]] constexpr std::size_t size() const noexcept { return round_up(size_, workspace_alignment); }

 private:
  static constexpr std::size_t round_up(std::size_t n, std::size_t unit) noexcept {
    return (n + unit - 1) / unit * unit;
  }
  std::size_t size_ = 0;
};

// init()'s checks of the caller's memory: workspace_too_small below `size` bytes, invalid_argument
// for a workspace that does not start on workspace_alignment (unless none is needed).
[[nodiscard]] inline status check_workspace(span<std::byte> workspace, std::size_t size) noexcept {
  if (workspace.size() < size) return status::workspace_too_small;
  const bool aligned = reinterpret_cast<std::uintptr_t>(workspace.data()) % workspace_alignment == 0;
  return size == 0 || aligned ? status::ok : status::invalid_argument;
}

// `count` values of T at byte `offset` of a checked workspace (offset from a workspace_layout).
template <class T>
span<T> carve(span<std::byte> workspace, std::size_t offset, std::size_t count) noexcept {
  return {reinterpret_cast<T*>(workspace.data() + offset), count};
}

// The rotation of docs/mechanisms.md B.4 in a context's workspace: the sign words of D, derived once
// by init() from the block's public seed, and the d~ int32 values each randomization rotates in
// place. vector-duchi/-laplace, M3 of the Kent protocols and both winsorized rounds share it.
struct rotation_memory {
  span<uint32_t> signs;
  span<int32_t> values;
};

struct rotation_offsets {
  std::size_t signs = 0, values = 0;  // byte offsets
};

// Places the rotation of d~ = padded coordinates (nothing for 0) after what `l` holds.
constexpr rotation_offsets place_rotation(workspace_layout& l, uint32_t padded) noexcept {
  rotation_offsets at;
  if (padded == 0) return at;
  at.signs = l.place<uint32_t>(random::rotation_sign_words(padded));
  at.values = l.place<int32_t>(padded);
  return at;
}

// The rotation of block p (hadamard_dim = d~) carved at `at` of a checked workspace, its signs
// derived.
[[nodiscard]] inline status carve_rotation(span<std::byte> workspace, rotation_offsets at, const wire::params& p,
                                           rotation_memory* out) noexcept {
  const auto padded = static_cast<uint32_t>(p.get(wire::field::hadamard_dim));
  out->signs = carve<uint32_t>(workspace, at.signs, random::rotation_sign_words(padded));
  out->values = carve<int32_t>(workspace, at.values, padded);
  return random::rotation_signs(p.rotation_seed, padded, out->signs);
}

}  // namespace ldp::device

#endif

// Mechanism identifiers, payload kinds and families (docs/wire_format.md, "Mechanisms"), and the
// queries on them, all answered by the mechanism table (mechanism_table.h).
#ifndef LDP_WIRE_MECHANISM_H
#define LDP_WIRE_MECHANISM_H

#include <cstddef>
#include <cstdint>

#include "ldp/wire/mechanism_table.h"

namespace ldp::wire {
namespace detail {

// Each id's row + 1 (0: no row), so that the per-report queries are one load, not a search.
struct mechanism_index {
  uint8_t row_plus_one[256];
};

constexpr mechanism_index make_mechanism_index() noexcept {
  mechanism_index out{};
  for (std::size_t i = 0; i < mechanism_count; ++i) {
    out.row_plus_one[static_cast<uint8_t>(mechanism_table[i].id)] = static_cast<uint8_t>(i + 1);
  }
  return out;
}

inline constexpr mechanism_index mechanism_rows = make_mechanism_index();

constexpr bool same_name(const char* a, const char* b) noexcept {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

// No id twice, none of them `none`, no wire name twice: the table is a function both ways.
constexpr bool table_is_consistent() noexcept {
  for (std::size_t i = 0; i < mechanism_count; ++i) {
    if (mechanism_table[i].id == mechanism::none || mechanism_table[i].wire_name[0] == '\0') return false;
    for (std::size_t j = i + 1; j < mechanism_count; ++j) {
      if (mechanism_table[i].id == mechanism_table[j].id ||
          same_name(mechanism_table[i].wire_name, mechanism_table[j].wire_name)) {
        return false;
      }
    }
  }
  return true;
}
static_assert(mechanism_count < 256 && table_is_consistent(), "mechanism_table: an id or wire name twice");

// How many rows of family f there are, and how many of them have member value v.
constexpr int family_rows(mechanism_family f) noexcept {
  int n = 0;
  for (const mechanism_row& row : mechanism_table) n += row.family == f ? 1 : 0;
  return n;
}
constexpr int member_rows(mechanism_family f, int v) noexcept {
  int n = 0;
  for (const mechanism_row& row : mechanism_table) n += row.family == f && row.member.value == v ? 1 : 0;
  return n;
}

// The members of f are 0, 1, ..., one row each: with -Wswitch, a switch over the member enum then
// covers exactly the table's rows of f.
constexpr bool members_are_dense(mechanism_family f) noexcept {
  for (int v = 0; v < family_rows(f); ++v) {
    if (member_rows(f, v) != 1) return false;
  }
  return true;
}

// The member column is consistent: the families with a member enum number their rows densely, the
// user-level rounds name a member of the family that counts them (an oracle, a mean), and the
// families of one mechanism have member 0.
constexpr bool members_are_consistent() noexcept {
  for (const mechanism_row& row : mechanism_table) {
    const int v = row.member.value;
    switch (row.family) {
      case mechanism_family::frequency_oracle:
      case mechanism_family::mean:
      case mechanism_family::vector_mean:
      case mechanism_family::unit_vector:
      case mechanism_family::string_discovery:
      case mechanism_family::distribution:
      case mechanism_family::public_coin:
        if (!members_are_dense(row.family)) return false;
        break;
      case mechanism_family::user_level_vote:
        if (v >= family_rows(mechanism_family::frequency_oracle)) return false;
        break;
      case mechanism_family::user_level_refine:
        if (v >= family_rows(mechanism_family::mean)) return false;
        break;
      case mechanism_family::sparse_projection:
      case mechanism_family::winsorized_bins:
      case mechanism_family::winsorized_sums:
      case mechanism_family::user_level_support:
      case mechanism_family::gaussian_copies:
        if (v != 0) return false;
        break;
    }
  }
  return true;
}
static_assert(members_are_consistent(), "mechanism_table: a family member missing, twice or out of range");

constexpr uint8_t member_value(mechanism m) noexcept {
  const uint8_t row = mechanism_rows.row_plus_one[static_cast<uint8_t>(m)];
  return row == 0 ? 0 : mechanism_table[row - 1].member.value;
}

}  // namespace detail

// The row of m; null for `none` and for numbers this build does not know.
[[nodiscard]] constexpr const mechanism_row* find_mechanism(mechanism m) noexcept {
  const uint8_t row = detail::mechanism_rows.row_plus_one[static_cast<uint8_t>(m)];
  return row == 0 ? nullptr : &mechanism_table[row - 1];
}

// The row whose wire name is `name` ("grr", "kent-vote", ...); null if none is.
[[nodiscard]] constexpr const mechanism_row* find_mechanism_named(const char* name) noexcept {
  for (const mechanism_row& row : mechanism_table) {
    if (detail::same_name(row.wire_name, name)) return &row;
  }
  return nullptr;
}

// False for `none` and for numbers this build does not know.
[[nodiscard]] constexpr bool is_known(mechanism m) noexcept { return find_mechanism(m) != nullptr; }

// The payload of a known mechanism (index for unknown ones, which nothing decodes).
[[nodiscard]] constexpr payload_kind kind_of(mechanism m) noexcept {
  const mechanism_row* row = find_mechanism(m);
  return row == nullptr ? payload_kind::index : row->kind;
}

// Whether m is a known mechanism of family f.
[[nodiscard]] constexpr bool in_family(mechanism m, mechanism_family f) noexcept {
  const mechanism_row* row = find_mechanism(m);
  return row != nullptr && row->family == f;
}

// The oracle whose code randomizes, counts and estimates m's reports: m's member for a frequency
// oracle, and sue for the kent-vote, which is SUE over cells (docs/mechanisms.md C.1 P1). Meaningful
// only for those two families: callers switch on the family first.
[[nodiscard]] constexpr frequency_oracle oracle_of(mechanism m) noexcept {
  return static_cast<frequency_oracle>(detail::member_value(m));
}

// The mean mechanism m is (family mean), or is counted as (kent-refine: laplace, C.1 P2).
// Meaningful only for those two families.
[[nodiscard]] constexpr mean_member mean_of(mechanism m) noexcept {
  return static_cast<mean_member>(detail::member_value(m));
}

// The vector mean mechanism m is; meaningful only for family vector_mean.
[[nodiscard]] constexpr vector_mean_member vector_mean_of(mechanism m) noexcept {
  return static_cast<vector_mean_member>(detail::member_value(m));
}

// The unit-vector mechanism m is; meaningful only for family unit_vector.
[[nodiscard]] constexpr unit_vector_member unit_vector_of(mechanism m) noexcept {
  return static_cast<unit_vector_member>(detail::member_value(m));
}

// The string-discovery mechanism m is; meaningful only for family string_discovery.
[[nodiscard]] constexpr string_member string_of(mechanism m) noexcept {
  return static_cast<string_member>(detail::member_value(m));
}

// The distribution mechanism m is; meaningful only for family distribution.
[[nodiscard]] constexpr distribution_member distribution_of(mechanism m) noexcept {
  return static_cast<distribution_member>(detail::member_value(m));
}

// The public-coin learner m is; meaningful only for family public_coin.
[[nodiscard]] constexpr public_coin_member public_coin_of(mechanism m) noexcept {
  return static_cast<public_coin_member>(detail::member_value(m));
}

// The fields a valid block of m holds (docs/wire_format.md 3.2); none for unknown values.
[[nodiscard]] constexpr field_set required_fields(mechanism m) noexcept {
  const mechanism_row* row = find_mechanism(m);
  return row == nullptr ? 0 : row->required;
}

// "grr", "sue", ..., "kent-vote": the wire name (docs/wire_format.md table 2); "" for unknown values.
[[nodiscard]] constexpr const char* mechanism_name(mechanism m) noexcept {
  const mechanism_row* row = find_mechanism(m);
  return row == nullptr ? "" : row->wire_name;
}

}  // namespace ldp::wire

#endif

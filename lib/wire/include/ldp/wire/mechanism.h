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

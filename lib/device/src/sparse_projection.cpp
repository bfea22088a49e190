#include "ldp/device/sparse_projection.h"

#include "ldp/wire/central_params.h"

namespace ldp::device {
namespace {

using wire::field;

// The kept pairs, in the context's workspace.
struct sparse_workspace {
  span<uint32_t> indices;
  span<int64_t> values;
};

uint64_t magnitude(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }

void swap_entries(sparse_workspace ws, std::size_t a, std::size_t b) {
  const uint32_t i = ws.indices[a];
  ws.indices[a] = ws.indices[b];
  ws.indices[b] = i;
  const int64_t v = ws.values[a];
  ws.values[a] = ws.values[b];
  ws.values[b] = v;
}

// Restores the heap below position `at` among the first n entries; `above(a, b)` says entry a
// belongs nearer the root than entry b.
template <class Above>
void sift_down(sparse_workspace ws, std::size_t n, std::size_t at, Above above) {
  for (;;) {
    std::size_t top = at;
    const std::size_t left = 2 * at + 1, right = left + 1;
    if (left < n && above(ws, left, top)) top = left;
    if (right < n && above(ws, right, top)) top = right;
    if (top == at) return;
    swap_entries(ws, at, top);
    at = top;
  }
}

template <class Above>
void make_heap(sparse_workspace ws, std::size_t n, Above above) {
  for (std::size_t at = n / 2; at-- > 0;) sift_down(ws, n, at, above);
}

// The weakest kept entry sits at the root: smallest magnitude, and among equal magnitudes the
// larger index (ties go to the lower index).
bool weaker(sparse_workspace ws, std::size_t a, std::size_t b) {
  const uint64_t ma = magnitude(ws.values[a]), mb = magnitude(ws.values[b]);
  return ma < mb || (ma == mb && ws.indices[a] > ws.indices[b]);
}

bool larger_index(sparse_workspace ws, std::size_t a, std::size_t b) { return ws.indices[a] > ws.indices[b]; }

// Step 1: the s strongest non-zero candidates into ws, in any order; their count.
status select_strongest(uint64_t d, std::size_t s, span<const uint32_t> indices, span<const int64_t> values,
                        sparse_workspace ws, std::size_t* kept) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    if (i > 0 && indices[i] <= indices[i - 1]) return status::invalid_argument;
    if (indices[i] >= d) return status::out_of_range;
    const int64_t v = values[i];
    if (v == 0) continue;
    if (n < s) {
      ws.indices[n] = indices[i];
      ws.values[n] = v;
      if (++n == s) make_heap(ws, n, weaker);
    } else if (magnitude(v) > magnitude(ws.values[0])) {
      // Indices increase, so a candidate as strong as the root loses the tie and is not taken.
      ws.indices[0] = indices[i];
      ws.values[0] = v;
      sift_down(ws, n, 0, weaker);
    }
  }
  *kept = n;
  return status::ok;
}

// Heapsort by index: the wire format wants strictly increasing indices.
void sort_by_index(sparse_workspace ws, std::size_t n) {
  make_heap(ws, n, larger_index);
  for (std::size_t end = n; end > 1; --end) {
    swap_entries(ws, 0, end - 1);
    sift_down(ws, end - 1, 0, larger_index);
  }
}

// Steps 2 and 3: clamp to the box, then scale into the l2 ball rounding toward zero; returns the
// count of non-zero values left, compacted in index order.
std::size_t clip_to_ball(int64_t radius, sparse_workspace ws, std::size_t n) {
  uint64_t squares = 0;  // <= s L^2 < 2^63 (wire_format.md 3.3)
  for (std::size_t i = 0; i < n; ++i) {
    int64_t& v = ws.values[i];
    v = v > radius ? radius : v < -radius ? -radius : v;
    squares += magnitude(v) * magnitude(v);
  }
  const auto l = static_cast<uint64_t>(radius);
  if (squares <= l * l) return n;
  // c >= ||x||_2, so |v| L / c <= |v| L / ||x||_2 and the result has norm at most L.
  const auto c = static_cast<int64_t>(wire::ceil_sqrt64(squares));
  std::size_t out = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int64_t v = ws.values[i] * radius / c;  // |v * L| <= L^2 < 2^63; division truncates
    if (v == 0) continue;
    ws.indices[out] = ws.indices[i];
    ws.values[out] = v;
    ++out;
  }
  return out;
}

}  // namespace

status sparse_projection_context::init(span<std::byte> workspace, const wire::params& p,
                                       sparse_projection_context* out) noexcept {
  *out = sparse_projection_context{};
  if (p.mech != wire::mechanism::sparse_projection) return status::invalid_argument;
  const status valid = wire::validate(p);
  if (valid != status::ok) return valid;
  const placement at = layout(p);
  const status checked = check_workspace(workspace, at.bytes.size());
  if (checked != status::ok) return checked;
  const auto s = static_cast<std::size_t>(p.get(field::sparsity));
  out->block_.accept(p);
  out->values_ = carve<int64_t>(workspace, at.values, s);
  out->indices_ = carve<uint32_t>(workspace, at.indices, s);
  return status::ok;
}

status sparse_projection_context::fields(sparse_input x, wire::report* r) noexcept {
  *r = wire::report{};
  if (!block_.ready || x.indices.size() != x.values.size()) return status::invalid_argument;
  const sparse_workspace ws{indices_, values_};
  std::size_t n = 0;
  const status selected =
      select_strongest(block_.params.get(field::domain), ws.indices.size(), x.indices, x.values, ws, &n);
  if (selected != status::ok) return selected;
  sort_by_index(ws, n);
  n = clip_to_ball(wire::sparse_radius(block_.params), ws, n);
  r->mech = block_.params.mech;
  r->indices = span<const uint32_t>(ws.indices.data(), n);
  r->values = span<const int64_t>(ws.values.data(), n);
  return status::ok;
}

status sparse_projection_context::randomize(sparse_input x, random::drbg&, span<unsigned char> out, framing f,
                                            std::size_t* written) noexcept {
  return emit(
      block_.params, block_.fingerprint, [&](wire::report* r) { return fields(x, r); }, f, out, written);
}

}  // namespace ldp::device

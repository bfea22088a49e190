// The glm-copies aggregator (ldp/server/glm.h, docs/wire_format.md 7.8).
#include "glm_state.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "estimation.h"
#include "family.h"
#include "ldp/base/bits.h"
#include "ldp/server/glm.h"
#include "ldp/wire/byte_cursor.h"
#include "ldp/wire/glm_params.h"
#include "state_io.h"

namespace ldp::server {
namespace detail {

using wire::field;

glm_aggregator::glm_aggregator(const wire::params& p)
    : aggregator(p), width_(static_cast<std::size_t>(p.get(field::domain))) {}

status glm_aggregator::ingest(const wire::report& r) noexcept {
  try {
    const std::size_t at = rows_.size();
    rows_.resize(at + width_);
    const status s = wire::read_vector(r, span<int64_t>(rows_.data() + at, width_));
    if (s != status::ok) rows_.resize(at);
    return s;
  } catch (...) {
    return status::overflow;  // out of memory: the report is rejected, the state is unchanged
  }
}

status glm_aggregator::merge_counts(const aggregator& other) {
  const auto& o = static_cast<const glm_aggregator&>(other);
  const std::size_t theirs = o.rows_.size();  // before any growth: merging into itself stays valid
  rows_.reserve(rows_.size() + theirs);
  for (std::size_t i = 0; i < theirs; ++i) rows_.push_back(o.rows_[i]);
  return status::ok;
}

std::vector<int64_t> glm_aggregator::sorted_rows() const {
  const std::size_t n = width_ == 0 ? 0 : rows_.size() / width_;
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  const auto row = [&](std::size_t i) { return rows_.begin() + static_cast<std::ptrdiff_t>(i * width_); };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::lexicographical_compare(row(a), row(a) + static_cast<std::ptrdiff_t>(width_), row(b),
                                        row(b) + static_cast<std::ptrdiff_t>(width_));
  });
  std::vector<int64_t> out;
  out.reserve(rows_.size());
  for (std::size_t i : order) out.insert(out.end(), row(i), row(i) + static_cast<std::ptrdiff_t>(width_));
  return out;
}

void glm_aggregator::write_body(std::vector<unsigned char>& out) const {
  const std::vector<int64_t> sorted = sorted_rows();
  out.reserve(out.size() + 8 * sorted.size());
  for (int64_t v : sorted) put_u64(out, static_cast<uint64_t>(v));
}

status glm_aggregator::read_body(span<const unsigned char> body) {
  uint64_t entries = 0;
  if (!checked_mul(reports_, uint64_t{width_}, &entries) || body.size() / 8 != entries || body.size() % 8 != 0) {
    return status::wrong_length;
  }
  std::vector<int64_t> read(static_cast<std::size_t>(entries));
  wire::byte_reader in(body);
  for (int64_t& v : read) v = static_cast<int64_t>(in.get_le(8));
  for (uint64_t i = 1; i < reports_; ++i) {  // canonical: rows in non-decreasing order
    const auto previous = read.begin() + static_cast<std::ptrdiff_t>((i - 1) * width_);
    const auto current = previous + static_cast<std::ptrdiff_t>(width_);
    if (std::lexicographical_compare(current, current + static_cast<std::ptrdiff_t>(width_), previous, current)) {
      return status::malformed_report;
    }
  }
  rows_ = std::move(read);
  return status::ok;
}

std::vector<estimate> glm_aggregator::estimate_impl(double z) const {
  const auto dim = static_cast<std::size_t>(width_ / wire::glm_copy_count(params_.get(field::degree)));  // p + 1
  std::vector<estimate> out;
  out.reserve(dim);
  if (reports_ == 0) {
    for (std::size_t j = 0; j < dim; ++j) out.push_back(empty_estimate(static_cast<uint32_t>(j)));
    return out;
  }
  const double step = grid_step(params_), copies = static_cast<double>(width_ / dim);
  const double n = static_cast<double>(reports_);
  const double noise = static_cast<double>(params_.get(field::noise_sigma2)) * step * step;
  for (std::size_t j = 0; j < dim; ++j) {
    long double sum = 0;
    for (std::size_t at = j; at < rows_.size(); at += dim) sum += static_cast<long double>(rows_[at]);
    const double mean = static_cast<double>(sum / (static_cast<long double>(n) * copies)) * step;
    // A feature lies in [0, 1], the label in [-1, 1]: Popoviciu's range^2 / 4 bounds their spread.
    const double spread = j + 1 < dim ? 0.25 : 1.0;
    out.push_back(
        make_estimate(static_cast<uint32_t>(j), mean, (spread + noise / copies) / n, z, variance_kind::bound));
  }
  return out;
}

status make_glm_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out) {
  *out = std::make_unique<glm_aggregator>(p);
  return status::ok;
}

bool glm_body_size(const wire::params& p, uint64_t n, uint64_t* bytes) {
  uint64_t entries = 0;
  return checked_mul(n, p.get(field::domain), &entries) && checked_mul(entries, uint64_t{8}, bytes);
}

}  // namespace detail

bool is_glm_mechanism(wire::mechanism m) noexcept { return detail::served_by(m, detail::make_glm_aggregator); }

}  // namespace ldp::server

// The histogram state of GRR, HR and FLH: h[y] of the reports' indexes, summing to n.
#include "histogram_aggregator.h"

#include "ldp/base/bits.h"
#include "state_io.h"

namespace ldp::server::detail {

status histogram_aggregator::ingest(const wire::report& r) noexcept {
  if (r.index >= hist_.size()) return status::out_of_range;  // the decoder already checks
  ++hist_[r.index];
  return status::ok;
}

status histogram_aggregator::merge_counts(const aggregator& other) {
  const auto& o = static_cast<const histogram_aggregator&>(other);
  for (std::size_t y = 0; y < hist_.size(); ++y) hist_[y] += o.hist_[y];
  return status::ok;
}

void histogram_aggregator::write_body(std::vector<unsigned char>& out) const { put_u64s(out, hist_); }

status histogram_aggregator::read_body(span<const unsigned char> body) {
  const status s = read_u64s(body, hist_);
  if (s != status::ok) return s;
  uint64_t total = 0;
  for (uint64_t h : hist_) {
    if (!checked_add(total, h, &total)) return status::malformed_report;
  }
  return total == reports_ ? status::ok : status::malformed_report;
}

}  // namespace ldp::server::detail

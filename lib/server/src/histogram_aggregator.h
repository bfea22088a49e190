// The histogram state of GRR (d values), HR (K values) and FLH (k x g values) (histogram_aggregator.cpp).
#ifndef LDP_SERVER_SRC_HISTOGRAM_AGGREGATOR_H
#define LDP_SERVER_SRC_HISTOGRAM_AGGREGATOR_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/server/frequency.h"
#include "support_model.h"

namespace ldp::server::detail {

// Counts h[y] of the report's index; the histogram sums to n. Subclasses estimate from it.
class histogram_aggregator : public frequency_aggregator {
 protected:
  histogram_aggregator(const wire::params& p, std::size_t cells, support_model model)
      : frequency_aggregator(p), model_(model), hist_(cells) {}

  status ingest(const wire::report& r) noexcept final;
  status merge_counts(const aggregator& other) final;
  void write_body(std::vector<unsigned char>& out) const final;
  status read_body(span<const unsigned char> body) final;

  support_model model_;
  std::vector<uint64_t> hist_;
};

}  // namespace ldp::server::detail

#endif

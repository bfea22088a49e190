// The glm-copies aggregator (ldp/server/glm.h): every report's entries, which the learner reads.
#ifndef LDP_SERVER_SRC_GLM_STATE_H
#define LDP_SERVER_SRC_GLM_STATE_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ldp/server/aggregator.h"

namespace ldp::server::detail {

class glm_aggregator final : public aggregator {
 public:
  explicit glm_aggregator(const wire::params& p);

  // The reports' entries, row after row of width() entries, rows in lexicographic order (the saved
  // state's, so the learner does not depend on the order of arrival or merging).
  [[nodiscard]] std::vector<int64_t> sorted_rows() const;
  [[nodiscard]] std::size_t width() const noexcept { return width_; }

 protected:
  status ingest(const wire::report& r) noexcept override;
  status merge_counts(const aggregator& other) override;
  void write_body(std::vector<unsigned char>& out) const override;
  status read_body(span<const unsigned char> body) override;
  std::vector<estimate> estimate_impl(double z) const override;

 private:
  std::size_t width_;
  std::vector<int64_t> rows_;  // arrival order
};

}  // namespace ldp::server::detail

#endif

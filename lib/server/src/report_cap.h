// The cap on accepted reports that keeps every count of the server exact (src/aggregator.cpp).
#ifndef LDP_SERVER_SRC_REPORT_CAP_H
#define LDP_SERVER_SRC_REPORT_CAP_H

#include <cstdint>

namespace ldp::server::detail {

// Accepted reports per aggregator are capped at 2^62 (never reached in practice). Every count is
// bounded by the number of reports, so with this cap all sums, signed sketch cells and FWHT stages
// stay exact in int64, and merging two states can be checked for overflow up front.
inline constexpr uint64_t max_reports = uint64_t{1} << 62;

}  // namespace ldp::server::detail

#endif

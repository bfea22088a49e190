// Splitting one call's work over threads (ldp/server/threads.h, docs/architecture.md "Threads").
#ifndef LDP_SERVER_SRC_PARALLEL_H
#define LDP_SERVER_SRC_PARALLEL_H

#include <cstddef>
#include <cstdint>
#include <functional>

namespace ldp::server::detail {

// How many parts to split `work` units into: at most thread_limit(), and no part below
// `min_part` units (starting a thread costs tens of microseconds). At least 1.
[[nodiscard]] std::size_t part_count(uint64_t work, uint64_t min_part) noexcept;

// Runs job(0), ..., job(parts - 1) and returns when all have finished: job(0) on the calling
// thread, each other part on a thread of its own, or on the calling thread when a thread cannot be
// started. The parts must not throw and must not write to memory another part reads or writes
// (atomics aside: each writes its own counts, or its own blocks of one array); the caller combines
// their results so that the outcome does not depend on how they were scheduled (integer sums).
void run_parts(std::size_t parts, const std::function<void(std::size_t)>& job) noexcept;

}  // namespace ldp::server::detail

#endif

// The column popcount queue of the unary and CMS aggregators (popcount_queue.cpp).
#ifndef LDP_SERVER_SRC_POPCOUNT_QUEUE_H
#define LDP_SERVER_SRC_POPCOUNT_QUEUE_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ldp::server::detail {

// Bit-vector reports (wire bits(nbits)) waiting for the kernel table's column popcount
// (docs/performance.md 7). One kernel call also passes over all nbits counters, so reports are queued
// and counted a block at a time: at most 256 reports and `budget` bytes, at least one report.
// Unary reports use one queue; CMS one per sketch row.
class popcount_queue {
 public:
  popcount_queue(std::size_t nbits, std::size_t budget);

  std::size_t stride() const noexcept { return stride_; }
  bool empty() const noexcept { return queued_ == 0; }
  // Queues one report (stride() bytes), counting the block into counts[0 .. nbits) when full.
  void push(const unsigned char* bits, uint64_t* counts) noexcept;
  // Counts the queued reports into counts and empties the queue.
  void flush(uint64_t* counts) noexcept;
  // Counts the queued reports into counts and keeps them queued (for const readers, on a copy).
  void add_queued(uint64_t* counts) const noexcept;

 private:
  std::size_t nbits_;
  std::size_t stride_;    // bytes per report, ceil(nbits / 8)
  std::size_t capacity_;  // reports per block
  std::vector<unsigned char> block_;
  std::size_t queued_ = 0;
};

}  // namespace ldp::server::detail

#endif

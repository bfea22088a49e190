// The column-popcount queue of the unary and CMS aggregators (popcount_queue.h).
#include <algorithm>
#include <cstring>

#include "kernel_access.h"
#include "popcount_queue.h"

namespace ldp::server::detail {
namespace {

constexpr std::size_t block_reports = 256;

}  // namespace

popcount_queue::popcount_queue(std::size_t nbits, std::size_t budget)
    : nbits_(nbits),
      stride_((nbits + 7) / 8),
      capacity_(std::clamp<std::size_t>(stride_ == 0 ? block_reports : budget / stride_, 1, block_reports)),
      block_(capacity_ * stride_) {}

void popcount_queue::push(const unsigned char* bits, uint64_t* counts) noexcept {
  std::memcpy(block_.data() + queued_ * stride_, bits, stride_);
  if (++queued_ == capacity_) flush(counts);
}

void popcount_queue::flush(uint64_t* counts) noexcept {
  add_queued(counts);
  queued_ = 0;
}

void popcount_queue::add_queued(uint64_t* counts) const noexcept {
  if (queued_ != 0) kernel_table().column_popcount(block_.data(), queued_, stride_, nbits_, counts);
}

}  // namespace ldp::server::detail

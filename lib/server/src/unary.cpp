// SUE (basic one-time RAPPOR, MECHANISMS.md A.2) and OUE (A.3) aggregation and estimation with the
// A.0 template. State: ones[d], the column sums of the reported unary bit vectors, and n.
// C_v = ones[v]; p-hat = T_keep/2^w, q-hat = T_other/2^w.
//
// Ingestion (PERFORMANCE.md 7): accepted bit vectors are copied into a block buffer (at most 256
// reports or 2 MiB, stride ceil(d / 8)) and added to ones[] by the kernel table's column popcount
// when the block is full, and before any merge. Const readers (serialize, estimate) see the pending
// block without changing the aggregator: they add it to a copy of ones[], so concurrent const calls
// stay safe.
#include <cstring>

#include "detail.h"

namespace ldp::server::detail {
namespace {

using wire::field;

constexpr std::size_t block_reports = 256;
constexpr std::size_t block_bytes = std::size_t{2} << 20;  // 256 reports up to d = 65536

class unary_aggregator final : public frequency_aggregator {
 public:
  unary_aggregator(const wire::params& p, std::size_t d, support_model model)
      : frequency_aggregator(p),
        model_(model),
        stride_((d + 7) / 8),
        capacity_(block_capacity(stride_)),
        ones_(d),
        block_(capacity_ * stride_) {}

 protected:
  status ingest(const wire::report& r) noexcept override {
    if (r.bits.size() != stride_) return status::wrong_length;  // the decoder already checks
    // Padding bits past d are zero (checked by the decoder); the kernel ignores them anyway.
    append(r.bits.data());
    return status::ok;
  }

  std::size_t run_payload_size() const noexcept override { return stride_; }

  // A run of equal-size payloads is valid when every padding bit past d is zero (the decoder's
  // reserved_bits_set); the kernel then adds the whole run straight from the batch buffer.
  bool ingest_run(const unsigned char* first, std::size_t stride, std::size_t count) noexcept override {
    const std::size_t d = ones_.size();
    if (d % 8 != 0) {
      const auto padding = static_cast<unsigned char>(0xffu << (d % 8));
      const unsigned char* last = first + stride_ - 1;
      for (std::size_t i = 0; i < count; ++i) {
        if ((last[i * stride] & padding) != 0) return false;
      }
    }
    if (count * stride_ < block_bytes / 4 && count < block_reports / 4) {
      // A short run (large d, few reports per chunk): the kernel pays a pass over all d counters
      // per call, so gather the reports into the block as single reports are.
      for (std::size_t i = 0; i < count; ++i) append(first + i * stride);
    } else {
      kernel_table().column_popcount(first, count, stride, d, ones_.data());
    }
    return true;
  }

  void merge_counts(const aggregator& other) override {
    const auto& o = static_cast<const unary_aggregator&>(other);
    flush();  // also flushes o when it is *this
    if (o.pending_ == 0) {
      for (std::size_t v = 0; v < ones_.size(); ++v) ones_[v] += o.ones_[v];
    } else {
      const std::vector<uint64_t> theirs = o.counts();  // may throw; nothing has changed yet
      for (std::size_t v = 0; v < ones_.size(); ++v) ones_[v] += theirs[v];
    }
  }

  void write_body(std::vector<unsigned char>& out) const override {
    if (pending_ == 0) {
      put_u64s(out, ones_);
    } else {
      put_u64s(out, counts());
    }
  }

  status read_body(span<const unsigned char> body) override {
    pending_ = 0;
    const status s = read_u64s(body, ones_);
    if (s != status::ok) return s;
    for (uint64_t c : ones_) {
      if (c > reports_) return status::malformed_report;
    }
    return status::ok;
  }

  std::vector<estimate> estimate_items_impl(span<const uint32_t> items, double z) const override {
    std::vector<uint64_t> copy;
    if (pending_ != 0) copy = counts();
    return template_estimates(model_, pending_ == 0 ? ones_ : copy, items, reports_, z);
  }

 private:
  static std::size_t block_capacity(std::size_t stride) noexcept {
    if (stride == 0) return block_reports;
    const std::size_t fit = block_bytes / stride;
    return fit == 0 ? 1 : fit < block_reports ? fit : block_reports;
  }

  // Queues one report's stride_ bytes in the block, counting the block when it is full.
  void append(const unsigned char* bits) noexcept {
    std::memcpy(block_.data() + pending_ * stride_, bits, stride_);
    if (++pending_ == capacity_) flush();
  }

  // Adds the pending block to ones_.
  void flush() noexcept {
    if (pending_ == 0) return;
    kernel_table().column_popcount(block_.data(), pending_, stride_, ones_.size(), ones_.data());
    pending_ = 0;
  }

  // ones_ plus the pending block (allocates; may throw).
  std::vector<uint64_t> counts() const {
    std::vector<uint64_t> out(ones_);
    if (pending_ != 0) {
      kernel_table().column_popcount(block_.data(), pending_, stride_, out.size(), out.data());
    }
    return out;
  }

  support_model model_;
  std::size_t stride_;    // bytes per report, ceil(d / 8)
  std::size_t capacity_;  // reports per block
  std::vector<uint64_t> ones_;
  std::vector<unsigned char> block_;  // capacity_ reports at stride_
  std::size_t pending_ = 0;           // reports in block_ not yet in ones_
};

}  // namespace

status make_unary_aggregator(const wire::params& p, aggregator_ptr* out) {
  return make_pure_aggregator<unary_aggregator>(p, p.get(field::domain), out);
}

}  // namespace ldp::server::detail

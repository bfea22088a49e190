// SUE (basic one-time RAPPOR, docs/mechanisms.md A.2) and OUE (A.3) aggregation and estimation with the
// A.0 template. State: ones[d], the column sums of the reported unary bit vectors, and n.
// C_v = ones[v]; p-hat = T_keep/2^w, q-hat = T_other/2^w.
//
// Ingestion (docs/performance.md 7): accepted bit vectors are copied into a block buffer (at most 256
// reports or 2 MiB, stride ceil(d / 8)) and added to ones[] by the kernel table's column popcount
// when the block is full, and before any merge. Const readers (serialize, estimate) see the pending
// block without changing the aggregator: they add it to a copy of ones[], so concurrent const calls
// stay safe.
#include "factories.h"
#include "kernel_access.h"
#include "popcount_queue.h"
#include "state_io.h"
#include "support_model.h"

namespace ldp::server::detail {
namespace {

using wire::field;

// The ingestion block: 256 reports up to d = 65536.
constexpr std::size_t block_bytes = std::size_t{2} << 20;

class unary_aggregator final : public frequency_aggregator {
 public:
  unary_aggregator(const wire::params& p, std::size_t d, support_model model)
      : frequency_aggregator(p), model_(model), ones_(d), queue_(d, block_bytes) {}

 protected:
  status ingest(const wire::report& r) noexcept override {
    if (r.bits.size() != queue_.stride()) return status::wrong_length;  // the decoder already checks
    // Padding bits past d are zero (checked by the decoder); the kernel ignores them anyway.
    queue_.push(r.bits.data(), ones_.data());
    return status::ok;
  }

  std::size_t run_payload_size() const noexcept override { return queue_.stride(); }

  // A run of equal-size payloads is valid when every padding bit past d is zero (the decoder's
  // reserved_bits_set); the kernel then adds the whole run straight from the batch buffer.
  bool ingest_run(const unsigned char* first, std::size_t stride, std::size_t count) noexcept override {
    const std::size_t d = ones_.size();
    if (d % 8 != 0) {
      const auto padding = static_cast<unsigned char>(0xffu << (d % 8));
      const unsigned char* last = first + queue_.stride() - 1;
      for (std::size_t i = 0; i < count; ++i) {
        if ((last[i * stride] & padding) != 0) return false;
      }
    }
    if (count * queue_.stride() < block_bytes / 4 && count < 64) {
      // A short run (large d, few reports per chunk): the kernel pays a pass over all d counters
      // per call, so the reports join the queue as single reports do.
      for (std::size_t i = 0; i < count; ++i) queue_.push(first + i * stride, ones_.data());
    } else {
      kernel_table().column_popcount(first, count, stride, d, ones_.data());
    }
    return true;
  }

  status merge_counts(const aggregator& other) override {
    const auto& o = static_cast<const unary_aggregator&>(other);
    queue_.flush(ones_.data());  // also flushes o when it is *this
    if (o.queue_.empty()) {
      for (std::size_t v = 0; v < ones_.size(); ++v) ones_[v] += o.ones_[v];
    } else {
      const std::vector<uint64_t> theirs = o.counts();  // may throw; nothing has changed yet
      for (std::size_t v = 0; v < ones_.size(); ++v) ones_[v] += theirs[v];
    }
    return status::ok;
  }

  void write_body(std::vector<unsigned char>& out) const override {
    if (queue_.empty()) {
      put_u64s(out, ones_);
    } else {
      put_u64s(out, counts());
    }
  }

  status read_body(span<const unsigned char> body) override {  // a fresh aggregator: empty queue
    const status s = read_u64s(body, ones_);
    if (s != status::ok) return s;
    for (uint64_t c : ones_) {
      if (c > reports_) return status::malformed_report;
    }
    return status::ok;
  }

  std::vector<estimate> estimate_items_impl(span<const uint32_t> items, double z) const override {
    std::vector<uint64_t> copy;
    if (!queue_.empty()) copy = counts();
    return template_estimates(model_, queue_.empty() ? ones_ : copy, items, reports_, z);
  }

 private:
  // ones_ plus the queued reports (allocates; may throw).
  std::vector<uint64_t> counts() const {
    std::vector<uint64_t> out(ones_);
    queue_.add_queued(out.data());
    return out;
  }

  support_model model_;
  std::vector<uint64_t> ones_;
  popcount_queue queue_;  // reports not yet in ones_
};

}  // namespace

status make_unary_aggregator(const wire::params& p, aggregator_ptr* out) {
  return make_pure_aggregator<unary_aggregator>(p, p.get(field::domain), out);
}

}  // namespace ldp::server::detail

// BLH and OLH aggregation and estimation, docs/mechanisms.md A.4.
// A report supports v iff hash_to_range(report_hash_key(seed), v, g) == bucket. For a value the
// user does not hold the support probability is q* = 1/g (not the device's (1 - p)/(g - 1): the
// "integer-g bug"), so c-hat_v = (C_v - n/g)/(p-hat - 1/g) and the variance is the A.0 template
// with (p-hat, 1/g).
//
// Saved state (docs/wire_format.md 7.1): of the two canonical bodies, the one that is smaller for
// n reports over d items: the sorted (seed, bucket) list (12 n bytes) while 12 n < 8 d, otherwise
// the d support counts C_v (8 d bytes). Both are functions of the set of reports alone (a sorted
// list, integer sums), so any split merged in any order gives the same bytes, and a state never
// carries more than 8 d bytes however many reports it counts (issue 13: what a Dask reduction
// sends between workers).
//
// In memory: the counts C_v of the reports that arrived in counts-form states (allocated when the
// aggregator first loads or merges one; held only when n has passed the threshold, since n never
// decreases), plus the pending reports added or merged as lists since: 12 bytes each, (seed,
// bucket) in segments (seed_list.h), nothing derived. A batch chunk of equal-size records is
// appended in one pass (ingest_run). The hash keys (a, b) = report_hash_key(seed) are derived where
// supports are counted, one block of key_block reports at a time, each block then passed to the
// kernel table's olh_support: O(pending * items) hash evaluations, vectorized over candidates
// (docs/performance.md 5; FLH or HR when that is too much), split over thread_limit() threads by
// blocks of reports (ldp/server/threads.h), each thread summing the blocks it claims into counts of
// its own: integers, so the result is the same for any number of threads and any assignment. Saving the counts
// form runs it over all d items, so that work happens where a state is saved (on a Dask cluster:
// the workers).
//
// Pending reports are not collapsed into counts as they arrive, though that would bound memory by
// O(d) instead of 12 bytes a report: it moves the support work, d hash evaluations a report, into
// ingestion, and batching only amortizes the bookkeeping, not that work. Measured on a 2-core
// AVX-512 machine (bench: BM_ingest/olh/1024, a 64 MiB batch, issue 13): 11.5 M reports/s
// appending (then 28 bytes a report, the keys derived at ingestion), 5.0 M/s with a prototype that
// collapsed every 65,536 reports (2.3 times slower; it helped only at d = 64, 13.9 against 11.7
// M/s), and an estimate of a few candidates would pay for all d items. So the work is done once,
// when the state is saved or estimated; a long-running server bounds its memory by replacing its
// aggregator with deserialize(serialize()), which holds only counts once n has passed the
// threshold. Deriving the keys there instead of at ingestion costs two SipHash calls a report per
// support count, against d hash evaluations: a few percent at d = 1024 (docs/benchmarks.md,
// issue 19), the kernel table's sip_pairs deriving them 8 seeds at a time with AVX-512.
#include <algorithm>
#include <atomic>
#include <numeric>

#include "estimation.h"
#include "factories.h"
#include "kernel_access.h"
#include "ldp/base/bits.h"
#include "ldp/wire/byte_cursor.h"
#include "ldp/wire/hash.h"
#include "parallel.h"
#include "seed_list.h"
#include "state_io.h"
#include "support_model.h"

namespace ldp::server::detail {

using wire::field;

namespace {

struct entry {
  uint64_t seed;
  uint32_t bucket;
  bool operator<(const entry& o) const noexcept { return seed != o.seed ? seed < o.seed : bucket < o.bucket; }
};

constexpr uint64_t entry_bytes = 12;  // a listed report: seed u64, bucket u32
constexpr uint64_t count_bytes = 8;   // a support count: u64

// Reports whose keys are derived together (16 KiB of keys on the stack); divides the segments.
constexpr std::size_t key_block = 1024;
static_assert(seed_list::segment_reports % key_block == 0, "a key block never spans two segments");
// The least report-item pairs worth a thread of their own: about 0.15 ms of olh_support on one
// AVX-512 core, several times what starting and joining a thread costs.
constexpr uint64_t min_pairs_per_thread = uint64_t{1} << 20;

// docs/wire_format.md 7.1: the counts form from the first n whose list (12 n bytes) is at least as
// long as the counts (8 d bytes), i.e. n >= ceil(8 d / 12). d < 2^32, so nothing wraps for any n.
bool counts_form(uint64_t n, uint64_t d) noexcept { return n >= (count_bytes * d + entry_bytes - 1) / entry_bytes; }

// The little-endian bucket of a payload (seed u64, then `Width` bytes; docs/wire_format.md 5).
template <std::size_t Width>
uint32_t load_bucket(const unsigned char* payload) noexcept {
  uint32_t y = 0;
  for (std::size_t k = 0; k < Width; ++k) y |= uint32_t{payload[8 + k]} << (8 * k);
  return y;
}

class local_hash_aggregator final : public frequency_aggregator {
 public:
  local_hash_aggregator(const wire::params& p, support_model model)
      : frequency_aggregator(p),
        model_(model),
        g_(static_cast<uint32_t>(p.get(field::hash_range))),
        d_(p.get(field::domain)) {}

 protected:
  status ingest(const wire::report& r) noexcept override {
    if (r.index >= g_) return status::out_of_range;  // the decoder already checks
    try {
      pending_.reserve(1);
    } catch (...) {
      return status::overflow;  // out of memory: the report is rejected, the state is unchanged
    }
    pending_.push(r.seed, r.index);  // cannot throw now
    return status::ok;
  }

  std::size_t run_payload_size() const noexcept override { return wire::max_payload_size(params_); }

  // A chunk of payloads (seed, bucket) appended in one pass; a bucket >= g (the decoder's
  // out_of_range) takes them back, and so does memory running out: the records then go one by one.
  bool ingest_run(const unsigned char* first, std::size_t stride, std::size_t count) noexcept override {
    try {
      pending_.reserve(count);  // the chunk's count, which its length bounds (ingest_chunk_run)
    } catch (...) {
      return false;
    }
    const std::size_t before = pending_.size();
    uint32_t largest = 0;
    switch (wire::index_bytes(g_)) {
      case 1: largest = append_run<1>(first, stride, count); break;
      case 2: largest = append_run<2>(first, stride, count); break;
      case 3: largest = append_run<3>(first, stride, count); break;
      default: largest = append_run<4>(first, stride, count); break;  // g <= 2^31 (validate)
    }
    if (largest < g_) return true;
    pending_.truncate(before);
    return false;
  }

  status merge_counts(const aggregator& other) override {
    const auto& o = static_cast<const local_hash_aggregator&>(other);
    const std::size_t theirs = o.pending_.size();
    // Allocate first (may throw; nothing has changed but capacities): room for their pending
    // reports, and counts when they bring the first ones.
    pending_.reserve(theirs);
    if (counts_.empty() && !o.counts_.empty()) counts_ = std::vector<uint64_t>(o.counts_.size(), 0);
    // Index-based so that merging an aggregator into itself stays valid (segments never move).
    // Each count is at most its state's n, and merge() checked that the sum of the n fits.
    for (std::size_t v = 0; v < o.counts_.size(); ++v) counts_[v] += o.counts_[v];
    pending_.append(theirs, [&o](std::size_t i, uint64_t* seed, uint32_t* bucket) {
      *seed = o.pending_.seed(i);
      *bucket = o.pending_.bucket(i);
    });
    return status::ok;
  }

  // The canonical form for (n, d): the list sorted, so the bytes do not depend on the order reports
  // arrived or states were merged, or the counts, which are sums. Counts are held only in the
  // counts form, so the list form has every report in the pending list.
  void write_body(std::vector<unsigned char>& out) const override {
    if (counts_form(reports_, d_)) {
      std::vector<uint32_t> items(static_cast<std::size_t>(d_));
      std::iota(items.begin(), items.end(), uint32_t{0});
      put_u64s(out, support_of(items));
      return;
    }
    std::vector<entry> sorted(pending_.size());
    for (std::size_t i = 0; i < sorted.size(); ++i) sorted[i] = entry{pending_.seed(i), pending_.bucket(i)};
    std::sort(sorted.begin(), sorted.end());
    out.reserve(out.size() + static_cast<std::size_t>(entry_bytes) * sorted.size());
    for (const entry& e : sorted) {
      put_u64(out, e.seed);
      put_u32(out, e.bucket);
    }
  }

  // Either form, its length checked against n and d before anything is allocated for it.
  status read_body(span<const unsigned char> body) override {
    if (body.size() != local_hash_body_size(reports_, d_)) return status::wrong_length;
    if (counts_form(reports_, d_)) return read_counts(body);
    seed_list read;
    read.reserve(body.size() / static_cast<std::size_t>(entry_bytes));
    wire::byte_reader in(body);
    entry last{0, 0};
    for (uint64_t i = 0; i < reports_; ++i) {
      const entry e{in.get_le(8), static_cast<uint32_t>(in.get_le(4))};
      if (e.bucket >= g_) return status::out_of_range;
      if (i != 0 && e < last) return status::malformed_report;  // not canonical
      read.push(e.seed, e.bucket);
      last = e;
    }
    pending_ = std::move(read);
    return status::ok;
  }

  std::vector<estimate> estimate_items_impl(span<const uint32_t> items, double z) const override {
    const std::vector<uint64_t> support = support_of(items);
    const auto n = static_cast<double>(reports_);
    std::vector<estimate> out;
    out.reserve(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      const double c = model_.count(static_cast<double>(support[i]), n);
      out.push_back(make_estimate(items[i], c, model_.variance(c, n), z, variance_kind::exact));
    }
    return out;
  }

 private:
  // Appends `count` payloads at first, first + stride, ...; returns their largest bucket. Not
  // vectorized by GCC on 32-bit ARM: GCC 12 turns the seeds' byte loads of this strided loop into
  // VLDR, which faults on the unaligned payloads (armhf bus error under qemu); elsewhere the loop
  // vectorizes as intended.
  template <std::size_t Width>
#if defined(__GNUC__) && !defined(__clang__) && defined(__arm__)
  __attribute__((optimize("no-tree-vectorize")))
#endif
  uint32_t
  append_run(const unsigned char* first, std::size_t stride, std::size_t count) noexcept {
    uint32_t largest = 0;
    pending_.append(count, [&](std::size_t i, uint64_t* seed, uint32_t* bucket) {
      const unsigned char* payload = first + i * stride;
      const uint32_t y = load_bucket<Width>(payload);
      *seed = load_le64(payload);
      *bucket = y;
      largest = std::max(largest, y);
    });
    return largest;
  }

  // C_v for the given items (< d): the held counts plus the pending reports' support, the blocks of
  // pending reports split over threads (threads.h).
  std::vector<uint64_t> support_of(span<const uint32_t> items) const {
    std::vector<uint64_t> support(items.size(), 0);
    if (!counts_.empty()) {
      for (std::size_t i = 0; i < items.size(); ++i) support[i] = counts_[items[i]];
    }
    if (items.empty() || pending_.empty()) return support;
    const std::size_t blocks = (pending_.size() + key_block - 1) / key_block;
    const std::size_t parts =
        std::min(blocks, part_count(uint64_t{pending_.size()} * items.size(), min_pairs_per_thread));
    // Every allocation before the threads start: the parts themselves cannot fail.
    std::vector<std::vector<uint64_t>> partial(parts - 1, std::vector<uint64_t>(items.size(), 0));
    // Each part claims the next uncounted block until none is left, so a thread that starts late
    // (tens to hundreds of microseconds on a virtual machine) or runs on a busy core does less of
    // the work instead of holding up the others. Which part counts which block varies from run to
    // run; the sums of integer counts do not.
    std::atomic<std::size_t> next{0};
    run_parts(parts, [&](std::size_t part) {
      uint64_t* const out = part == 0 ? support.data() : partial[part - 1].data();
      for (std::size_t block = next.fetch_add(1); block < blocks; block = next.fetch_add(1)) {
        count_block(block, items, out);
      }
    });
    for (const std::vector<uint64_t>& counts : partial) {
      for (std::size_t i = 0; i < items.size(); ++i) support[i] += counts[i];
    }
    return support;
  }

  // Adds to support[i] the support of items[i] among the pending reports of one key block.
  void count_block(std::size_t block, span<const uint32_t> items, uint64_t* support) const noexcept {
    uint64_t a[key_block], b[key_block], start[4];
    wire::report_hash_start(start);
    const std::size_t u0 = block * key_block;
    const std::size_t n = std::min(key_block, pending_.size() - u0);
    const seed_list::segment& s = pending_.segment_of(u0);
    const std::size_t at = u0 % seed_list::segment_reports;
    kernel_table().sip_pairs(start, s.seed + at, n, a, b);
    kernel_table().olh_support(a, b, s.bucket + at, n, g_, items.data(), items.size(), support);
  }

  // The counts form: d counts, each at most n (a report supports an item at most once).
  status read_counts(span<const unsigned char> body) {
    std::vector<uint64_t> counts(static_cast<std::size_t>(d_));
    const status s = read_u64s(body, counts);
    if (s != status::ok) return s;
    if (std::any_of(counts.begin(), counts.end(), [this](uint64_t c) { return c > reports_; })) {
      return status::malformed_report;
    }
    counts_ = std::move(counts);
    return status::ok;
  }

  support_model model_;
  uint32_t g_;
  uint64_t d_;
  // C_v of the reports that came in counts-form states; empty until the first one.
  std::vector<uint64_t> counts_;
  // The reports added or merged as lists since, in arrival order.
  seed_list pending_;
};

}  // namespace

uint64_t local_hash_body_size(uint64_t n, uint64_t d) noexcept {
  return counts_form(n, d) ? count_bytes * d : entry_bytes * n;
}

status make_local_hash_aggregator(const wire::params& p, aggregator_ptr* out) {
  const support_model model = pure_model(p);  // q* = 1/g
  if (model.degenerate()) return status::invalid_parameters;
  *out = std::make_unique<local_hash_aggregator>(p, model);
  return status::ok;
}

}  // namespace ldp::server::detail

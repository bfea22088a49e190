// The mechanism-independent server contract (docs/architecture.md "The server contract"): exact integer
// aggregation of wire reports and batches (docs/wire_format.md sections 4-6) into mergeable state
// with a version, fingerprint and checksum (section 7), and estimates with variances and
// confidence intervals. Untrusted bytes never crash it: a bad report is rejected with its status
// and counted, the others still count. Each mechanism family derives from `aggregator`
// (frequency.h for docs/mechanisms.md A; the numeric, vector and protocol families in their headers).
#ifndef LDP_SERVER_AGGREGATOR_H
#define LDP_SERVER_AGGREGATOR_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"

namespace ldp::server {

namespace detail {
struct group_state;
}

// What an estimate's variance is (docs/mechanisms.md 0 "Variance kinds" lists which kind each family
// gives). The plug-ins of unknown counts or means, which every family uses, do not change
// the kind.
enum class variance_kind : uint8_t {
  exact,      // the closed form of the implemented mechanism, conditional on every public value in use
              // (hash family, rotation, public seeds, windows)
  average,    // an average over a public value the server knows but does not condition on
  bound,      // an upper bound of the closed form
  bootstrap,  // no closed form: a parametric bootstrap's spread at the fitted model (square-wave's EMS,
              // docs/mechanisms.md G.1)
};

// "exact", "average", "bound", "bootstrap" (the JSON spelling, docs/cli.md); "unknown" for another value.
[[nodiscard]] const char* variance_kind_name(variance_kind k) noexcept;

// One estimated quantity: an item's count for frequency oracles, a coordinate's mean for the
// numeric mechanisms (item = coordinate index, 0 for a scalar).
struct estimate {
  uint32_t item = 0;
  double value = 0;     // unbiased estimate
  double variance = 0;  // closed form with the implemented parameters (see the family's header)
  double ci_low = 0;    // normal-approximation interval at the requested confidence
  double ci_high = 0;
  variance_kind kind = variance_kind::exact;  // what `variance` is
};

// The saved state holds exactly this many rejection counters (src/aggregator.cpp, docs/wire_format.md
// section 7), whatever status_count becomes: statuses from 16 on are never rejection statuses.
inline constexpr std::size_t rejection_counter_count = 16;

// Rejection counters, indexed by the numeric value of ldp::status; counter 0 (ok) counts damaged
// batch chunks instead (add_batch, damaged_chunks()).
using rejection_counts = std::array<uint64_t, rejection_counter_count>;

// The caller's ceiling on an aggregator's memory (docs/security_model.md "Memory contract"): a block
// whose aggregator_bytes() pass it, or a saved state longer than it, is refused with limit_exceeded
// before anything is allocated for it.
struct limits {
  uint64_t max_state_bytes = uint64_t{1} << 30;  // 1 GiB
};

class aggregator {
 public:
  // An aggregator for any block with a server side: invalid_parameters / unknown_mechanism for
  // other blocks or blocks whose estimator would divide by zero; overflow when the state does not
  // fit in memory on this target; invalid_argument for a null out. Never throws.
  // limit_exceeded when aggregator_bytes(p) passes `lim` (the overload without it: limits{}).
  [[nodiscard]] static status create(const wire::params& p, std::unique_ptr<aggregator>* out);
  [[nodiscard]] static status create(const wire::params& p, const limits& lim, std::unique_ptr<aggregator>* out);

  // Saved state: the wire state header (section 7) + a body of exact integers (the parameter
  // block, n, the rejection counters, then the family's counts; see src/aggregator.cpp). Checks
  // every field and rejects bad input with a specific status (never throws, never crashes).
  // limit_exceeded for more than lim.max_state_bytes bytes, or a block create() refuses so.
  [[nodiscard]] static status deserialize(span<const unsigned char> bytes, std::unique_ptr<aggregator>* out);
  [[nodiscard]] static status deserialize(span<const unsigned char> bytes, const limits& lim,
                                          std::unique_ptr<aggregator>* out);

  virtual ~aggregator() = default;
  aggregator(const aggregator&) = delete;
  aggregator& operator=(const aggregator&) = delete;

  // A full report (header + payload), checked against the block and its fingerprint. Every
  // rejection is counted under its status; accepted reports are capped at 2^62 (then overflow).
  status add_report(span<const unsigned char> report) noexcept;
  // A batch record's payload (the batch header already named the parameters).
  status add_payload(span<const unsigned char> payload) noexcept;
  // A whole batch (section 6): a header for other parameters is parameter_mismatch and nothing
  // counts; a chunk with a bad CRC is counted as one damaged chunk (damaged_chunks(): its record
  // count is damaged too, so its records are unknown and counted nowhere); other chunks and valid
  // records count. Returns ok when the framing was readable to its terminator.
  status add_batch(span<const unsigned char> batch) noexcept;

  // Adds another aggregator's counts; parameter_mismatch (and nothing changes) if its block or its
  // family's per-state parameters (a winsorized window list) differ, overflow (nothing changes) if
  // the sum would pass 2^62 reports or a family's exact counts, or memory runs out.
  // Rejection counters add too (saturating at 2^64 - 1).
  [[nodiscard]] status merge(const aggregator& other) noexcept;

  // Merging in any order and any split of the reports gives byte-identical serializations. Empty
  // if memory runs out (never throws).
  [[nodiscard]] std::vector<unsigned char> serialize() const;

  const wire::params& parameters() const noexcept { return params_; }
  uint64_t fingerprint() const noexcept { return fingerprint_; }
  uint64_t reports() const noexcept { return reports_; }  // accepted
  const rejection_counts& rejected() const noexcept { return rejected_; }
  // Batch chunks whose CRC failed (rejection counter 0, which no report uses; saturating).
  uint64_t damaged_chunks() const noexcept { return rejected_[0]; }
  // Reports rejected, over every status (saturating).
  [[nodiscard]] uint64_t rejected_total() const noexcept;

  // Every estimate of the mechanism (items 0..d-1, or coordinates) at the given confidence in
  // [0, 1] (two-sided normal interval; NaN bounds outside). Empty if memory runs out, and always
  // for string discovery, whose estimates are discover() and estimate_strings() (string_discovery.h).
  [[nodiscard]] std::vector<estimate> estimate_all(double confidence = 0.95) const;

 protected:
  explicit aggregator(const wire::params& p);

  // One decoded report of this block; a status other than ok rejects it.
  virtual status ingest(const wire::report& r) noexcept = 0;
  // The batch fast path (docs/performance.md 7): a family whose payloads all have one size returns it
  // here, and ingest_run() then counts `count` payloads at first, first + stride, ... in one pass,
  // all of them, or none when any would be rejected (false: the records are then taken one by one,
  // so each rejection gets its own status). 0 disables the path.
  virtual std::size_t run_payload_size() const noexcept { return 0; }
  virtual bool ingest_run(const unsigned char* first, std::size_t stride, std::size_t count) noexcept;
  // Adds the counts of an aggregator of the same block, all or nothing (allocate before modifying),
  // and returns why it refused: parameter_mismatch, overflow. Only std::bad_alloc (and the
  // std::length_error of a container) may escape; merge() turns those into overflow.
  [[nodiscard]] virtual status merge_counts(const aggregator& other) = 0;
  // Appends the counts in their canonical little-endian form.
  virtual void write_body(std::vector<unsigned char>& out) const = 0;
  // Reads the counts (whose length deserialize() checked against the family's body size for
  // reports(); src/family.h), checking every invariant (never trusts them).
  virtual status read_body(span<const unsigned char> body) = 0;
  // All estimates; z is the normal quantile of the requested confidence.
  virtual std::vector<estimate> estimate_impl(double z) const = 0;

  // The group_round families (string discovery, the distribution tree forms) hold one frequency
  // aggregator per group; it drives their ingestion, bodies and counts.
  friend struct detail::group_state;

  wire::params params_;
  uint64_t fingerprint_ = 0;
  uint64_t reports_ = 0;
  rejection_counts rejected_{};

 private:
  // Counts a report the decoder returned with status `decoded`: rejected by that status, or
  // ingested and counted.
  status accept(status decoded, const wire::report& r) noexcept;
  // Counts a chunk whose records all carry payloads of run_payload_size() through ingest_run();
  // false (nothing counted) when the chunk is not such a run.
  bool ingest_chunk_run(span<const unsigned char> body, uint32_t records) noexcept;
  void reject(status s, uint64_t count) noexcept;  // saturating counter update
};

// The bytes of the saved state (serialize()) of an aggregator of block p holding `reports`
// reports, from the block alone: the size of what create() and the counts will hold, so a caller
// can refuse a block before allocating for it (docs/cli.md "simulate", --max-state-bytes).
// String discovery over OLH (pem) and the distribution tree forms: an upper bound, since the length
// depends on how the reports split over the groups (docs/wire_format.md 7.4, 7.5). invalid_parameters / unknown_mechanism as create(); overflow when it does not fit 64 bits.
[[nodiscard]] status state_bytes(const wire::params& p, uint64_t reports, uint64_t* bytes) noexcept;

// What an aggregator of block p needs before its first report, from the block alone: its empty
// saved state (state_bytes(p, 0)) or the list estimate_all() returns (an `estimate` per item or
// coordinate: d, or K for HR and the padded vectors), whichever is larger. create() refuses a block
// whose figure passes limits::max_state_bytes (limit_exceeded). Statuses as state_bytes().
[[nodiscard]] status aggregator_bytes(const wire::params& p, uint64_t* bytes) noexcept;

}  // namespace ldp::server

#endif

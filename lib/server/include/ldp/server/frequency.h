// Server side of the frequency oracles (MECHANISMS.md A.0-A.9): exact integer aggregation of wire
// reports into mergeable state, unbiased estimates with their closed-form variances evaluated with
// the implemented parameters, confidence intervals, and optional post-processing. Untrusted bytes
// never crash it: a bad report is rejected with its status and counted, the others still count.
#ifndef LDP_SERVER_FREQUENCY_H
#define LDP_SERVER_FREQUENCY_H

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"

namespace ldp::server {

struct estimate {
  uint32_t item = 0;
  double count = 0;     // unbiased estimate of the number of users holding `item`
  double variance = 0;  // closed form (A.0 template or the mechanism's), plug-in c_v clipped to [0, n]
  double ci_low = 0;    // normal-approximation interval at the requested confidence
  double ci_high = 0;
};

enum class postprocess : uint8_t {
  none,              // raw unbiased estimates (variances apply)
  clip_renormalize,  // clip at 0, rescale to sum n
  norm_sub,          // Wang et al. 2020: max(c + delta, 0) summing to n
  simplex,           // Euclidean projection of the frequencies onto the probability simplex
};

// Rejection counters, indexed by the numeric value of ldp::status.
using rejection_counts = std::array<uint64_t, status_count>;

class frequency_aggregator {
 public:
  // invalid_parameters / unknown_mechanism for a block that is not a frequency oracle
  // (grr, sue, oue, blh, olh, hr, cms, hcms), or whose estimator would divide by zero (p-hat equal
  // to q-hat, i.e. epsilon_impl = 0; HR/CMS/HCMS with a flip probability of exactly 1/2);
  // overflow when the counts do not fit in memory on this target; invalid_argument for a null out.
  // Never throws.
  [[nodiscard]] static status create(const wire::params& p, std::unique_ptr<frequency_aggregator>* out);
  virtual ~frequency_aggregator() = default;

  // A full report (header + payload), checked against the block and its fingerprint. Every
  // rejection is counted under its status; accepted reports are capped at 2^62 (then overflow).
  status add_report(span<const unsigned char> report) noexcept;
  // A batch record's payload (the batch header already named the parameters).
  status add_payload(span<const unsigned char> payload) noexcept;
  // A whole batch (wire format section 6): a header for other parameters is parameter_mismatch and
  // nothing counts; a chunk with a bad CRC is rejected with its claimed records; other chunks and
  // valid records count. Returns ok when the framing was readable to its terminator.
  status add_batch(span<const unsigned char> batch) noexcept;

  // Adds another aggregator's counts; parameter_mismatch (and nothing changes) if its block differs,
  // overflow (nothing changes) if the sum would pass 2^62 reports or memory runs out. Rejection
  // counters add too (saturating at 2^64 - 1).
  [[nodiscard]] status merge(const frequency_aggregator& other) noexcept;

  // Saved state: wire state header (section 7) + a body of exact integers. Merging in any order
  // and any split of the reports gives byte-identical serializations. The body layout is documented
  // in src/frequency_aggregator.cpp. Empty if memory runs out (never throws). deserialize checks
  // every field and rejects bad input with a specific status (never throws, never crashes).
  [[nodiscard]] std::vector<unsigned char> serialize() const;
  [[nodiscard]] static status deserialize(span<const unsigned char> bytes,
                                          std::unique_ptr<frequency_aggregator>* out);

  const wire::params& parameters() const noexcept { return params_; }
  uint64_t fingerprint() const noexcept { return fingerprint_; }
  uint64_t reports() const noexcept { return reports_; }  // accepted
  const rejection_counts& rejected() const noexcept { return rejected_; }

  // Estimates for items 0..d-1, or for the given candidates (any value < d; a candidate >= d gets
  // NaN in every field). confidence in [0, 1] (two-sided normal interval; NaN bounds outside).
  // Empty if memory runs out (never throws). CMS/HCMS: the hash-collision variance term uses the
  // clipped estimates of the distinct requested items (all d items for estimate_all).
  [[nodiscard]] std::vector<estimate> estimate_all(double confidence = 0.95) const;
  [[nodiscard]] std::vector<estimate> estimate_items(span<const uint32_t> items,
                                                     double confidence = 0.95) const;

 protected:
  explicit frequency_aggregator(const wire::params& p);
  // Mechanism-specific parts, implemented per oracle in src/.
  virtual status ingest(const wire::report& r) noexcept = 0;
  virtual void merge_counts(const frequency_aggregator& other) = 0;
  virtual void write_body(std::vector<unsigned char>& out) const = 0;
  virtual status read_body(span<const unsigned char> body) = 0;
  virtual std::vector<estimate> estimate_impl(span<const uint32_t> items, double z) const = 0;

  wire::params params_;
  uint64_t fingerprint_ = 0;
  uint64_t reports_ = 0;
  rejection_counts rejected_{};

 private:
  // Counts a report the decoder returned with status `decoded`: rejected by that status, or
  // ingested and counted.
  status accept(status decoded, const wire::report& r) noexcept;
  void reject(status s, uint64_t count) noexcept;  // saturating counter update
};

// Post-processing of a full estimate vector (all d items) for n reports; variances and intervals
// are dropped (set to NaN), since they no longer apply (MECHANISMS.md A.9). `none` returns the
// input unchanged. Non-finite counts are treated as 0. Empty if memory runs out or `how` is not a
// known value (never throws).
[[nodiscard]] std::vector<estimate> apply_postprocess(span<const estimate> raw, uint64_t n, postprocess how);

struct recommendation {
  wire::mechanism mech = wire::mechanism::none;
  uint32_t g_or_k = 0;               // OLH/BLH hash range, or CMS/HCMS rows; 0 otherwise
  uint32_t m = 0;                    // CMS/HCMS columns
  double variance_per_report = 0;    // leading Var[c_v]/n with the implemented parameters
  double std_error = 0;              // sqrt(n * variance_per_report) for the given n
  uint64_t report_bytes = 0;         // wire report size (header included)
};

// Every oracle ranked by implemented leading variance for (d, epsilon, n), best first
// (MECHANISMS.md A.8). Oracles whose block cannot be built for (d, epsilon) are left out; empty
// for invalid arguments or when memory runs out (never throws). CMS and HCMS use k = 16 rows and
// m = 1024 columns (src/recommend.cpp).
[[nodiscard]] std::vector<recommendation> recommend(uint32_t d, double epsilon, uint64_t n);

}  // namespace ldp::server

#endif

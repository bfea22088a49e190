// Server side of string discovery (docs/mechanisms.md F): PEM, TreeHist and SFP. A block's reports
// fall into G groups (wire::string_groups); group g's reports are an inner frequency oracle (OLH,
// HCMS, CMS) on items derived from (block, g, string) (ldp/wire/string_params.h). The aggregator holds
// one inner frequency aggregator per group, so ingestion, merge and saved state are the inner
// oracle's, group by group (docs/wire_format.md 7.4), and discovery evaluates candidate prefixes,
// fragments and words on those groups.
#ifndef LDP_SERVER_STRING_DISCOVERY_H
#define LDP_SERVER_STRING_DISCOVERY_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/server/aggregator.h"
#include "ldp/server/frequency.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"

namespace ldp::server {

// A discovered string and its estimate: est.value is the number of users (of all n) holding it,
// est.item the inner oracle's item of the group that estimated it (the last group: the whole string).
struct discovered_string {
  std::string item;
  estimate est;
};

struct discovery_options {
  uint32_t k = 10;           // strings wanted (the result has at most k, best first)
  uint32_t keep = 0;         // pem: prefixes kept per group; treehist: the most prefixes kept per group; sfp:
                             // the most fragments kept per offset (0: 4 k for each, docs/mechanisms.md F.2)
  std::string alphabet;      // the bytes a string may hold (sfp: fragment bytes tried, empty: 0x20..0x7e; pem,
                             // treehist: empty for any); the padding byte 0 is always tried
  double confidence = 0.95;  // of the intervals of the result
  uint64_t max_candidates = uint64_t{1} << 24;  // bound of any candidate table (limit_exceeded beyond)
};

class string_discovery_aggregator : public aggregator {
 public:
  // As aggregator::create / deserialize, for pem, treehist and sfp blocks; invalid_parameters for a
  // block or state of another family.
  [[nodiscard]] static status create(const wire::params& p, std::unique_ptr<string_discovery_aggregator>* out);
  [[nodiscard]] static status deserialize(span<const unsigned char> bytes,
                                          std::unique_ptr<string_discovery_aggregator>* out);
  [[nodiscard]] static bool handles(wire::mechanism m) noexcept;

  // The (at most) k most frequent strings the block's algorithm finds, best first (docs/mechanisms.md
  // F.2-F.4). invalid_argument for a null out, k = 0 or a confidence outside [0, 1]; limit_exceeded
  // when a candidate table would pass o.max_candidates (nothing is allocated for it); overflow when
  // memory runs out. A group without reports ends discovery with an empty result. Never throws.
  // Cost: OLH (pem) estimates every candidate against every report of its group, O(n_g C).
  [[nodiscard]] status discover(const discovery_options& o, std::vector<discovered_string>* out) const;

  // Full strings, estimated as discover() estimates a string it finds (pem, treehist: pooled over the
  // groups since it ended, docs/mechanisms.md F.2; sfp: the word group), at the given confidence; a
  // string pad_string refuses (empty, too long, a zero byte) gets NaN in every field but item.
  // invalid_argument for a null out or a confidence outside [0, 1]; overflow when memory runs out.
  [[nodiscard]] status estimate_strings(const std::vector<std::string>& strings, double confidence,
                                        std::vector<estimate>* out) const;

  // Reports counted by group g (0 for g >= G).
  [[nodiscard]] uint64_t group_reports(uint32_t g) const noexcept;

 protected:
  string_discovery_aggregator(const wire::params& p, std::vector<std::unique_ptr<frequency_aggregator>> groups);

  status ingest(const wire::report& r) noexcept override;
  status merge_counts(const aggregator& other) override;
  void write_body(std::vector<unsigned char>& out) const override;
  status read_body(span<const unsigned char> body) override;
  // Lists nothing: the family's estimates are discover() and estimate_strings() (aggregator.h).
  std::vector<estimate> estimate_impl(double z) const override;

 private:
  std::vector<std::unique_ptr<frequency_aggregator>> groups_;  // one per group, on wire::string_inner_block
};

}  // namespace ldp::server

#endif

// What the discovery algorithms share (docs/mechanisms.md F.1): the group estimates scaled to all n
// reports (also the tree forms' levels, G.2 and G.3: tree_estimation.cpp), the selection of the best
// candidates and TreeHist/SFP's noise threshold (string_groups.cpp), and the two searches
// (prefix_discovery.cpp, sfp_discovery.cpp).
#ifndef LDP_SERVER_SRC_STRING_GROUPS_H
#define LDP_SERVER_SRC_STRING_GROUPS_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/server/frequency.h"
#include "ldp/server/string_discovery.h"
#include "ldp/wire/params.h"
#include "ldp/wire/string_params.h"

namespace ldp::server::detail {

// The groups of one aggregator (string discovery's groups, a tree form's levels), read-only, with
// their estimates scaled from group g's n_g reports to all n: count (n / n_g) c_g, variance
// (n / n_g)^2 Var(c_g) + c (1 - c / n) (n / n_g - 1) with c the scaled count clipped to [0, n],
// normal interval. The second term is what the uniform group draw
// adds given n_g: the holders among group g's n_g users are hypergeometric, variance
// n_g (c / n)(1 - c / n)(n - n_g) / (n - 1), times (n / n_g)^2 (n / (n - 1) taken as 1). For a rare
// string it is c (n / n_g - 1), the binomial figure. That term is one item's: a sum over several
// items or groups draws them together, and its draw term is the sum's own (string_pool below, and
// the tree forms' ranges, tree_estimation.cpp).
class group_view {
 public:
  group_view(const wire::params& p, const std::vector<std::unique_ptr<frequency_aggregator>>& groups, uint64_t n)
      : params_(p), groups_(groups), n_(n) {}

  const wire::params& parameters() const noexcept { return params_; }
  uint32_t groups() const noexcept { return static_cast<uint32_t>(groups_.size()); }
  uint64_t reports(uint32_t g) const noexcept { return groups_[g]->reports(); }

  // The scaled estimates of group g's inner items at confidence (*out: one per item). overflow when
  // memory runs out; a group without reports gives NaN counts and infinite variances.
  [[nodiscard]] status scaled(uint32_t g, span<const uint32_t> items, double confidence,
                              std::vector<estimate>* out) const;

  // The group draw's term for a count estimated from `sample` of the n reports (one group, or the
  // union of the groups a pool sums): c (1 - c / n)(n / sample - 1), c the value clipped to [0, n].
  [[nodiscard]] double draw_variance(double value, double sample) const noexcept;
  uint64_t total() const noexcept { return n_; }

 private:
  const wire::params& params_;
  const std::vector<std::unique_ptr<frequency_aggregator>>& groups_;
  uint64_t n_;
};

// What best_of ranks by: the estimate, or the lower end of its interval (pem and treehist, whose
// pooled and one-group estimates are not equally sure, F.2).
enum class rank_by : uint8_t { value, lower_end };

// The indices of the (at most) `keep` largest keys among est[i] for which `eligible` is nonzero (or
// every i when it is empty), largest first, ties by index: the result is a function of the counts.
[[nodiscard]] std::vector<std::size_t> best_of(const std::vector<estimate>& est, uint64_t keep,
                                               const std::vector<unsigned char>& eligible,
                                               rank_by key = rank_by::value);

// TreeHist and SFP's threshold (F.3): z sd, sd the standard deviation of an estimate at count 0 and z
// the normal quantile of 1 - 1/(2 C) for the C candidates, so that about 1/2 false candidate per
// table passes. sd^2 is the smaller of two figures. The oracle's: the smallest variance of the
// estimates whose value is at most 0 (their plug-in count is clipped to 0; when none is, the smallest
// variance). For the sketches it holds the collision plug-in of every candidate of the list, which
// the noise of a long list inflates (A.6). The table's: the squared robust spread of its estimates,
// 1.4826 times their median absolute deviation, since most candidates hold nothing.
[[nodiscard]] double noise_threshold(const std::vector<estimate>& est);
// Its z for a table of `candidates`: the normal quantile of 1 - 1/(2 C).
[[nodiscard]] double noise_z(std::size_t candidates) noexcept;

// The distinct nonzero bytes of a discovery_options::alphabet, sorted (empty for an empty one).
[[nodiscard]] std::vector<unsigned char> alphabet_bytes(const std::string& given);

// Whether a prefix of `bits` bits holds a complete zero byte: padding, so its string has ended (a
// string has no zero byte and is padded with zeros, so its last complete byte tells). Every later
// group of pem and treehist counts exactly that string.
[[nodiscard]] inline bool prefix_ended(const wire::padded_string& prefix, uint32_t bits) noexcept {
  const uint32_t complete = bits / 8;
  return complete != 0 && prefix.bytes[complete - 1] == 0;
}

// The estimate of an ended string pooled over the groups that count it (F.2), weighted by their
// reports n_g, which do not depend on the estimates, so the pool stays unbiased: N = sum n_g,
// sum n_g x_g / N, variance sum n_g^2 o_g / N^2 + the group draw's term for the N reports of the
// union, o_g group g's oracle variance (its scaled variance without its own draw term: the holders
// of the groups are drawn together, so their draw terms do not add).
struct string_pool {
  double weight = 0, sum = 0, oracle = 0;
  void add(const group_view& v, uint32_t g, const estimate& e) noexcept;
  // The pooled value, variance and normal interval of half-width z sd into *e (weight > 0).
  void into(const group_view& v, double z, estimate* e) const noexcept;
};

// The search of pem (threshold false: the `keep` best per group) and treehist (threshold true: those
// above noise_threshold, at most `keep`), prefix_discovery.cpp.
[[nodiscard]] status discover_prefixes(const group_view& v, const discovery_options& o, uint64_t keep, bool threshold,
                                       std::vector<discovered_string>* out);
// pem, treehist: the estimates of whole padded strings, each pooled over every group since it ended
// (the last group alone for a string of L bytes); prefix_discovery.cpp.
[[nodiscard]] status estimate_prefix_strings(const group_view& v, const std::vector<wire::padded_string>& strings,
                                             double confidence, std::vector<estimate>* out);
// The search of sfp (sfp_discovery.cpp).
[[nodiscard]] status discover_words(const group_view& v, const discovery_options& o, uint64_t keep,
                                    std::vector<discovered_string>* out);

// The string of a padded item: its bytes before the first zero byte.
[[nodiscard]] std::string unpadded(const wire::padded_string& s);

}  // namespace ldp::server::detail

#endif

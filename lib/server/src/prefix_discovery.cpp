// PEM and TreeHist's search (docs/mechanisms.md F.2, F.3): group g reports prefixes of (g + 1) eta
// bits, so the server extends the prefixes it kept from group g - 1 by every eta-bit value, estimates
// them on group g, and keeps the best (pem) or those above the noise threshold (treehist, at most
// `keep`). A prefix whose string already ended (a complete zero byte) extends by zeros only, and a
// complete first byte of zero is no string. A candidate is (kept parent, value), 8 bytes, and its
// item is derived on the stack: a table of C candidates costs C (8 + 4 + sizeof(estimate)) bytes,
// which o.max_candidates bounds before anything is allocated for it. The inner OLH (pem) estimates
// every candidate against every report of its group: O(n_g C) hash evaluations a group, vectorized
// and threaded (local_hashing.cpp); HCMS (treehist) k per candidate.
//
// An ended prefix is a whole string, and every later group estimates the same count (its prefixes
// of the string and its padding are held by the string's holders only). So its estimate pools the
// groups since it ended, weighted by their reports (weights that do not depend on the estimates, so
// the pool stays unbiased): sum n_g x_g / sum n_g, variance sum n_g^2 v_g / (sum n_g)^2. A word of
// 3 bytes among L = 16 is estimated by 13 groups' users, not one's. Pooled and one-group estimates
// are not equally sure, so candidates are ranked by the lower end of their interval (F.2). With an
// alphabet, a completed byte outside it (and not the padding) ends the candidate.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "estimation.h"
#include "string_groups.h"

namespace ldp::server::detail {
namespace {

using wire::padded_string;

// Whether a prefix of `bits` bits holds a complete zero byte: padding, so its string has ended (a
// string has no zero byte and is padded with zeros, so its last complete byte tells).
bool ended(const padded_string& prefix, uint32_t bits) noexcept {
  const uint32_t complete = bits / 8;
  return complete != 0 && prefix.bytes[complete - 1] == 0;
}

// The prefix `parent` (of `before` bits, the bits past them zero) followed by the eta-bit `value`
// (eta divides 8, so the new bits lie in one byte, most significant bit first).
padded_string extended(const padded_string& parent, uint32_t before, uint32_t eta, uint32_t value) noexcept {
  padded_string out = parent;
  const uint32_t shift = 8 - before % 8 - eta;
  out.bytes[before / 8] = static_cast<unsigned char>(out.bytes[before / 8] | (value << shift));
  return out;
}

struct candidate {
  uint32_t parent;
  uint32_t value;
};

// The groups that estimated an ended prefix, as the pool above sums them.
struct pool {
  double weight = 0, sum = 0, variance = 0;
  void add(double n_g, const estimate& e) noexcept {
    weight += n_g;
    sum += n_g * e.value;
    variance += n_g * n_g * e.variance;
  }
};

// The bytes a completed byte may be: all when the alphabet is empty, else it and the padding.
std::array<bool, 256> allowed_bytes(const std::string& alphabet) {
  std::array<bool, 256> out{};
  out.fill(alphabet.empty());
  out[0] = true;
  for (const unsigned char c : alphabet_bytes(alphabet)) out[c] = true;
  return out;
}

}  // namespace

status discover_prefixes(const group_view& v, const discovery_options& o, uint64_t keep, bool threshold,
                         std::vector<discovered_string>* out) {
  const wire::params& p = v.parameters();
  const auto eta = static_cast<uint32_t>(p.get(wire::field::prefix_bits));
  const uint32_t values = uint32_t{1} << eta;
  const std::array<bool, 256> allowed = allowed_bytes(o.alphabet);
  const double z = confidence_z(o.confidence);
  std::vector<padded_string> kept(1);  // the empty prefix
  std::vector<pool> pools(1);          // kept[i]'s pool (empty while it has not ended)
  std::vector<pool> table_pools;
  std::vector<candidate> table;
  std::vector<uint32_t> items;
  std::vector<estimate> est;
  std::vector<unsigned char> eligible;
  for (uint32_t g = 0; g < v.groups(); ++g) {
    if (v.reports(g) == 0) return status::ok;  // nothing speaks to these prefixes: nothing found
    const uint32_t before = g * eta, bits = before + eta;
    uint64_t size = 0;
    for (const padded_string& parent : kept) size += ended(parent, before) ? 1 : values;
    if (size > o.max_candidates) return status::limit_exceeded;
    table.clear();
    items.clear();
    table_pools.clear();
    table.reserve(static_cast<std::size_t>(size));
    items.reserve(static_cast<std::size_t>(size));
    table_pools.reserve(static_cast<std::size_t>(size));
    for (std::size_t i = 0; i < kept.size(); ++i) {
      const bool done = ended(kept[i], before);
      for (uint32_t value = 0; value < (done ? 1 : values); ++value) {
        const padded_string c = extended(kept[i], before, eta, value);
        if (bits == 8 && c.bytes[0] == 0) continue;  // an empty string
        if (bits % 8 == 0 && !allowed[c.bytes[bits / 8 - 1]]) continue;
        table.push_back(candidate{static_cast<uint32_t>(i), value});
        items.push_back(wire::prefix_item(p, bits, c.bytes));
        table_pools.push_back(done ? pools[i] : pool{});
      }
    }
    const status s = v.scaled(g, items, o.confidence, &est);
    if (s != status::ok) return s;
    eligible.clear();
    const double t = threshold ? noise_threshold(est) : 0;
    const auto n_g = static_cast<double>(v.reports(g));
    for (std::size_t i = 0; i < est.size(); ++i) {
      estimate& e = est[i];
      const bool pooled = ended(extended(kept[table[i].parent], before, eta, table[i].value), bits);
      if (pooled) {
        table_pools[i].add(n_g, e);
        const pool& q = table_pools[i];
        e.value = q.sum / q.weight;
        e.variance = q.variance / (q.weight * q.weight);
        e.ci_low = e.value - z * std::sqrt(e.variance);
        e.ci_high = e.value + z * std::sqrt(e.variance);
      }
      // A pooled estimate has its own (smaller) spread: it passes TreeHist's test at the same z.
      if (threshold) {
        eligible.push_back((pooled ? e.value > noise_z(est.size()) * std::sqrt(e.variance) : e.value > t) ? 1 : 0);
      }
    }
    const bool last = g + 1 == v.groups();
    const std::vector<std::size_t> best =
        best_of(est, last ? std::min<uint64_t>(keep, o.k) : keep, eligible, rank_by::lower_end);
    std::vector<padded_string> next;
    std::vector<pool> next_pools;
    next.reserve(best.size());
    next_pools.reserve(best.size());
    for (const std::size_t i : best) {
      next.push_back(extended(kept[table[i].parent], before, eta, table[i].value));
      next_pools.push_back(table_pools[i]);
    }
    if (last) {
      for (std::size_t j = 0; j < best.size(); ++j) out->push_back(discovered_string{unpadded(next[j]), est[best[j]]});
    }
    kept = std::move(next);
    pools = std::move(next_pools);
  }
  return status::ok;
}

}  // namespace ldp::server::detail

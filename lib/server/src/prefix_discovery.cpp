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
  bool ended;  // a whole string (prefix_ended): its estimate pools
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
  std::vector<string_pool> pools(1);   // kept[i]'s pool (empty while it has not ended)
  std::vector<string_pool> table_pools;
  std::vector<candidate> table;
  std::vector<uint32_t> items;
  std::vector<estimate> est;
  std::vector<unsigned char> eligible;
  for (uint32_t g = 0; g < v.groups(); ++g) {
    if (v.reports(g) == 0) return status::ok;  // nothing speaks to these prefixes: nothing found
    const uint32_t before = g * eta, bits = before + eta;
    uint64_t size = 0;
    for (const padded_string& parent : kept) size += prefix_ended(parent, before) ? 1 : values;
    if (size > o.max_candidates) return status::limit_exceeded;
    table.clear();
    items.clear();
    table_pools.clear();
    table.reserve(static_cast<std::size_t>(size));
    items.reserve(static_cast<std::size_t>(size));
    table_pools.reserve(static_cast<std::size_t>(size));
    for (std::size_t i = 0; i < kept.size(); ++i) {
      const bool done = prefix_ended(kept[i], before);
      for (uint32_t value = 0; value < (done ? 1 : values); ++value) {
        const padded_string c = extended(kept[i], before, eta, value);
        if (bits == 8 && c.bytes[0] == 0) continue;  // an empty string
        if (bits % 8 == 0 && !allowed[c.bytes[bits / 8 - 1]]) continue;
        table.push_back(candidate{static_cast<uint32_t>(i), value, prefix_ended(c, bits)});
        items.push_back(wire::prefix_item(p, bits, c.bytes));
        table_pools.push_back(done ? pools[i] : string_pool{});
      }
    }
    const status s = v.scaled(g, items, o.confidence, &est);
    if (s != status::ok) return s;
    eligible.clear();
    const double t = threshold ? noise_threshold(est) : 0;
    for (std::size_t i = 0; i < est.size(); ++i) {
      estimate& e = est[i];
      const bool pooled = table[i].ended;
      if (pooled) {
        table_pools[i].add(v, g, e);
        table_pools[i].into(v, z, &e);
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
    std::vector<string_pool> next_pools;
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

status estimate_prefix_strings(const group_view& v, const std::vector<padded_string>& strings, double confidence,
                               std::vector<estimate>* out) {
  const wire::params& p = v.parameters();
  const auto eta = static_cast<uint32_t>(p.get(wire::field::prefix_bits));
  const double z = confidence_z(confidence);
  std::vector<string_pool> pools(strings.size());
  std::vector<std::size_t> asked;
  std::vector<uint32_t> items;
  std::vector<estimate> est;
  out->assign(strings.size(), estimate{});
  for (uint32_t g = 0; g < v.groups(); ++g) {
    // The groups since a string ended count it; a string of L bytes ends in the last group only.
    const uint32_t bits = (g + 1) * eta;
    const bool last = g + 1 == v.groups();
    asked.clear();
    items.clear();
    for (std::size_t i = 0; i < strings.size(); ++i) {
      if (!last && !prefix_ended(strings[i], bits)) continue;
      asked.push_back(i);
      items.push_back(wire::prefix_item(p, bits, strings[i].bytes));
    }
    if (items.empty() || v.reports(g) == 0) continue;
    const status s = v.scaled(g, items, confidence, &est);
    if (s != status::ok) return s;
    for (std::size_t j = 0; j < asked.size(); ++j) {
      pools[asked[j]].add(v, g, est[j]);
      if (last) (*out)[asked[j]].item = est[j].item;  // the last group's item, as discover() reports it
    }
  }
  for (std::size_t i = 0; i < strings.size(); ++i) {
    if (pools[i].weight == 0) {  // no group has a report: as group_view::scaled says of an empty group
      (*out)[i] = empty_estimate(0);
      continue;
    }
    pools[i].into(v, z, &(*out)[i]);
  }
  return status::ok;
}

}  // namespace ldp::server::detail

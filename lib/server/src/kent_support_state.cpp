// The kent-support aggregator and the support selection (ldp/server/kent_support.h).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <vector>

#include "estimation.h"
#include "family.h"
#include "ldp/base/bits.h"
#include "ldp/base/int128.h"
#include "ldp/kernels/kernel_table.h"
#include "ldp/random/projection.h"
#include "ldp/server/kent_support.h"
#include "ldp/server/mean.h"
#include "ldp/wire/byte_cursor.h"
#include "state_io.h"

namespace ldp::server {
namespace {

using wire::field;

constexpr std::size_t entry_bytes = 16;  // u64 seed, i64 Z

struct entry {
  uint64_t seed;
  int64_t value;
  bool operator<(const entry& o) const { return seed != o.seed ? seed < o.seed : value < o.value; }
};

class kent_support_aggregator final : public aggregator {
 public:
  explicit kent_support_aggregator(const wire::params& p)
      : aggregator(p), d_(static_cast<uint32_t>(p.get(field::domain))) {}

 protected:
  status ingest(const wire::report& r) noexcept override {
    try {
      entries_.push_back(entry{r.seed, r.value});
    } catch (...) {
      return status::overflow;  // out of memory: the report is rejected, the state is unchanged
    }
    return status::ok;
  }

  status merge_counts(const aggregator& other) override {
    const auto& o = static_cast<const kent_support_aggregator&>(other);
    const std::size_t theirs = o.entries_.size();  // before any growth: merging into itself stays valid
    entries_.reserve(entries_.size() + theirs);
    for (std::size_t i = 0; i < theirs; ++i) entries_.push_back(o.entries_[i]);
    return status::ok;
  }

  void write_body(std::vector<unsigned char>& out) const override {
    std::vector<entry> sorted(entries_);
    std::sort(sorted.begin(), sorted.end());
    out.reserve(out.size() + entry_bytes * sorted.size());
    for (const entry& e : sorted) {
      detail::put_u64(out, e.seed);
      detail::put_u64(out, static_cast<uint64_t>(e.value));
    }
  }

  status read_body(span<const unsigned char> body) override {
    if (body.size() != uint64_t{entry_bytes} * reports_) return status::wrong_length;
    std::vector<entry> read;
    read.reserve(static_cast<std::size_t>(reports_));
    wire::byte_reader in(body);
    for (uint64_t i = 0; i < reports_; ++i) {
      const entry e{in.get_le(8), static_cast<int64_t>(in.get_le(8))};
      if (i != 0 && e < read.back()) return status::malformed_report;  // not canonical
      read.push_back(e);
    }
    entries_ = std::move(read);
    return status::ok;
  }

  std::vector<estimate> estimate_impl(double z) const override {
    std::vector<estimate> out;
    out.reserve(d_);
    if (reports_ == 0) {
      for (uint32_t j = 0; j < d_; ++j) out.push_back(detail::empty_estimate(j));
      return out;
    }
    // sum_i R_ij Z_i = sum_i Z_i - 2 sum_{i: R_ij = -1} Z_i, exact in 128 bits (n < 2^62, |Z| < 2^63).
    i128 total{};
    long double squares = 0;
    std::vector<i128> negative(d_);
    std::vector<uint32_t> row(random::projection_row_words(d_));
    unsigned char key[random::chacha20_key_size];
    const kernels::table& table = kernels::native();
    for (const entry& e : entries_) {
      random::projection_key(e.seed, key);
      if (random::projection_row_signs(table, key, d_, 0, row) != status::ok) return {};
      const i128 value = to_i128(e.value);
      total += value;
      squares += static_cast<long double>(e.value) * static_cast<long double>(e.value);
      for (uint32_t j = 0; j < d_; ++j) {
        if (((row[j / 32] >> (j % 32)) & 1u) != 0) negative[j] += value;  // R_ij = -1
      }
    }
    const auto n = static_cast<double>(reports_);
    const double second_moment = static_cast<double>(squares / static_cast<long double>(reports_));
    const double noise = laplace_noise_variance(params_);
    for (uint32_t j = 0; j < d_; ++j) {
      const double score = to_double(total - negative[j] - negative[j]) / n;
      const double variance = std::max(second_moment - score, noise) / n;
      out.push_back(detail::make_estimate(j, score, variance, z, variance_kind::average));
    }
    return out;
  }

 private:
  uint32_t d_;
  std::vector<entry> entries_;  // arrival order; write_body sorts
};

}  // namespace

std::vector<uint32_t> select_support(span<const estimate> scores, uint32_t s, double bar) {
  std::vector<uint32_t> candidates;
  for (uint32_t j = 0; j < scores.size(); ++j) {
    if (scores[j].value >= bar) candidates.push_back(j);  // false for NaN
  }
  // The s largest scores, ties to the lower index (a stable order on the score alone).
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](uint32_t a, uint32_t b) { return scores[a].value > scores[b].value; });
  if (candidates.size() > s) candidates.resize(s);
  std::sort(candidates.begin(), candidates.end());
  std::vector<uint32_t> items;
  items.reserve(candidates.size());
  for (uint32_t j : candidates) items.push_back(scores[j].item);
  return items;
}

bool is_kent_support_mechanism(wire::mechanism m) noexcept {
  return detail::served_by(m, detail::make_kent_support_aggregator);
}

status detail::make_kent_support_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out) {
  *out = std::make_unique<kent_support_aggregator>(p);
  return status::ok;
}

bool detail::kent_support_body_size(const wire::params&, uint64_t n, uint64_t* bytes) {
  return checked_mul(n, uint64_t{entry_bytes}, bytes);
}

}  // namespace ldp::server

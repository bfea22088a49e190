// The public-coin aggregator and its grid estimates (ldp/server/public_coin.h, docs/mechanisms.md
// H.2, H.3).
#include <cmath>
#include <cstddef>
#include <memory>
#include <vector>

#include "estimation.h"
#include "family.h"
#include "ldp/base/bits.h"
#include "ldp/base/int128.h"
#include "ldp/kernels/kernel_table.h"
#include "ldp/random/public_coin.h"
#include "ldp/server/mean.h"
#include "ldp/server/public_coin.h"
#include "ldp/wire/byte_cursor.h"
#include "ldp/wire/public_coin_params.h"
#include "state_io.h"

namespace ldp::server {
namespace {

using wire::field;

constexpr std::size_t group_bytes = 32;  // u64 reports, u64 ones, i128 sum

struct group_sums {
  uint64_t reports = 0, ones = 0;
  i128 sum{};
};

class public_coin_aggregator final : public aggregator {
 public:
  explicit public_coin_aggregator(const wire::params& p)
      : aggregator(p),
        partition_(kernels::native(), params_.hash_seed, static_cast<uint32_t>(p.get(field::users))),
        groups_(wire::coin_groups(p)) {}

  // Per-group estimates in grid order (see the header for the formulas).
  grid_estimate grid(coin_estimator e) const {
    grid_estimate out;
    out.value.reserve(groups_.size());
    out.variance.reserve(groups_.size());
    const double grid = static_cast<double>(wire::coin_grid(params_));
    const double noise = laplace_noise_variance(params_);
    const bool one_bit = params_.mech == wire::mechanism::bernstein_1bit;
    for (const group_sums& g : groups_) {
      const bool ratio = one_bit && e == coin_estimator::ratio;
      const uint64_t base = ratio ? g.ones : g.reports;
      if (base == 0) {
        out.value.push_back(std::nan(""));
        out.variance.push_back(HUGE_VAL);
        continue;
      }
      const double count = static_cast<double>(base);
      const double value = (one_bit && !ratio ? 2 : 1) * to_double(g.sum) / (count * grid);
      double variance = noise / (count * grid * grid);
      if (one_bit && !ratio) {
        const double v = value < 0 ? 0 : (value > 1 ? 1 : value);
        variance = (v * v + 2 * noise / (grid * grid)) / count;
      }
      out.value.push_back(value);
      out.variance.push_back(variance);
    }
    return out;
  }

 protected:
  status ingest(const wire::report& r) noexcept override {
    // The decoder checked i < n and, for genprot, g < T.
    const bool one_bit = params_.mech == wire::mechanism::bernstein_1bit;
    group_sums& g = groups_[partition_.group(r.index, static_cast<uint32_t>(groups_.size()))];
    ++g.reports;
    if (one_bit && r.bit == 0) return status::ok;
    const int64_t y =
        random::public_sample(kernels::native(), params_.hash_seed, params_.get(field::scale_num),
                              params_.get(field::scale_den), r.index, one_bit ? 0 : static_cast<uint32_t>(r.value));
    if (one_bit) ++g.ones;
    g.sum += to_i128(y);
    return status::ok;
  }

  status merge_counts(const aggregator& other) override {
    const auto& o = static_cast<const public_coin_aggregator&>(other);
    for (std::size_t l = 0; l < groups_.size(); ++l) {
      groups_[l].reports += o.groups_[l].reports;
      groups_[l].ones += o.groups_[l].ones;
      groups_[l].sum += o.groups_[l].sum;
    }
    return status::ok;
  }

  void write_body(std::vector<unsigned char>& out) const override {
    out.reserve(out.size() + group_bytes * groups_.size());
    for (const group_sums& g : groups_) {
      detail::put_u64(out, g.reports);
      detail::put_u64(out, g.ones);
      detail::put_u64(out, g.sum.lo);
      detail::put_u64(out, g.sum.hi);
    }
  }

  status read_body(span<const unsigned char> body) override {
    if (body.size() != uint64_t{group_bytes} * groups_.size()) return status::wrong_length;
    std::vector<group_sums> read(groups_.size());
    wire::byte_reader in(body);
    uint64_t total = 0;
    const bool one_bit = params_.mech == wire::mechanism::bernstein_1bit;
    for (group_sums& g : read) {
      g.reports = in.get_le(8);
      g.ones = in.get_le(8);
      g.sum.lo = in.get_le(8);
      g.sum.hi = in.get_le(8);
      // Invariants: the counts add up to the reports, a 1bit group's ones are among its reports and
      // genprot counts none; |S| <= 2^63 m.
      if (g.ones > (one_bit ? g.reports : 0) || !checked_add(total, g.reports, &total)) {
        return status::malformed_report;
      }
      const u128 bound = mul_64x64(g.reports, uint64_t{1} << 63);
      const u128 size = magnitude(g.sum);
      if (size.hi > bound.hi || (size.hi == bound.hi && size.lo > bound.lo)) return status::malformed_report;
    }
    if (total != reports_) return status::malformed_report;
    groups_ = std::move(read);
    return status::ok;
  }

  std::vector<estimate> estimate_impl(double z) const override {
    const grid_estimate g = grid(coin_estimator::horvitz_thompson);
    std::vector<estimate> out;
    out.reserve(g.value.size());
    for (std::size_t l = 0; l < g.value.size(); ++l) {
      const auto item = static_cast<uint32_t>(l);
      out.push_back(std::isnan(g.value[l])
                        ? detail::empty_estimate(item)
                        : detail::make_estimate(item, g.value[l], g.variance[l], z, variance_kind::average));
    }
    return out;
  }

 private:
  random::public_partition partition_;
  std::vector<group_sums> groups_;
};

}  // namespace

bool is_public_coin_mechanism(wire::mechanism m) noexcept {
  return detail::served_by(m, detail::make_public_coin_aggregator);
}

status grid_estimate_of(const aggregator& a, coin_estimator e, grid_estimate* out) {
  if (out == nullptr || !is_public_coin_mechanism(a.parameters().mech)) return status::invalid_argument;
  try {
    *out = static_cast<const public_coin_aggregator&>(a).grid(e);
  } catch (...) {
    return status::overflow;  // out of memory
  }
  return status::ok;
}

double genprot_bias_bound(const wire::params& p) noexcept {
  if (p.mech != wire::mechanism::bernstein_genprot) return std::nan("");
  const wire::coin_levels c = wire::enumerate_levels(p);
  const double others = static_cast<double>(p.get(field::public_strings)) - 1;
  return 2 * std::pow(1 - c.p_lo, others) * (1 + others * c.p_hi) / (others + 1);
}

status detail::make_public_coin_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out) {
  *out = std::make_unique<public_coin_aggregator>(p);
  return status::ok;
}

bool detail::public_coin_body_size(const wire::params& p, uint64_t, uint64_t* bytes) {
  return checked_mul(uint64_t{wire::coin_groups(p)}, uint64_t{group_bytes}, bytes);
}

}  // namespace ldp::server

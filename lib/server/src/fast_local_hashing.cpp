// FLH, fast local hashing (Cormode, Maddock, Maple 2021), aggregation and estimation:
// docs/mechanisms.md A.4.
//
// A report names one of the block's k public functions H_j (wire::flh_function, j revealed) and a
// bucket y = GRR_g(H_j(v)), as the index j g + y. The state is the histogram h of those indexes:
// k x g exact counts, h[j g + y] (histogram_aggregator: merge by addition, saved as k g u64 summing
// to n). O(1) per report.
//
// Support of v: C_v = sum_j h[j g + H_j(v)], O(k) per item, so O(k d) for every item instead of
// OLH's O(n d). Estimator as OLH: the A.0 template with (p-hat, q* = 1/g). Variance [derived in A.4]:
// - all d items of a sparse family (16 d <= k g, k >= 16): the mean squared error at the k public
//   functions in use (A.4 "Conditional on the public functions"; kind exact, or bound when the
//   pairs of items sharing buckets pass the budget of collision_moments.h), with r = g/(g-1),
//   q_g = (1 - p-hat)/(g - 1), delta = p-hat - q_g, a_y(v) the share of functions in which y meets v,
//     Var = r^2 (n q_g (1 - q_g)/delta^2 + (1 - 2 q_g)/delta (c_v + S1) - c_v - S2),
//     b   = r (S1 - (n - c_v)/g),  S1 = sum_{y != v} c_y a_y(v),  S2 = sum_{y != v} c_y a_y(v)^2;
// - otherwise the template plus the term of users who share a function averaged over 3-wise
//   independent functions, sum_{w != v} c_w (c_w - 1) / (k (g - 1)) (kind average). [impl] Its
//   plug-in runs over the D items being estimated, from u_w = c-hat_w (c-hat_w - 1) - V_w (V the
//   template variance), whose expectation is t_w + (T - t_w)/(k (g - 1)) with t_w = c_w (c_w - 1),
//   T = sum t_w: solved for T and t_v, unbiased where the clipped plug-in of CMS (sketch.cpp) counts
//   the noise of every item as collisions.
#include <algorithm>
#include <atomic>

#include "collision_moments.h"
#include "estimation.h"
#include "factories.h"
#include "histogram_aggregator.h"
#include "ldp/wire/hash.h"
#include "parallel.h"
#include "support_model.h"

#if defined(__GNUC__)  // GCC and Clang
#define LDP_FLH_OUT_OF_LINE [[gnu::noinline]]
#else
#define LDP_FLH_OUT_OF_LINE
#endif

namespace ldp::server::detail {
namespace {

using wire::field;

// Items per block of the decode: the block's support counts (32 KiB) stay in L1 while every function
// adds to them; the threads claim blocks.
constexpr uint32_t decode_block = 4096;
// The least function-item pairs worth a thread of their own (the rule of OLH's support counting,
// docs/architecture.md "Threads"): about 1.1 ms of the walk on one core here (1.06 ns a pair),
// several times what starting and joining a thread costs.
constexpr uint64_t min_pairs_per_thread = uint64_t{1} << 20;
// The fewest public functions for the variance conditional on them (A.4).
constexpr uint32_t min_conditional_functions = 16;

class flh_aggregator final : public histogram_aggregator {
 public:
  flh_aggregator(const wire::params& p, std::size_t cells, support_model model)
      : histogram_aggregator(p, cells, model),
        k_(static_cast<uint32_t>(p.get(field::sketch_rows))),
        g_(static_cast<uint32_t>(p.get(field::hash_range))) {}

 protected:
  std::vector<estimate> estimate_items_impl(span<const uint32_t> items, double z) const override {
    const std::vector<uint64_t> support = supports(items);
    const auto n = static_cast<double>(reports_);
    std::vector<double> counts(items.size()), noise(items.size()), terms(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      counts[i] = model_.count(static_cast<double>(support[i]), n);
      noise[i] = model_.variance(counts[i], n);
      // E[c-hat (c-hat - 1)] = c (c - 1) + Var c-hat: an unbiased plug-in, unclipped (A.4 [impl]).
      terms[i] = counts[i] * (counts[i] - 1) - noise[i];
    }
    // With K = k (g - 1), E[terms_w] = t_w + (T - t_w)/K for t_w = c_w (c_w - 1) and T their sum over
    // the D distinct items (each c-hat carries the shared-hash term of the others): solved for T and
    // t_v, the term of v is (T - t_v)/K. K = 1 (k = 1, g = 2) cannot separate t_v from T: T/K.
    const collision_sums sums = sum_collisions(items, terms);
    // The conditional form needs the whole domain (the items outside a candidate list are unknown),
    // a sparse family, 16 d <= k g, the rule of CMS (A.6: the plug-ins' own collision biases grow
    // with d / (k g)), and k >= 16: its bias plug-ins leave one function out, and with fewer
    // functions their own collision biases (chains of two collisions, each of weight 1/k) left 1.24
    // where 16 functions give 1.03 (A.4, tests/statistical/server/test_flh_conditional.cpp).
    if (sums.distinct == params_.get(field::domain) && k_ >= min_conditional_functions &&
        16 * uint64_t{sums.distinct} <= uint64_t{k_} * g_) {
      return conditional_estimates(items, support, counts, z);
    }
    const double shared = static_cast<double>(k_) * static_cast<double>(g_ - 1);
    const double total = sums.total / (1 + (static_cast<double>(sums.distinct) - 1) / shared);
    std::vector<estimate> out;
    out.reserve(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      const double own = shared > 1 ? (terms[i] - total / shared) / (1 - 1 / shared) : 0.0;
      const double others = total - own > 0 ? total - own : 0.0;
      // The k-term averages over the public functions the block names (A.4): an average.
      out.push_back(make_estimate(items[i], counts[i], noise[i] + others / shared, z, variance_kind::average));
    }
    return out;
  }

  // The variance conditional on the public functions (A.4) for the plug-in count c (clipped), n
  // reports and the collision moments s1 = sum_{y != v} c_y a_y(v), s2 = sum_{y != v} c_y a_y(v)^2.
  double conditional_variance(double c, double n, double s1, double s2) const noexcept {
    const double g = g_, r = g / (g - 1);
    const double q = (1 - model_.p) / (g - 1), delta = model_.p - q;
    return r * r * (n * q * (1 - q) / (delta * delta) + (1 - 2 * q) / delta * (c + s1) - c - s2);
  }

  // The mean squared error conditional on the k public functions when `items` covers the whole
  // domain (A.4 "Conditional on the public functions"): support[i] and counts[i] are C_v and c-hat_v
  // of v = items[i]; k >= 2 (the bias plug-ins leave one function out).
  std::vector<estimate> conditional_estimates(span<const uint32_t> items, const std::vector<uint64_t>& support,
                                              const std::vector<double>& counts, double z) const {
    const auto d = static_cast<uint32_t>(params_.get(field::domain));
    const auto n = static_cast<double>(reports_);
    const double g = g_, r = g / (g - 1), scale = model_.p - model_.q;
    const auto buckets_of = [&](uint32_t j, std::vector<uint32_t>& buckets) {
      const wire::flh_key key = wire::flh_function(params_.hash_seed, j);
      for (uint32_t x = 0; x < d; ++x) buckets[x] = wire::flh_bucket(wire::flh_value(key, x), g_);
    };
    // Plug-in of the bias. With sum_y c_y = n, b = r sum_{y != v} c_y e_y(v), e_y(v) = a_y(v) - 1/g:
    // centred, so its plug-in carries only the noise of the small e_y (the uncentred form adds the
    // noise of every c-hat_y / g). With function j, an item y that shares v's bucket l carries that
    // cell's count h[j g + l] (a heavy item's, say) in its own support a second time, so y enters
    // with its estimate from the other functions' n - n_j reports, scaled to n:
    // c-hat_y^(-j) = ((C_y - h[j g + H_j(y)]) n/(n - n_j) - n/g)/(p-hat - 1/g) (A.4); where every
    // report used j, c-hat_y itself. Per function: the bucket's sum of c-hat_y^(-j) less 1/g of the
    // sum over all y != v, both from sums over the buckets, O(d + g).
    std::vector<double> own(d), shared(d, 0.0);
    for (std::size_t i = 0; i < items.size(); ++i) own[items[i]] = static_cast<double>(support[i]);
    double everyone = 0;
    for (double c : own) everyone += c;
    {
      std::vector<uint32_t> buckets(d);
      std::vector<double> total(g_), size(g_);
      for (uint32_t j = 0; j < k_; ++j) {
        const uint64_t* row = hist_.data() + std::size_t{j} * g_;
        double used = 0;
        for (uint32_t l = 0; l < g_; ++l) used += static_cast<double>(row[l]);
        const double rest = used < n ? n / (n - used) : 1.0;
        const double cell_weight = used < n ? 1.0 : 0.0;
        buckets_of(j, buckets);
        std::fill(total.begin(), total.end(), 0.0);
        std::fill(size.begin(), size.end(), 0.0);
        for (uint32_t x = 0; x < d; ++x) {
          total[buckets[x]] += own[x];
          size[buckets[x]] += 1;
        }
        double cells = 0;  // sum_y h[j g + H_j(y)]
        for (uint32_t l = 0; l < g_; ++l) cells += size[l] * cell_weight * static_cast<double>(row[l]);
        for (uint32_t x = 0; x < d; ++x) {
          const uint32_t l = buckets[x];
          const double cell = cell_weight * static_cast<double>(row[l]);
          const double bucket = ((total[l] - own[x] - (size[l] - 1) * cell) * rest - (size[l] - 1) * n / g) / scale;
          const double all = ((everyone - own[x] - (cells - cell)) * rest - (d - 1.0) * n / g) / scale;
          shared[x] += bucket - all / g;
        }
      }
    }
    std::vector<std::vector<double>> weights(3, std::vector<double>(d));
    for (std::size_t i = 0; i < items.size(); ++i) weights[0][items[i]] = counts[i];
    // Weights 1 and 2: the plug-ins clipped to [0, n] (the variance needs counts >= 0) and each
    // item's variance without collisions.
    for (uint32_t x = 0; x < d; ++x) {
      weights[1][x] = clip_count(weights[0][x], n);
      weights[2][x] = conditional_variance(weights[1][x], n, 0, 0);
    }
    double noise_total = 0;
    for (double v : weights[2]) noise_total += v;
    const collision_moments a = moments_of_collisions(k_, g_, d, buckets_of, weights, true);
    const variance_kind kind = a.exact ? variance_kind::exact : variance_kind::bound;
    std::vector<estimate> out;
    out.reserve(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      const uint32_t x = items[i];
      const double variance = conditional_variance(weights[1][x], n, a.first[1][x], a.second[1][x]);
      // b = r sum_{y != v} c_y e_y(v) with the leave-one-out plug-ins, unclipped (the bias is linear
      // in the counts); its square less the plug-ins' own noise r^2 (k/(k-1)) sum_y e_y(v)^2 V_y,
      // not clipped at 0, the total kept at least half the variance (as A.6).
      const double b = r * shared[x] / k_;
      // sum_{y != v} e_y(v)^2 V_y from the moments of a_y(v) weighted by V_y.
      const double spread = a.second[2][x] - 2 / g * a.first[2][x] + (noise_total - weights[2][x]) / (g * g);
      const double mse = variance + b * b - r * r * spread * k_ / (k_ - 1.0);
      out.push_back(make_estimate(x, counts[i], conditional_mse(variance, mse), z, kind));
    }
    return out;
  }

 private:
  // One function's row of counts, its key, and 2a (its values' second difference).
  struct function_row {
    const uint64_t* row;
    wire::flh_key key;
    uint64_t twice_a;
  };
  static constexpr std::size_t lanes = 4;

  // C_v of each item: by finite differences over all d items when the items are at least an eighth
  // of the domain (about the break-even of the two loops), otherwise by Horner's rule per function.
  // Either way the outputs are cut into blocks of decode_block that the threads claim (threads.h);
  // each block's counts are summed in function order by the one part that claims it, so they are
  // the same to the bit for any thread count.
  std::vector<uint64_t> supports(span<const uint32_t> items) const {
    const std::vector<function_row> rows = named_functions();
    const uint64_t d = params_.get(field::domain);
    const bool dense = uint64_t{items.size()} * 8 >= d;
    const auto outputs = static_cast<std::size_t>(dense ? d : items.size());
    std::vector<uint64_t> out(outputs, 0);
    if (outputs == 0 || rows.empty()) return dense ? gather(out, items) : out;
    const std::size_t blocks = (outputs + decode_block - 1) / decode_block;
    const std::size_t parts = std::min(blocks, part_count(uint64_t{rows.size()} * outputs, min_pairs_per_thread));
    // Which part takes which block varies from run to run; each block is written by one part only.
    std::atomic<std::size_t> next{0};
    run_parts(parts, [&](std::size_t) {
      for (std::size_t block = next.fetch_add(1); block < blocks; block = next.fetch_add(1)) {
        const auto first = static_cast<uint32_t>(block * decode_block);
        const auto last = static_cast<uint32_t>(std::min<std::size_t>(outputs, first + std::size_t{decode_block}));
        if (dense) {
          walk_block(rows, first, last, out.data());
        } else {
          horner_block(rows, items, first, last, out.data());
        }
      }
    });
    return dense ? gather(out, items) : out;
  }

  // The functions some report named (a function nobody picked adds nothing).
  std::vector<function_row> named_functions() const {
    std::vector<function_row> rows;
    for (uint32_t j = 0; j < k_; ++j) {
      const uint64_t* row = hist_.data() + std::size_t{j} * g_;
      if (std::none_of(row, row + g_, [](uint64_t c) { return c != 0; })) continue;
      const wire::flh_key key = wire::flh_function(params_.hash_seed, j);
      rows.push_back({row, key, wire::add_mod61(key.a, key.a)});
    }
    return rows;
  }

  // The supports of items[i] from the supports of every item.
  static std::vector<uint64_t> gather(const std::vector<uint64_t>& all, span<const uint32_t> items) {
    std::vector<uint64_t> out(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) out[i] = all[items[i]];
    return out;
  }

  // support[i] of items[i] for i in [first, last), function by function.
  void horner_block(const std::vector<function_row>& rows, span<const uint32_t> items, uint32_t first, uint32_t last,
                    uint64_t* support) const noexcept {
    for (const function_row& f : rows) {
      for (uint32_t i = first; i < last; ++i)
        support[i] += f.row[wire::flh_bucket(wire::flh_value(f.key, items[i]), g_)];
    }
  }

  // support[v] for the items v in [first, last). h_j(v + 1) - h_j(v) = a (2 v + 1) + b: each
  // function starts at h_j(first) and walks the block with its value and that difference, two
  // modular additions per item; `lanes` functions walk together (independent chains the CPU
  // overlaps, one store per item).
  void walk_block(const std::vector<function_row>& rows, uint32_t first, uint32_t last,
                  uint64_t* support) const noexcept {
    const std::size_t grouped = rows.size() - rows.size() % lanes;
    for (std::size_t w = 0; w < grouped; w += lanes) walk<lanes>(&rows[w], first, last, support);
    for (std::size_t w = grouped; w < rows.size(); ++w) walk<1>(&rows[w], first, last, support);
  }

  // Adds the counts of W functions to support[first, last). Out of line: inlined into the threads'
  // lambda, GCC kept part of the walk's 4 W words of state on the stack (3 x slower, measured).
  template <std::size_t W>
  LDP_FLH_OUT_OF_LINE void walk(const function_row* f, uint32_t first, uint32_t last,
                                uint64_t* support) const noexcept {
    uint64_t h[W], delta[W], twice_a[W];
    const uint64_t* row[W];
    for (std::size_t i = 0; i < W; ++i) {
      h[i] = wire::flh_value(f[i].key, first);
      delta[i] = wire::add_mod61(wire::mul_mod61(f[i].key.a, uint64_t{2} * first + 1), f[i].key.b);
      twice_a[i] = f[i].twice_a;
      row[i] = f[i].row;
    }
    const uint32_t g = g_;
    for (uint32_t v = first; v < last; ++v) {
      uint64_t sum = 0;
      for (std::size_t i = 0; i < W; ++i) {
        sum += row[i][wire::flh_bucket(h[i], g)];
        h[i] = wire::add_mod61(h[i], delta[i]);
        delta[i] = wire::add_mod61(delta[i], twice_a[i]);
      }
      support[v] += sum;
    }
  }

  uint32_t k_;
  uint32_t g_;
};

}  // namespace

status make_flh_aggregator(const wire::params& p, aggregator_ptr* out) {
  return make_pure_aggregator<flh_aggregator>(p, p.get(field::sketch_rows) * p.get(field::hash_range), out);
}

}  // namespace ldp::server::detail

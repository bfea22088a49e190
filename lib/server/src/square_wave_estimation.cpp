// Square Wave's estimate (docs/mechanisms.md G.1, range_model.h): EMS (Li et al., SIGMOD 2020) on
// the output counts with the implemented transition, and the spread of its answers by a parametric
// bootstrap. The bootstrap draws from ChaCha20 DRBGs keyed from the caller's public seed (one per
// replicate, so the replicates may run on any threads), so a state gives the same estimate every
// time; its variances leave out EMS's smoothing bias.
//
// Each replicate reruns EMS from the uniform start, as the estimate itself does, not from the fit
// (as G.1 first said): started at the fit, the smoothed EM stops after a step or two, since the
// smoothing lowers the new counts' likelihood at once, so the replicates stay near the fit and
// their spread misses about half the estimate's variance (tests/statistical/server/test_square_wave).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "estimation.h"
#include "kernel_access.h"
#include "ldp/base/bits.h"
#include "ldp/random/drbg.h"
#include "ldp/wire/distribution_block.h"
#include "parallel.h"
#include "range_model.h"

namespace ldp::server::detail {
namespace {

using wire::field;

// EMS stops when the log-likelihood gains less than this fraction of itself, or after so many steps.
constexpr double ems_tolerance = 1e-9;
constexpr int ems_max_steps = 10000;

// G.1's exact transition: P(y | v) = in for the window y in [v, v + 2b], out for the D - 1 others.
struct channel {
  std::size_t buckets = 0, outputs = 0, half = 0;
  double in = 0, out = 0;

  explicit channel(const wire::params& p)
      : buckets(static_cast<std::size_t>(p.get(field::domain))),
        outputs(static_cast<std::size_t>(wire::square_wave_outputs(p))),
        half(static_cast<std::size_t>(p.get(field::window_half_width))) {
    const int w = static_cast<int>(p.get(field::threshold_bits));
    const uint64_t keep = p.get(field::threshold_keep);
    in = threshold_probability(p, field::threshold_keep) / static_cast<double>(2 * half + 1);
    out = std::ldexp(static_cast<double>((uint64_t{1} << w) - keep), -w) / static_cast<double>(buckets - 1);
  }
};

// running[i] = sum of x[0 .. i) (x.size() + 1 entries).
void prefix_sums(const std::vector<double>& x, std::vector<double>& running) {
  running.resize(x.size() + 1);
  running[0] = 0;
  for (std::size_t i = 0; i < x.size(); ++i) running[i + 1] = running[i] + x[i];
}

// EMS's work arrays; each step is O(D + 2b): the window is a band, so the sums over it are
// differences of prefix sums.
class ems {
 public:
  explicit ems(const channel& c) : c_(c) {}

  // The output distribution of bucket masses f: q_y = out + (in - out) (the mass of y's window).
  void outputs_of(const std::vector<double>& f, std::vector<double>& q) {
    prefix_sums(f, mass_);
    q.resize(c_.outputs);
    for (std::size_t y = 0; y < c_.outputs; ++y) {
      const std::size_t first = y > 2 * c_.half ? y - 2 * c_.half : 0, last = std::min(y, c_.buckets - 1);
      q[y] = c_.out * mass_[c_.buckets] + (c_.in - c_.out) * (mass_[last + 1] - mass_[first]);
    }
  }

  // Fits the bucket masses f (summing to 1; the start, then the fit) to the output counts.
  void fit(const std::vector<double>& counts, std::vector<double>& f) {
    double n = 0;
    for (double c : counts) n += c;
    double previous = 0;
    for (int step = 0; step <= ems_max_steps; ++step) {
      outputs_of(f, q_);
      double likelihood = 0;
      for (std::size_t y = 0; y < c_.outputs; ++y) {
        if (counts[y] != 0) likelihood += counts[y] * std::log(q_[y]);
      }
      if (step > 0 && likelihood - previous < ems_tolerance * std::fabs(previous)) return;
      if (step == ems_max_steps) return;
      previous = likelihood;
      expect_maximize(counts, n, f);
      smooth(f);
    }
  }

 private:
  // f_v <- f_v sum_y P(y | v) c_y / q_y / n: the responsibilities r_y = c_y / q_y summed over all
  // outputs (weight out) and over v's window (weight in - out).
  void expect_maximize(const std::vector<double>& counts, double n, std::vector<double>& f) {
    ratio_.resize(c_.outputs);
    for (std::size_t y = 0; y < c_.outputs; ++y) ratio_[y] = counts[y] == 0 ? 0 : counts[y] / q_[y];
    prefix_sums(ratio_, mass_);
    const double all = mass_[c_.outputs];
    for (std::size_t v = 0; v < c_.buckets; ++v) {
      f[v] *= (c_.out * all + (c_.in - c_.out) * (mass_[v + 2 * c_.half + 1] - mass_[v])) / n;
    }
  }

  // The binomial kernel (1/4, 1/2, 1/4), at the ends its two points renormalised (2/3, 1/3), then
  // the masses rescaled to sum 1.
  void smooth(std::vector<double>& f) {
    smoothed_.resize(c_.buckets);
    const std::size_t last = c_.buckets - 1;
    smoothed_[0] = (2 * f[0] + f[1]) / 3;
    smoothed_[last] = (f[last - 1] + 2 * f[last]) / 3;
    for (std::size_t v = 1; v < last; ++v) smoothed_[v] = (f[v - 1] + 2 * f[v] + f[v + 1]) / 4;
    double total = 0;
    for (double x : smoothed_) total += x;
    for (std::size_t v = 0; v < c_.buckets; ++v) f[v] = smoothed_[v] / total;
  }

  const channel& c_;
  std::vector<double> q_, mass_, ratio_, smoothed_;
};

// ---- The bootstrap's samplers (on the DRBG's 64-bit words) -------------------------------------

double uniform01(random::drbg& rng) { return static_cast<double>(rng.next_u64() >> 11) * 0x1p-53; }           // [0, 1)
double uniform_open(random::drbg& rng) { return static_cast<double>((rng.next_u64() >> 11) + 1) * 0x1p-53; }  // (0, 1]

double normal(random::drbg& rng) {  // Box-Muller, one of the pair
  const double r = std::sqrt(-2 * std::log(uniform_open(rng)));
  return r * std::cos(6.283185307179586 * uniform01(rng));
}

double gamma(random::drbg& rng, double shape) {  // shape >= 1: Marsaglia and Tsang (2000)
  const double d = shape - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  for (;;) {
    const double x = normal(rng), v = 1 + c * x;
    if (v <= 0) continue;
    const double cube = v * v * v;
    if (std::log(uniform_open(rng)) < 0.5 * x * x + d - d * cube + d * std::log(cube)) return d * cube;
  }
}

// Binomial(n, p) by inversion from 0: for a mean below 16 (p <= 1/2), a few steps.
uint64_t binomial_inversion(random::drbg& rng, uint64_t n, double p) {
  const double u = uniform01(rng), odds = p / (1 - p);
  double term = std::exp(static_cast<double>(n) * std::log1p(-p)), below = term;
  uint64_t k = 0;
  while (u >= below && k < n && term > 0) {
    term *= static_cast<double>(n - k) / static_cast<double>(k + 1) * odds;
    ++k;
    below += term;
  }
  return k;
}

// Binomial(n, p): the a-th smallest of n uniforms, a = n/2 + 1, is X ~ Beta(a, n + 1 - a); the count
// below p is then Binomial(a - 1, p / X) when X >= p, else a + Binomial(n - a, (p - X) / (1 - X))
// (Knuth, TAOCP 3.4.1). Each step halves n, so O(log n) gamma draws.
uint64_t binomial(random::drbg& rng, uint64_t n, double p) {
  if (n == 0 || p <= 0) return 0;
  if (p >= 1) return n;
  if (p > 0.5) return n - binomial(rng, n, 1 - p);
  if (static_cast<double>(n) * p < 16) return binomial_inversion(rng, n, p);
  const uint64_t a = n / 2 + 1;
  const double ga = gamma(rng, static_cast<double>(a)), gb = gamma(rng, static_cast<double>(n + 1 - a));
  const double x = ga / (ga + gb);
  if (x >= p) return binomial(rng, a - 1, p / x);
  return a + binomial(rng, n - a, (p - x) / (1 - x));
}

// Multinomial(n, q) as successive binomials of what is left; q sums to 1.
void multinomial(random::drbg& rng, uint64_t n, const std::vector<double>& q, std::vector<double>& counts) {
  std::vector<double> tail(q.size() + 1, 0);
  for (std::size_t y = q.size(); y-- > 0;) tail[y] = tail[y + 1] + q[y];
  counts.assign(q.size(), 0);
  uint64_t left = n;
  for (std::size_t y = 0; y < q.size() && left != 0; ++y) {
    const uint64_t x = y + 1 == q.size() ? left : binomial(rng, left, tail[y] > 0 ? q[y] / tail[y] : 0);
    counts[y] = static_cast<double>(x);
    left -= x;
  }
}

// Replicate i's own DRBG: its key is the seed and i (u64 little-endian each) and this purpose's
// label, so each replicate is drawn alone and the replicates come out the same on any threads.
void bootstrap_key(uint64_t seed, uint64_t replicate, unsigned char key[random::drbg::seed_size]) {
  static constexpr char label[] = "sw bootstrap v1.";
  static_assert(sizeof label - 1 == random::drbg::seed_size - 16, "the label fills the key");
  store_le64(key, seed);
  store_le64(key + 8, replicate);
  std::memcpy(key + 16, label, random::drbg::seed_size - 16);
}

// Replicates [first, last): n reports drawn from the fitted outputs q, EMS from the uniform start,
// each replicate's prefix sums into its row of `table`. false when memory runs out.
bool fit_replicates(const channel& c, const std::vector<double>& q, uint64_t n, uint64_t seed, std::size_t first,
                    std::size_t last, double* table) noexcept {
  try {
    ems fitter(c);
    const std::vector<double> start(c.buckets, 1.0 / static_cast<double>(c.buckets));
    std::vector<double> drawn, f, running;
    for (std::size_t i = first; i < last; ++i) {
      unsigned char key[random::drbg::seed_size];
      bootstrap_key(seed, i, key);
      random::drbg rng(key, kernel_table());
      multinomial(rng, n, q, drawn);
      f = start;
      fitter.fit(drawn, f);
      prefix_sums(f, running);
      std::copy(running.begin(), running.end(), table + i * running.size());
    }
    return true;
  } catch (...) {  // std::bad_alloc
    return false;
  }
}

// The fit and the replicates as prefix sums over the buckets: a range's answer is a difference.
class square_wave_model final : public range_model {
 public:
  square_wave_model(std::vector<double> fit, std::vector<double> replicates, std::size_t count)
      : fit_(std::move(fit)), replicates_(std::move(replicates)), count_(count) {}

  range_answer answer(double a, double b) const override {
    range_answer r;
    r.fraction = between(fit_.data(), a, b);
    if (count_ < 2) {
      r.variance = std::numeric_limits<double>::quiet_NaN();
      return r;
    }
    double sum = 0, squares = 0;
    for (std::size_t i = 0; i < count_; ++i) {
      const double x = between(replicates_.data() + i * fit_.size(), a, b) - r.fraction;
      sum += x;
      squares += x * x;
    }
    const auto m = static_cast<double>(count_);
    r.variance = std::max(0.0, (squares - sum * sum / m) / (m - 1));
    return r;
  }

 private:
  // The mass in [a, b) of the prefix sums `running` (D + 1 of them), a partial bucket in proportion.
  double between(const double* running, double a, double b) const noexcept { return at(running, b) - at(running, a); }
  double at(const double* running, double t) const noexcept {
    const std::size_t last = fit_.size() - 1;
    const auto k = static_cast<std::size_t>(t);
    if (k >= last) return running[last];
    return running[k] + (t - static_cast<double>(k)) * (running[k + 1] - running[k]);
  }

  std::vector<double> fit_;         // D + 1 prefix sums of the fitted masses
  std::vector<double> replicates_;  // count_ x (D + 1), each replicate's
  std::size_t count_;
};

}  // namespace

status make_square_wave_model(const wire::params& p, span<const uint64_t> counts, const distribution_options& o,
                              std::unique_ptr<range_model>* out) {
  try {
    const channel c(p);
    std::vector<double> observed(counts.size());
    uint64_t n = 0;
    for (std::size_t y = 0; y < counts.size(); ++y) {
      observed[y] = static_cast<double>(counts[y]);
      n += counts[y];  // at most 2^62 (report_cap.h)
    }
    ems fitter(c);
    std::vector<double> fit(c.buckets, 1.0 / static_cast<double>(c.buckets));
    fitter.fit(observed, fit);

    const std::size_t edges = c.buckets + 1;
    const std::size_t count = o.bootstrap < 2 ? 0 : o.bootstrap;
    if (count > std::numeric_limits<std::size_t>::max() / sizeof(double) / edges) return status::overflow;  // 32 bits
    std::vector<double> replicates(count * edges), running;
    if (count != 0) {
      std::vector<double> q;
      fitter.outputs_of(fit, q);
      // Replicates split over threads (threads.h): a replicate's work is about 1000 EMS steps of
      // O(D + 2b), so a part is worth a thread from a few replicates of a few hundred outputs on.
      const std::size_t parts = part_count(uint64_t{count} * c.outputs, uint64_t{1} << 10);
      std::vector<unsigned char> done(parts, 0);
      run_parts(parts, [&](std::size_t j) {
        done[j] =
            fit_replicates(c, q, n, o.seed, count * j / parts, count * (j + 1) / parts, replicates.data()) ? 1 : 0;
      });
      if (std::find(done.begin(), done.end(), 0) != done.end()) return status::overflow;
    }
    prefix_sums(fit, running);
    *out = std::make_unique<square_wave_model>(std::move(running), std::move(replicates), count);
    return status::ok;
  } catch (...) {  // std::bad_alloc, std::length_error
    return status::overflow;
  }
}

}  // namespace ldp::server::detail

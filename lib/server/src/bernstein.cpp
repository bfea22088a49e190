// The iterated Bernstein surrogate and the box minimizer (ldp/server/bernstein.h, docs/mechanisms.md
// H.1 "Server: surrogate and minimization").
//
// Along one axis the surrogate's coefficient vector is A_h f with A_h = sum_{i=1}^h c_i M^{i-1},
// c_i = C(h,i) (-1)^{i-1} and M[u][v] = b_{v,k}(u/k): the corrected Def 6 (erratum 2 of C.4) gives
// b^{(h)}_{v,k}(x) = sum_i c_i B_k^{i-1}(b_{v,k}; x), and B_k(g; x) = sum_u g(u/k) b_{u,k}(x) puts
// B_k^{i-1}(b_{v,k}) in the Bernstein basis with coefficients (M^{i-1})[u][v]. Applying M is
// evaluating a degree-k Bernstein polynomial at the k+1 nodes, one row b_{.,k}(u/k) at a time, so
// no (k+1)^2 matrix is stored (p = 1 allows k up to 65535).
#include "ldp/server/bernstein.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <limits>
#include <new>
#include <utility>

#include "ldp/random/drbg.h"
#include "ldp/wire/loss.h"

namespace ldp::server {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

// The largest order accepted: A_h's norm grows like 2^h, so larger orders only amplify the noise.
constexpr uint32_t max_order = 32;

// bernstein_noise_gain computes ||A_h||_inf up to this many nodes per axis.
constexpr uint32_t max_exact_gain_nodes = 512;

double node(uint32_t k, uint32_t u) { return static_cast<double>(u) / static_cast<double>(k); }

// c_i = C(h, i) (-1)^(i-1) for i = 1..h, in c[i - 1].
std::vector<double> order_weights(uint32_t h) {
  std::vector<double> c(h);
  double binomial = 1;  // C(h, i - 1)
  for (uint32_t i = 1; i <= h; ++i) {
    binomial = binomial * static_cast<double>(h - i + 1) / static_cast<double>(i);
    c[i - 1] = (i % 2 == 1) ? binomial : -binomial;
  }
  return c;
}

// out = M applied along the axis of stride s of the tensor in (N values, k+1 per fibre), or M^T
// when transpose is set. row is scratch of k+1 values.
void apply_nodes(uint32_t k, uint64_t stride, const std::vector<double>& in, std::vector<double>& out,
                 std::vector<double>& row, bool transpose) {
  const uint64_t base = uint64_t{k} + 1;
  const uint64_t block = base * stride;
  std::fill(out.begin(), out.end(), 0.0);
  for (uint32_t u = 0; u <= k; ++u) {
    bernstein_basis(k, node(k, u), row.data());
    for (uint64_t outer = 0; outer < in.size(); outer += block) {
      for (uint32_t v = 0; v <= k; ++v) {
        const double m = row[v];  // M[u][v]
        if (m == 0) continue;
        // M: out[u] += M[u][v] in[v]; M^T: out[v] += M[u][v] in[u].
        const uint64_t to = outer + (transpose ? v : u) * stride;
        const uint64_t from = outer + (transpose ? u : v) * stride;
        for (uint64_t inner = 0; inner < stride; ++inner)
          out[static_cast<std::size_t>(to + inner)] += m * in[static_cast<std::size_t>(from + inner)];
      }
    }
  }
}

// t = A_h t (or A_h^T t) along the axis of stride s, in place.
void apply_order(uint32_t k, uint32_t h, uint64_t stride, std::vector<double>& t, bool transpose) {
  if (h == 1) return;  // A_1 = I
  const std::vector<double> c = order_weights(h);
  std::vector<double> power = t, next(t.size()), row(uint64_t{k} + 1);
  for (double& x : t) x *= c[0];
  for (uint32_t i = 2; i <= h; ++i) {
    apply_nodes(k, stride, power, next, row, transpose);  // M^{i-1} t
    std::swap(power, next);
    for (std::size_t l = 0; l < t.size(); ++l) t[l] += c[i - 1] * power[l];
  }
}

// sum_l t_l prod_j weight(j)[v_j(l)], contracting axis 0 first (it is the fastest); weight(j, out)
// writes the k+1 weights of axis j.
template <class Weights>
double contract(bernstein_grid g, const std::vector<double>& t, Weights&& weight) {
  const uint64_t base = uint64_t{g.k} + 1;
  std::vector<double> w(static_cast<std::size_t>(base));
  std::vector<double> rest(static_cast<std::size_t>(t.size() / base));
  const double* in = t.data();
  uint64_t size = t.size();
  for (uint32_t j = 0; j < g.p; ++j) {
    weight(j, w.data());
    size /= base;
    // In place after the first axis: entry r reads r*base.. >= r, so nothing unread is overwritten.
    for (uint64_t r = 0; r < size; ++r) {
      double s = 0;
      for (uint64_t v = 0; v < base; ++v)
        s += in[static_cast<std::size_t>(r * base + v)] * w[static_cast<std::size_t>(v)];
      if (size == 1) return s;
      rest[static_cast<std::size_t>(r)] = s;
    }
    in = rest.data();
  }
  return nan;  // unreachable: the last axis leaves one entry
}

double finite_or_inf(double v) { return std::isnan(v) ? inf : v; }

double clamp01(double x) { return std::isnan(x) ? 0.0 : std::min(1.0, std::max(0.0, x)); }

// ln(n!) - ln(sqrt(2 pi n) (n/e)^n), Stirling's error (Loader 2000, "Fast and accurate computation
// of binomial probabilities"): exact factorials up to 15 (15! < 2^53), the asymptotic series above.
double stirling_error(uint32_t n) {
  const double half_log_two_pi = 0.91893853320467274178;
  const auto x = static_cast<double>(n);
  if (n <= 15) {
    double factorial = 1;
    for (uint32_t i = 2; i <= n; ++i) factorial *= i;
    return std::log(factorial) - (x + 0.5) * std::log(x) + x - half_log_two_pi;
  }
  const double x2 = x * x;
  return (1.0 / 12 - (1.0 / 360 - (1.0 / 1260 - (1.0 / 1680 - 1.0 / (1188 * x2)) / x2) / x2) / x2) / x;
}

// x ln(x / mu) + mu - x without the cancellation near x = mu (Loader's bd0: the series in
// v = (x - mu) / (x + mu) there).
double deviance(double x, double mu) {
  if (std::fabs(x - mu) >= 0.1 * (x + mu)) return x * std::log(x / mu) + mu - x;
  double v = (x - mu) / (x + mu);
  double sum = (x - mu) * v;
  double term = 2 * x * v;
  v *= v;
  for (int j = 1; j < 1000; ++j) {
    term *= v;
    const double next = sum + term / (2 * j + 1);
    if (next == sum) break;
    sum = next;
  }
  return sum;
}

// b_{m,k}(x) for 0 < x < 1 to a few ulps even where m ln x and ln C(k, m) are huge (Loader's
// saddle-point form); m = 0 and m = k directly (then k |ln| of the base is at most about 1).
double binomial_term(uint32_t k, uint32_t m, double x) {
  if (m == 0) return std::exp(k * std::log1p(-x));
  if (m == k) return std::exp(k * std::log(x));
  const double n = k, v = m;
  const double log_core =
      stirling_error(k) - stirling_error(m) - stirling_error(k - m) - deviance(v, n * x) - deviance(n - v, n * (1 - x));
  const double two_pi = 6.28318530717958647693;
  return std::exp(log_core) / std::sqrt(two_pi * v * (n - v) / n);
}

}  // namespace

uint64_t grid_points(bernstein_grid g) noexcept {
  if (g.p == 0 || g.k == 0) return 0;
  const uint64_t n = wire::grid_point_count(g.p, g.k);
  return n <= max_grid_points ? n : 0;
}

grid_estimate to_grid_estimate(span<const estimate> coordinates) {
  grid_estimate out;
  try {
    out.value.reserve(coordinates.size());
    out.variance.reserve(coordinates.size());
    for (const estimate& e : coordinates) {
      out.value.push_back(e.value);
      out.variance.push_back(e.variance);
    }
  } catch (...) {  // std::bad_alloc
    return {};
  }
  return out;
}

void bernstein_basis(uint32_t k, double x, double* out) noexcept {
  x = clamp01(x);
  std::fill(out, out + uint64_t{k} + 1, 0.0);
  if (x == 0 || x == 1) {
    out[x == 0 ? 0 : k] = 1;
    return;
  }
  // The mode m = floor((k+1) x) (at most k) holds the largest term, >= 1/(k+1): computed by
  // binomial_term, then the walk outwards by b_{v+1}/b_v = (k-v)/(v+1) x/(1-x) never underflows early
  // and loses about one rounding per step.
  const auto m = static_cast<uint32_t>(std::min<double>(k, std::floor((static_cast<double>(k) + 1) * x)));
  out[m] = binomial_term(k, m, x);
  const double odds = x / (1 - x);
  for (uint32_t v = m; v < k && out[v] != 0; ++v)
    out[v + 1] = out[v] * (static_cast<double>(k - v) / static_cast<double>(v + 1)) * odds;
  for (uint32_t v = m; v > 0 && out[v] != 0; --v)
    out[v - 1] = out[v] * (static_cast<double>(v) / static_cast<double>(k - v + 1)) / odds;
}

std::vector<double> bernstein_coefficients(bernstein_grid g, uint32_t h, const std::vector<double>& values) {
  const uint64_t n = grid_points(g);
  if (n == 0 || h == 0 || h > max_order || values.size() != n) return {};
  try {
    std::vector<double> t = values;
    uint64_t stride = 1;
    for (uint32_t j = 0; j < g.p; ++j, stride *= uint64_t{g.k} + 1) apply_order(g.k, h, stride, t, false);
    return t;
  } catch (...) {  // std::bad_alloc
    return {};
  }
}

double bernstein_value(bernstein_grid g, const std::vector<double>& coefficients, const double* w) {
  const uint64_t n = grid_points(g);
  if (n == 0 || coefficients.size() != n) return nan;
  try {
    return contract(g, coefficients, [&](uint32_t j, double* out) { bernstein_basis(g.k, w[j], out); });
  } catch (...) {  // std::bad_alloc
    return nan;
  }
}

double bernstein_variance(bernstein_grid g, uint32_t h, const std::vector<double>& variances, const double* w) {
  const uint64_t n = grid_points(g);
  if (n == 0 || h == 0 || h > max_order || variances.size() != n) return nan;
  try {
    // The weight of value v along axis j is (A_h^T b(w_j))[v_j]: the variance contracts the squares.
    return contract(g, variances, [&](uint32_t j, double* out) {
      std::vector<double> b(uint64_t{g.k} + 1);
      bernstein_basis(g.k, w[j], b.data());
      apply_order(g.k, h, 1, b, true);
      for (std::size_t v = 0; v < b.size(); ++v) out[v] = b[v] * b[v];
    });
  } catch (...) {  // std::bad_alloc
    return nan;
  }
}

double bernstein_noise_gain(bernstein_grid g, uint32_t h) noexcept {
  if (grid_points(g) == 0 || h == 0 || h > max_order) return nan;
  // sum_v |c_v(w)| <= prod_j max_u sum_v |A_h[u][v]| since the basis is nonnegative and sums to 1;
  // the rows of A_h are A_h^T e_u, 2 (h - 1) (k + 1)^3 operations in all. Above k + 1 = 512 (only
  // p = 1 allows it) that is seconds: the paper's bound instead.
  if (g.k + 1 > max_exact_gain_nodes) return std::pow(std::pow(2.0, h) - 1, g.p);
  try {
    double largest = 0;
    std::vector<double> row(uint64_t{g.k} + 1);
    for (uint32_t u = 0; u <= g.k; ++u) {
      std::fill(row.begin(), row.end(), 0.0);
      row[u] = 1;
      apply_order(g.k, h, 1, row, true);
      double sum = 0;
      for (double a : row) sum += std::fabs(a);
      largest = std::max(largest, sum);
    }
    return std::pow(largest, g.p);
  } catch (...) {  // std::bad_alloc
    return nan;
  }
}

double bernstein_grid_error_bound(bernstein_grid g, uint64_t n, double epsilon, double beta) noexcept {
  const uint64_t points = grid_points(g);
  if (points == 0 || n == 0 || !(epsilon > 0) || !(beta > 0 && beta < 1)) return nan;
  const auto big_n = static_cast<double>(points);
  const double log_term = std::log(2 * big_n / beta);
  const auto users = static_cast<double>(n);
  if (users < log_term) return inf;  // Lemma 3 needs n >= ln(2 / beta') for each grid point
  return 2 * big_n * std::sqrt(log_term) / (std::sqrt(users) * epsilon);
}

namespace {

using objective = std::function<double(const double*)>;

// f with NaN read as +inf and a budget of evaluations: once it is spent every value is +inf, which
// ends every search below.
class budgeted {
 public:
  budgeted(const objective& f, uint64_t budget) : f_(f), left_(budget) {}
  double operator()(const std::vector<double>& w) {
    if (left_ == 0) return inf;
    --left_;
    return finite_or_inf(f_(w.data()));
  }

 private:
  const objective& f_;
  uint64_t left_;
};

// One exploratory sweep of Hooke-Jeeves around x (value fx): each coordinate tries +step then
// -step, clamped to [0, 1], and keeps the first improvement. Updates x and returns its value.
double explore(budgeted& f, std::vector<double>& x, double fx, double step) {
  for (std::size_t j = 0; j < x.size(); ++j) {
    const double keep = x[j];
    for (const double move : {step, -step}) {
      x[j] = clamp01(keep + move);
      if (x[j] == keep) continue;
      const double v = f(x);
      if (v < fx) {
        fx = v;
        break;
      }
      x[j] = keep;
    }
  }
  return fx;
}

// Hooke-Jeeves pattern search on the box from x (value fx): exploratory sweeps, pattern moves
// along the last improvement, the step halved when a sweep finds nothing, until it is below 1e-10
// or the budget is spent. It needs no gradient, so kinks (the hinge loss's non-private optimum) do
// not stop it; the pattern moves follow ill-conditioned valleys (tests/unit/server/
// test_bernstein.cpp: a rotated quadratic of condition 10^4 at p = 20). Updates x and returns its value.
double pattern_search(budgeted& f, std::vector<double>& x, double fx, double step) {
  constexpr double tolerance = 1e-10;
  std::vector<double> trial(x.size()), previous(x.size());
  while (step >= tolerance) {
    trial = x;
    const double ft = explore(f, trial, fx, step);
    if (!(ft < fx)) {
      step /= 2;
      continue;
    }
    // Pattern moves: jump by the last improvement and explore there while that keeps improving.
    previous = x;
    x = trial;
    fx = ft;
    for (;;) {
      for (std::size_t j = 0; j < x.size(); ++j) trial[j] = clamp01(2 * x[j] - previous[j]);
      const double fp = explore(f, trial, f(trial), step);
      if (!(fp < fx)) break;
      previous = x;
      x = trial;
      fx = fp;
    }
  }
  return fx;
}

struct start {
  double value;
  std::vector<double> w;
};

// Keeps the `count` best starts (smallest values) seen so far, sorted.
void keep_best(std::vector<start>& best, std::size_t count, double value, const std::vector<double>& w) {
  if (best.size() == count && !(value < best.back().value)) return;
  const auto at =
      std::upper_bound(best.begin(), best.end(), value, [](double v, const start& s) { return v < s.value; });
  best.insert(at, start{value, w});
  if (best.size() > count) best.pop_back();
}

}  // namespace

box_minimum minimize_on_box(uint32_t p, const std::function<double(const double*)>& f, uint64_t seed) {
  if (p == 0) return {{}, nan};
  try {
    constexpr std::size_t starts = 4;
    std::vector<start> best;
    std::vector<double> w(p);
    double first_step = 0;
    if (p <= 3) {
      // About 2^10 to 2^15 evaluations: 1025, 129^2, 33^3 points including the faces.
      const uint32_t per_axis = p == 1 ? 1025 : p == 2 ? 129 : 33;
      const uint64_t total = wire::grid_point_count(p, per_axis - 1);
      for (uint64_t l = 0; l < total; ++l) {
        wire::grid_point(p, per_axis - 1, l, w.data());
        keep_best(best, starts, finite_or_inf(f(w.data())), w);
      }
      first_step = 1.0 / (per_axis - 1);
    } else {
      // The centre and 128 p uniform points from a DRBG keyed by the seed.
      unsigned char key[random::drbg::seed_size] = {};
      for (int b = 0; b < 8; ++b) key[b] = static_cast<unsigned char>(seed >> (8 * b));
      random::drbg rng(key);
      std::fill(w.begin(), w.end(), 0.5);
      keep_best(best, starts, finite_or_inf(f(w.data())), w);
      for (uint64_t s = 0; s < uint64_t{128} * p; ++s) {
        for (double& x : w) x = static_cast<double>(rng.next_u64() >> 11) * 0x1p-53;
        keep_best(best, starts, finite_or_inf(f(w.data())), w);
      }
      first_step = 1.0 / 64;
    }
    // Each start: the pattern search from the grid's spacing (p <= 3) or 1/64, within
    // 20000 + 4000 p evaluations.
    box_minimum out{{}, inf};
    for (start& s : best) {
      budgeted limited(f, 20000 + uint64_t{4000} * p);
      const double v = pattern_search(limited, s.w, s.value, first_step);
      if (out.w.empty() || v < out.value) out = box_minimum{s.w, v};
    }
    return out;
  } catch (const std::bad_alloc&) {
    return {{}, nan};
  }
}

}  // namespace ldp::server

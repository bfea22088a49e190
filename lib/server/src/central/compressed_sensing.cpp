// Ghazi et al. Algorithm 2 (docs/mechanisms.md I.3): the public Gaussian matrix, the clipped and
// noised mean measurement, and the FISTA l1 decoder.
#include "ldp/server/central/compressed_sensing.h"

#include <algorithm>
#include <cmath>
#include <new>

#include "ldp/base/bits.h"
#include "ldp/server/central/discrete_gaussian.h"
#include "ldp/server/central/sparse_projection.h"
#include "ldp/wire/epsilon.h"

namespace ldp::server {
namespace {

constexpr uint64_t max_matrix_entries = uint64_t{1} << 28;
constexpr double two_pi = 6.283185307179586476925286766559;

// A uniform double in (0, 1]: 53 random bits, never 0 (Box-Muller takes its logarithm).
double open_uniform(random::drbg& rng) { return static_cast<double>((rng.next_u64() >> 11) + 1) * 0x1p-53; }

// y = A z (m x d row-major).
void multiply(span<const double> a, span<const double> z, std::vector<double>& y) {
  const std::size_t d = z.size();
  for (std::size_t i = 0; i < y.size(); ++i) {
    double acc = 0;
    for (std::size_t j = 0; j < d; ++j) acc += a[i * d + j] * z[j];
    y[i] = acc;
  }
}

// g = A^T r.
void multiply_transpose(span<const double> a, span<const double> r, std::vector<double>& g) {
  const std::size_t d = g.size();
  std::fill(g.begin(), g.end(), 0.0);
  for (std::size_t i = 0; i < r.size(); ++i) {
    for (std::size_t j = 0; j < d; ++j) g[j] += a[i * d + j] * r[i];
  }
}

double norm2(span<const double> v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

// ||A||_2^2 by power iteration on A^T A from the all-ones vector, raised by 1% (the iteration
// approaches it from below, and a step above 1 / ||A||^2 diverges).
double squared_operator_norm(span<const double> a, std::size_t m, std::size_t d) {
  std::vector<double> v(d, 1.0), av(m), next(d);
  double value = 0;
  for (int it = 0; it < 100; ++it) {
    const double n = norm2(v);
    if (n == 0) return 0;
    for (double& x : v) x /= n;
    multiply(a, v, av);
    multiply_transpose(a, av, next);
    value = norm2(next);
    v.swap(next);
  }
  return value * 1.01;
}

double soft_threshold(double v, double t) { return v > t ? v - t : v < -t ? v + t : 0.0; }

// FISTA on one lambda, warm started at z; returns when a step moves z by less than the tolerance.
void fista_stage(span<const double> a, span<const double> y, double step, double lambda, const cs_decode_options& o,
                 std::vector<double>& z) {
  const std::size_t d = z.size();
  std::vector<double> w = z, previous = z, aw(y.size()), grad(d);
  double t = 1;
  for (uint32_t it = 0; it < o.iterations; ++it) {
    multiply(a, w, aw);
    for (std::size_t i = 0; i < aw.size(); ++i) aw[i] -= y[i];
    multiply_transpose(a, aw, grad);
    previous.swap(z);
    double moved = 0, uphill = 0;
    for (std::size_t j = 0; j < d; ++j) {
      z[j] = soft_threshold(w[j] - step * grad[j], step * lambda);
      moved += (z[j] - previous[j]) * (z[j] - previous[j]);
      uphill += (w[j] - z[j]) * (z[j] - previous[j]);
    }
    if (std::sqrt(moved) <= o.tolerance * (1 + norm2(z))) return;
    // Adaptive restart: momentum that points uphill is dropped (O'Donoghue-Candes 2015, gradient scheme).
    if (uphill > 0) t = 1;
    const double t_next = (1 + std::sqrt(1 + 4 * t * t)) / 2;
    const double beta = (t - 1) / t_next;
    for (std::size_t j = 0; j < d; ++j) w[j] = z[j] + beta * (z[j] - previous[j]);
    t = t_next;
  }
}

bool all_finite(span<const double> v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

}  // namespace

status cs_matrix(uint32_t m, uint32_t d, uint64_t seed, std::vector<double>* a) noexcept {
  a->clear();
  if (m == 0 || d == 0 || uint64_t{m} * d > max_matrix_entries) return status::invalid_argument;
  // The key: the seed's 8 little-endian bytes, then a tag, so that no other seeded stream of the
  // library (e.g. random/projection.h's, keyed by the seed and zeros) shares it.
  unsigned char key[random::drbg::seed_size] = {};
  for (int i = 0; i < 8; ++i) key[i] = static_cast<unsigned char>(seed >> (8 * i));
  const char tag[] = "ldp cs matrix";
  for (std::size_t i = 0; i + 1 < sizeof tag; ++i) key[8 + i] = static_cast<unsigned char>(tag[i]);
  try {
    a->resize(static_cast<std::size_t>(uint64_t{m} * d));
  } catch (const std::bad_alloc&) {
    return status::overflow;
  }
  random::drbg rng(key);
  const double scale = 1 / std::sqrt(static_cast<double>(m));
  for (std::size_t k = 0; k < a->size(); k += 2) {
    // Box-Muller: two independent standard normals from two uniforms.
    const double radius = std::sqrt(-2 * std::log(open_uniform(rng)));
    const double angle = two_pi * open_uniform(rng);
    (*a)[k] = scale * radius * std::cos(angle);
    if (k + 1 < a->size()) (*a)[k + 1] = scale * radius * std::sin(angle);
  }
  return status::ok;
}

status cs_decode(span<const double> a, span<const double> y, uint32_t d, const cs_decode_options& options,
                 std::vector<double>* z) noexcept {
  z->clear();
  const std::size_t m = y.size();
  if (d == 0 || m == 0 || a.size() != m * d || !all_finite(a) || !all_finite(y)) return status::invalid_argument;
  if (!(options.lambda >= 0 && std::isfinite(options.lambda)) || options.iterations == 0 || !(options.tolerance >= 0)) {
    return status::invalid_argument;
  }
  try {
    z->assign(d, 0.0);
    const double lipschitz = squared_operator_norm(a, m, d);
    if (lipschitz == 0) return status::ok;  // A = 0: z = 0 minimizes
    std::vector<double> g(d);
    multiply_transpose(a, y, g);
    double lambda = 0;
    for (double v : g) lambda = std::max(lambda, std::fabs(v));  // above it, z = 0 is optimal
    lambda /= 2;
    // Continuation: each stage starts close to the next one's solution, where FISTA is fast. At most
    // 40 halvings (a lambda 2^-40 of the first one acts like the final lambda = 0 or below).
    const double floor = std::max(options.lambda, lambda * 0x1p-40);
    while (lambda > floor) {
      fista_stage(a, y, 1 / lipschitz, lambda, options, *z);
      lambda /= 2;
    }
    fista_stage(a, y, 1 / lipschitz, options.lambda, options, *z);
  } catch (const std::bad_alloc&) {
    z->clear();
    return status::overflow;
  }
  return status::ok;
}

status release_cs_mean(span<const sparse_point> points, uint32_t d, const cs_release_options& options,
                       random::drbg& rng, cs_release* out) noexcept {
  *out = cs_release{};
  const uint32_t m = options.measurements;
  if (points.size() == 0 || d == 0 || m == 0 || m > d || !(options.radius > 0 && std::isfinite(options.radius)) ||
      !(options.rip_slack >= 0 && std::isfinite(options.rip_slack)) || options.frac_bits > 40 ||
      !(options.lambda >= 0 && std::isfinite(options.lambda)) || options.iterations == 0) {
    return status::invalid_argument;
  }
  const double unit = std::ldexp(1.0, static_cast<int>(options.frac_bits));  // grid points per real unit
  const double clip = (1 + options.rip_slack) * options.radius;
  if (!(clip * unit < 0x1p62)) return status::invalid_argument;
  const auto clip_grid = static_cast<uint64_t>(std::floor(clip * unit));
  if (clip_grid == 0) return status::invalid_argument;  // every measurement would round to 0
  cs_release r;
  r.sensitivity = 2 * clip_grid;
  if (gaussian_variance(r.sensitivity, options.epsilon, options.delta, &r.sigma2, &r.epsilon_impl) != status::ok) {
    return status::invalid_argument;
  }
  try {
    std::vector<double> a;
    const status made = cs_matrix(m, d, options.matrix_seed, &a);
    if (made != status::ok) return made;
    std::vector<int64_t> sums(m, 0);
    std::vector<double> x(d, 0.0), ax(m);
    std::vector<unsigned char> seen(d, 0);
    for (const sparse_point& p : points) {
      if (p.index.size() != p.value.size() || !all_finite(p.value)) return status::invalid_argument;
      for (uint32_t j : p.index) {
        if (j >= d || seen[j] != 0) return status::invalid_argument;  // out of range or repeated
        seen[j] = 1;
      }
      std::fill(x.begin(), x.end(), 0.0);
      for (std::size_t k = 0; k < p.index.size(); ++k) {
        x[p.index[k]] = p.value[k];
        seen[p.index[k]] = 0;
      }
      const double norm = norm2(x);
      const double point_scale = norm > options.radius ? options.radius / norm : 1.0;
      multiply(a, x, ax);
      // The clip on the measurement is what bounds the sensitivity (header: no RIP assumed); the
      // truncation toward zero keeps ||q||_2 <= clip_grid.
      const double measured = norm2(ax) * point_scale;
      const double factor =
          point_scale *
          (measured * unit > static_cast<double>(clip_grid) ? static_cast<double>(clip_grid) / (measured * unit) : 1.0);
      for (uint32_t i = 0; i < m; ++i) {
        const auto q = static_cast<int64_t>(std::trunc(ax[i] * factor * unit));
        if (!checked_add(sums[i], q, &sums[i])) return status::overflow;
      }
    }
    const double n = static_cast<double>(points.size());
    r.noise_sd = std::sqrt(static_cast<double>(r.sigma2)) / (unit * n);
    r.measured_mean.resize(m);
    for (uint32_t i = 0; i < m; ++i) {
      int64_t noisy = 0;
      if (!checked_add(sums[i], discrete_gaussian(rng, r.sigma2), &noisy)) return status::overflow;
      r.measured_mean[i] = static_cast<double>(noisy) / (unit * n);
    }
    r.lambda = options.lambda > 0 ? options.lambda : r.noise_sd * std::sqrt(2 * std::log(2.0 * d));
    cs_decode_options decode;
    decode.lambda = r.lambda;
    decode.iterations = options.iterations;
    const status decoded = cs_decode(a, r.measured_mean, d, decode, &r.mean);
    if (decoded != status::ok) return decoded;
  } catch (const std::bad_alloc&) {
    return status::overflow;
  }
  *out = std::move(r);
  return status::ok;
}

}  // namespace ldp::server

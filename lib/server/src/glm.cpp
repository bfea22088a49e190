// Wang et al.'s GLM learner on glm-copies reports (ldp/server/glm.h, docs/mechanisms.md H.4).
#include "ldp/server/glm.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "glm_state.h"
#include "ldp/wire/glm_params.h"

namespace ldp::server {
namespace {

using wire::field;
using wire::loss_kind;

bool is_glm_loss(loss_kind loss) { return loss == loss_kind::logistic || loss == loss_kind::hinge; }

// ln(1 + e^t) without overflow.
double softplus(double t) { return t > 0 ? t + std::log1p(std::exp(-t)) : std::log1p(std::exp(t)); }

// h'_beta(t) = (1 + t / sqrt(t^2 + beta^2)) / 2: the smoothed step 1[t > 0] (Alg 5's h_beta).
double smooth_step(double t, double beta) { return 0.5 * (1.0 + t / std::sqrt(t * t + beta * beta)); }

// What every estimate of one block, loss and smoothing shares.
struct oracle {
  uint32_t p = 1, d = 1;
  std::size_t width = 2;     // p + 1 entries a copy
  double step = 1;           // real units per grid unit
  double lo = 0, hi = 0;     // f'(-1), f'(1)
  std::vector<double> coef;  // c_j C(d, j) for j = 0..d

  oracle(const wire::params& block, double smoothing, loss_kind loss)
      : p(static_cast<uint32_t>(block.get(field::vector_dim))),
        d(static_cast<uint32_t>(block.get(field::degree))),
        width(p + std::size_t{1}),
        step(std::ldexp(1.0, -static_cast<int>(block.get(field::frac_bits)))),
        lo(glm_link_slope(loss, p, -1.0)),
        hi(glm_link_slope(loss, p, 1.0)),
        coef(d + std::size_t{1}) {
    double binomial = 1;  // C(d, j)
    for (uint32_t j = 0; j <= d; ++j) {
      coef[j] = smooth_step(4.0 * j / d - 2.0, smoothing) * binomial;
      binomial = binomial * (d - j) / (j + 1.0);
    }
  }

  // z_c = s_c <theta, x_c> / p of copy c of a row, in real units.
  double margin(const int64_t* row, std::size_t c, const double* theta) const {
    const int64_t* copy = row + c * width;
    double dot = 0;
    for (uint32_t k = 0; k < p; ++k) dot += theta[k] * static_cast<double>(copy[k]) * step;
    return static_cast<double>(copy[p]) * step * dot / p;
  }

  // (f'(1) - f'(-1)) sum_j coef_j prod_k (u or 1 - u) + f'(-1), the margins of term j's factor k
  // given by z(j, k) (erratum 7: copy j d + k, k = 1..d; u for k <= j, 1 - u after).
  template <class Margin>
  double slope(const double* s, Margin z) const {
    double sum = 0;
    for (uint32_t j = 0; j <= d; ++j) {
      double product = coef[j];
      for (uint32_t k = 1; k <= d; ++k) {
        const double u = (z(j, k) - s[j] + 2.0) / 4.0;
        product *= k <= j ? u : 1.0 - u;
      }
      sum += product;
    }
    return (hi - lo) * sum + lo;
  }

  double estimate(const int64_t* row, const double* theta, const double* s) const {
    return slope(s, [&](uint32_t j, uint32_t k) { return margin(row, std::size_t{j} * d + k, theta); });
  }

  void gradient(const int64_t* row, const double* theta, const double* s, double* out) const {
    const double f = estimate(row, theta, s);
    const double label = static_cast<double>(row[p]) * step;  // copy 0
    for (uint32_t k = 0; k < p; ++k) out[k] = f * label * static_cast<double>(row[k]) * step / p;
  }
};

// The server's coins: a fixed generator (std::mt19937_64 is specified bit for bit) and our own
// conversions, so a seed gives the same run everywhere.
class coins {
 public:
  explicit coins(uint64_t seed) : engine_(seed) {}
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }  // [0, 1)
  uint64_t below(uint64_t n) {                                                   // uniform in [0, n) by rejection
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    for (;;) {
      const uint64_t v = engine_();
      if (v < limit) return v % n;
    }
  }

 private:
  std::mt19937_64 engine_;
};

void clip_to_box(std::vector<double>& v) {
  for (double& x : v) x = std::min(1.0, std::max(-1.0, x));
}

}  // namespace

double glm_link(loss_kind loss, uint32_t p, double z) noexcept {
  const double m = p * z;  // the margin s <theta, x> of wire/loss.h
  switch (loss) {
    case loss_kind::logistic: return softplus(-m) / softplus(static_cast<double>(p));
    case loss_kind::hinge: return std::max(0.0, 1.0 - m) / (1.0 + p);
    case loss_kind::caller:
    case loss_kind::squared: break;
  }
  return std::nan("");
}

double glm_link_slope(loss_kind loss, uint32_t p, double z) noexcept {
  const double m = p * z;
  switch (loss) {
    case loss_kind::logistic: return -static_cast<double>(p) / (1.0 + std::exp(m)) / softplus(static_cast<double>(p));
    case loss_kind::hinge: return m < 1.0 ? -(p / (1.0 + p)) : 0.0;  // the right slope at the kink
    case loss_kind::caller:
    case loss_kind::squared: break;
  }
  return std::nan("");
}

double glm_kink_quantile(loss_kind loss, uint32_t p, double r) noexcept {
  switch (loss) {
    case loss_kind::logistic: {
      const double lo = glm_link_slope(loss, p, -1.0), hi = glm_link_slope(loss, p, 1.0);
      const double v = -(lo + r * (hi - lo)) * softplus(static_cast<double>(p)) / p;  // 1 / (1 + e^{p s})
      return std::min(1.0, std::max(-1.0, std::log((1.0 - v) / v) / p));
    }
    case loss_kind::hinge: return 1.0 / p;
    case loss_kind::caller:
    case loss_kind::squared: break;
  }
  return std::nan("");
}

double glm_default_smoothing(uint32_t degree) noexcept { return std::cbrt(32.0 / degree) / 4.0; }

double glm_slope_estimate(const wire::params& p, const int64_t* row, const double* theta, const double* s,
                          double smoothing, loss_kind loss) noexcept {
  return oracle(p, smoothing, loss).estimate(row, theta, s);
}

double glm_slope_mean(const wire::params& p, double z, const double* s, double smoothing, loss_kind loss) noexcept {
  return oracle(p, smoothing, loss).slope(s, [&](uint32_t, uint32_t) { return z; });
}

void glm_gradient(const wire::params& p, const int64_t* row, const double* theta, const double* s, double smoothing,
                  loss_kind loss, double* out) noexcept {
  oracle(p, smoothing, loss).gradient(row, theta, s, out);
}

status glm_train(const aggregator& a, const glm_options& o, glm_result* out) {
  *out = glm_result{};
  const wire::params& block = a.parameters();
  if (!is_glm_mechanism(block.mech) || !is_glm_loss(o.loss) || a.reports() == 0) return status::invalid_argument;
  const uint32_t d = static_cast<uint32_t>(block.get(field::degree));
  const double beta = o.smoothing == 0 ? glm_default_smoothing(d) : o.smoothing;
  if (!(beta > 0) || !std::isfinite(beta)) return status::invalid_argument;
  const auto& state = static_cast<const detail::glm_aggregator&>(a);
  const std::vector<int64_t> rows = state.sorted_rows();
  const uint64_t n = a.reports();
  const oracle g(block, beta, o.loss);
  const uint32_t p = g.p;
  coins rng(o.seed);
  std::vector<double> s(d + std::size_t{1}), grad(p);
  // One realization xi: a user drawn uniformly and one kink draw per product term (erratum 7).
  const auto sample = [&](const std::vector<double>& theta) {
    const int64_t* row = rows.data() + static_cast<std::size_t>(rng.below(n)) * state.width();
    for (double& v : s) v = glm_kink_quantile(o.loss, p, rng.uniform());
    g.gradient(row, theta.data(), s.data(), grad.data());
  };
  // sigma of Lemma 16 (a bound over C): the spread of G over (at most 1000) sampled realizations at
  // the corner theta = (1, ..., 1), where the margins' noise <theta, noise> / p is largest.
  std::vector<double> corner(p, 1.0), mean(p, 0.0), second(p, 0.0);
  const uint64_t probes = std::min<uint64_t>(n, 1000);
  for (uint64_t i = 0; i < probes; ++i) {
    sample(corner);
    for (uint32_t k = 0; k < p; ++k) {
      mean[k] += grad[k] / static_cast<double>(probes);
      second[k] += grad[k] * grad[k] / static_cast<double>(probes);
    }
  }
  double spread = 0;
  for (uint32_t k = 0; k < p; ++k) spread += std::max(0.0, second[k] - mean[k] * mean[k]);
  spread = std::sqrt(spread);
  // SIGM (Appendix C, Algorithm 9) with p_s = 1: alpha_i = B_i = 1 (a = 1), A_k = k + 1,
  // eta_k = alpha_{k+1} / B_{k+1} = 1, beta_k = L + b sigma / R (k + 2)^{1/2}, b = 2^{3/4};
  // d(x) = |x|^2 / 2 on C = [-1, 1]^p, so every argmin is a clip. L: the smoothed loss's
  // smoothness, (f'(1) - f'(-1)) max h''_beta |x / p|^2 <= (f'(1) - f'(-1)) / (2 beta p); R = sqrt(p).
  const double smooth = (g.hi - g.lo) / (2.0 * beta * p), radius = std::sqrt(static_cast<double>(p));
  const auto beta_at = [&](uint64_t k) {
    return smooth + std::pow(2.0, 0.75) * spread / radius * std::sqrt(static_cast<double>(k) + 2.0);
  };
  const uint64_t steps = o.steps == 0 ? n : o.steps;
  std::vector<double> x(p, 0.0), y(p), sum(p), z(p), hat(p);
  sample(x);  // G(x_0; xi_0), x_0 = argmin d = 0
  for (uint32_t k = 0; k < p; ++k) {
    sum[k] = grad[k];
    y[k] = -grad[k] / beta_at(0);
  }
  clip_to_box(y);
  for (uint64_t k = 0; k < steps; ++k) {
    const double b = beta_at(k);
    for (uint32_t j = 0; j < p; ++j) z[j] = -sum[j] / b;
    clip_to_box(z);
    sample(z);  // x_{k+1} = eta z_k + (1 - eta) y_k = z_k
    for (uint32_t j = 0; j < p; ++j) hat[j] = z[j] - grad[j] / b;
    clip_to_box(hat);
    // y_{k+1} = (A_{k+1} - B_{k+1}) / A_{k+1} y_k + B_{k+1} / A_{k+1} w_{k+1}, w_{k+1} = x^_{k+1}.
    const double weight = 1.0 / (static_cast<double>(k) + 2.0);
    for (uint32_t j = 0; j < p; ++j) {
      y[j] += weight * (hat[j] - y[j]);
      sum[j] += grad[j];
    }
  }
  out->theta = y;
  out->w.resize(p);
  for (uint32_t j = 0; j < p; ++j) out->w[j] = (y[j] + 1.0) / 2.0;
  out->smoothing = beta;
  out->steps = steps;
  out->spread = spread;
  out->epsilon = wire::implemented_epsilon(block);
  out->delta = wire::glm_delta(block);
  return status::ok;
}

}  // namespace ldp::server

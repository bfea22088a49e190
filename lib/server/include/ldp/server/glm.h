// Server side of glm-copies (docs/mechanisms.md H.4): Wang, Gaboardi, Smith, Xu's Algorithms 4 and 5
// (convex generalized linear models; the hinge loss is Algorithm 4) on the reports of an aggregator
// of glm-copies blocks, with the errata of docs/mechanisms.md C.4 items 6-8 fixed.
//
// The aggregator (aggregator::create on a glm-copies block) keeps every report's D (p + 1) entries:
// the learner multiplies copies of one user, so no sum serves it. Saved state (docs/wire_format.md
// 7.8): the reports sorted lexicographically, each entry an i64 little endian, which is a function of
// the set of reports alone (any merge order gives the same bytes). estimate_all() lists p + 1
// estimates: the mean of feature j (j < p) and of the label s (j = p), averaged over users and
// copies, with the variance bound (range^2 / 4 + sigma^2 / D) / n, kind `bound`.
//
// The learner (glm_train): the loss is l(theta; x, s) = f(z), z = s <theta, x> / p in [-1, 1], for
// theta = 2 w - 1 in [-1, 1]^p and ldpkit's normalized losses (wire/loss.h, H.0): logistic
// f(z) = ln(1 + e^{-p z}) / ln(1 + e^p), hinge f(z) = max(0, 1 - p z) / (1 + p), both convex with
// |f'| <= 1 on [-1, 1] (the paper's Assumption 2). Lemma 32 writes f'(z) = (f'(1) - f'(-1))
// P_{s ~ Q}(s < z) + f'(-1), Q the law of the kink (hinge: the point 1 / p); the step 1[s < z] is
// smoothed to h'_beta(z - s), h_beta(t) = (t + sqrt(t^2 + beta^2)) / 2, and h'_beta on [-2, 2] is
// replaced by its degree-d Bernstein polynomial in u = (z - s + 2) / 4 in [0, 1] (erratum 6: the
// nodes live on [0, 1]), coefficients c_j = h'_beta(4 j / d - 2). Each factor of a product term is
// linear in one copy's z_c = s_c <theta, x_c> / p, whose noises are independent, so the product of
// d factors from d distinct copies is unbiased for u^j (1 - u)^(d - j) (erratum 7: copies
// j d + 1 .. j d + d of term j, the exponent d - j, one s shared by the factors of a term), and the
// gradient estimate is G = F s_0 x_0 / p with F the slope estimate below (erratum 7: f'(-1) is
// multiplied by s_0 x_0 too). SIGM (Appendix C, Algorithm 9, with its exponent p_s = 1: Lemma 16)
// runs `steps` iterations, each on one user drawn uniformly with replacement.
#ifndef LDP_SERVER_GLM_H
#define LDP_SERVER_GLM_H

#include <cstdint>
#include <vector>

#include "ldp/base/status.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire/loss.h"
#include "ldp/wire/params.h"

namespace ldp::server {

// The link f of a GLM loss at z in [-1, 1] for dimension p, and its slope f'(z) (hinge: the left
// slope at the kink). logistic and hinge only (NaN for the others: squared loss is not f(s <theta, x>)).
[[nodiscard]] double glm_link(wire::loss_kind loss, uint32_t p, double z) noexcept;
[[nodiscard]] double glm_link_slope(wire::loss_kind loss, uint32_t p, double z) noexcept;

// The kink law Q of Lemma 32 at probability r in [0, 1]: the s with f'(s) = f'(-1) + r (f'(1) - f'(-1))
// (logistic: s = -logit(v) / p for v = -f'(s) ln(1 + e^p) / p; hinge: 1 / p for every r).
[[nodiscard]] double glm_kink_quantile(wire::loss_kind loss, uint32_t p, double r) noexcept;

// The paper's smoothing for the block's degree d: beta = alpha / 4 with alpha = (32 / d)^(1/3)
// (Theorem 30's d = 32 / alpha^3 solved for alpha).
[[nodiscard]] double glm_default_smoothing(uint32_t degree) noexcept;

// The slope estimate F of one report (row: its D (p + 1) entries in grid units) at theta, with
// s[0..d] the kink draw of each product term (Algorithm 5 steps 14-19 corrected):
// F = (f'(1) - f'(-1)) sum_j c_j C(d, j) prod_{k=1..j} u_{jd+k} prod_{k=j+1..d} (1 - u_{jd+k}) + f'(-1),
// u_c = (z_c - s_j + 2) / 4.
[[nodiscard]] double glm_slope_estimate(const wire::params& p, const int64_t* row, const double* theta, const double* s,
                                        double smoothing, wire::loss_kind loss) noexcept;

// Its mean over the device's noise for a user at margin z (given the s_j): the same sum with every
// u_c = (z - s_j + 2) / 4.
[[nodiscard]] double glm_slope_mean(const wire::params& p, double z, const double* s, double smoothing,
                                    wire::loss_kind loss) noexcept;

// The gradient estimate G = F s_0 x_0 / p of one report (out: p values).
void glm_gradient(const wire::params& p, const int64_t* row, const double* theta, const double* s, double smoothing,
                  wire::loss_kind loss, double* out) noexcept;

struct glm_options {
  wire::loss_kind loss = wire::loss_kind::hinge;  // logistic or hinge
  double smoothing = 0;                           // beta; 0: glm_default_smoothing(d)
  uint64_t steps = 0;                             // SIGM iterations; 0: n, the paper's
  uint64_t seed = 1;                              // the server's coins: sampled users and kink draws
};

struct glm_result {
  std::vector<double> w;      // w_priv in [0, 1]^p
  std::vector<double> theta;  // 2 w - 1 in [-1, 1]^p
  double smoothing = 0;       // the beta used
  uint64_t steps = 0;         // the iterations run
  double spread = 0;          // sigma of SIGM: the root mean square deviation of G at theta = (1, ..., 1)
  double epsilon = 0;         // the reports' (epsilon, delta) (wire::implemented_epsilon, glm_delta)
  double delta = 0;
};

// w_priv from an aggregator of glm-copies reports (or its saved state): invalid_argument for another
// aggregator, a loss other than logistic or hinge, or a smoothing that is not a positive finite
// number, or an aggregator without reports. The same aggregator contents, options and seed give the
// same result on every platform (the users are taken in the saved state's order).
[[nodiscard]] status glm_train(const aggregator& a, const glm_options& o, glm_result* out);

// Whether m's reports are counted by the glm-copies aggregator.
[[nodiscard]] bool is_glm_mechanism(wire::mechanism m) noexcept;

}  // namespace ldp::server

#endif

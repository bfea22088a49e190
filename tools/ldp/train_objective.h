// The objective ldp train minimizes and reports (docs/mechanisms.md H.7): the empirical risk, the
// mean of wire::loss_value over examples at w in C = [0, 1]^p, its gradient for the SGD baselines,
// the test accuracy of a classifier, and the non-private optimum over the same C.
#ifndef LDP_TOOLS_TRAIN_OBJECTIVE_H
#define LDP_TOOLS_TRAIN_OBJECTIVE_H

#include <cstdint>
#include <vector>

#include "ldp/wire/loss.h"
#include "train_data.h"

namespace ldp::tools {

// The mean normalized loss over the examples at w (p values in [0, 1]), weighted by their weights.
double empirical_risk(wire::loss_kind loss, const examples& data, const double* w);

// The gradient in w of one example's normalized loss (wire/loss.h's map: theta = 2 w - 1, margin
// m = <theta, x>, dm/dw = 2 x): squared 4 (m - y) x / (p + 1)^2, logistic -2 s x / ((1 + e^{s m})
// ln(1 + e^p)), hinge -2 s x / (1 + p) where s m < 1 (a subgradient: 0 elsewhere). Writes p values.
void loss_gradient(wire::loss_kind loss, const double* w, const double* x, uint32_t p, double y, double* gradient);

// The largest L2 norm of loss_gradient over w, x in [0, 1]^p and the labels: 4 sqrt(p) / (p + 1),
// 2 sqrt(p) / ln(1 + e^p), 2 sqrt(p) / (p + 1).
double gradient_bound(wire::loss_kind loss, uint32_t p);

// The share of examples whose label the sign of the margin gives (class 1 for m > 0).
double accuracy(const examples& data, const double* w);

// The minimizer of empirical_risk over [0, 1]^p by server::minimize_on_box (the solver the Bernstein
// learner uses, so both answers are as good as one search finds).
std::vector<double> nonprivate_minimum(wire::loss_kind loss, const examples& data, uint64_t seed);

}  // namespace ldp::tools

#endif

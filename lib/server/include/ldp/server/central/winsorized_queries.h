// Levy et al. 2021, Thm 3 (docs/mechanisms.md C.2 "K adaptive queries (Thm 3)"): a session that
// answers K query functions phi_k chosen one after the other by the caller, each possibly after
// seeing the earlier answers, on the same n users' samples, within one user-level (epsilon, delta).
//
// Query k is one WinsorizedMeanHighD call (winsorized.h) on the users' averaged phi_k: every user
// applies phi_k to each of its first m samples, clamps each value to the box [lo, hi]^d on the grid
// (contribution bounding) and averages them (the device's rounding, wire::rounded_mean); round 1
// sends the bins of the rotated mean (a fresh rotation seed per query, drawn from the session's
// DRBG: public, data-independent), PrivateRange picks a window per rotated coordinate, round 2 sums
// the clamped rotated means, and the release adds discrete Laplace noise and rotates back, through
// the aggregators of the two-round form (winsorized_mean_highd). Each query spends the
// per-coordinate epsilon' of winsorized_session (K d~ coordinate mechanisms composed adaptively:
// advanced composition holds for adaptive choices, Dwork, Rothblum, Vadhan 2010); the (K+1)-th
// query is budget_exhausted and runs nothing.
//
// The session holds the data and calls phi on the server (a trusted curator, or a simulation of
// the devices); in a deployment phi's description is broadcast with each round's block. Privacy
// needs phi to depend only on its sample and on public information (earlier answers, constants):
// a phi that reads other users' data is outside the guarantee. Utility needs the users' averaged
// phi to lie within tau (l2) of a common point (Def. 3, uniform concentration); tau's default is
// Cor. 1's (user_mean_tau, from m, n, d and gamma). A phi value that is NaN counts as the box's
// centre, any other value is clamped: nothing a user holds makes a query fail.
#ifndef LDP_SERVER_CENTRAL_WINSORIZED_QUERIES_H
#define LDP_SERVER_CENTRAL_WINSORIZED_QUERIES_H

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/random/drbg.h"
#include "ldp/server/central/winsorized.h"

namespace ldp::server {

struct winsorized_query_options {
  double epsilon = 1;         // user-level (epsilon, delta) of the whole session
  double delta = 0;           // 0: pure DP (basic composition)
  uint64_t queries = 1;       // K
  uint32_t dim = 1;           // d: every query answers a d-vector
  double lo = -1, hi = 1;     // the box of phi's values (each coordinate clamped to [lo, hi])
  unsigned frac_bits = 16;    // the grid of the devices' fixed point (B.0)
  uint32_t observations = 1;  // m: a user contributes its first m samples
  double tau = 0;             // l2 radius of the users' averaged phi around a common point; 0: Cor. 1
  double gamma = 1e-3;        // Cor. 1's failure probability (user_mean_tau), when tau = 0
  double beta = 1e-3;         // the rotation's (rotated_tau)
  budget_rule budget = budget_rule::tight;
  window_rule window = window_rule::safe;
};

// phi_k on one sample (sample_dim reals), writing its d values.
using query_function = std::function<void(span<const double> sample, span<double> value)>;

struct winsorized_query_answer {
  uint64_t query = 0;           // k, from 0
  std::vector<double> mean;     // d coordinates, real units
  double noise_variance = 0;    // of each coordinate of mean (the noise alone, not the winsorization)
  double eps_coordinate = 0;    // epsilon' the query was given per rotated coordinate
  double epsilon_impl = 0;      // per rotated coordinate as implemented: PrivateRange + noise, <= epsilon'
  uint64_t bin_half_width = 0;  // tau of the bins, rotated grid units
};

class winsorized_query_session {
 public:
  // A session over users[u] (a positive multiple of sample_dim reals: the user's samples one after
  // the other; the caller keeps them alive and unchanged while the session lives), drawing the
  // rotation seeds, PrivateRange and the noise from a ChaCha20 DRBG keyed with `seed` (secret: the
  // server's randomness). invalid_argument for options out of range (as winsorized_session::create,
  // a box that does not fit the grid or wire_format.md 3.3, no users, a user without samples,
  // sample_dim 0), or a budget rule whose epsilon' would compose above epsilon or leave PrivateRange
  // nothing to implement.
  [[nodiscard]] static status create(const winsorized_query_options& options, span<const span<const double>> users,
                                     std::size_t sample_dim, const unsigned char seed[random::drbg::seed_size],
                                     winsorized_query_session* out) noexcept;

  // Query phi: the next of the K. budget_exhausted once K queries ran (nothing runs, nothing is
  // spent); invalid_argument for an empty phi or a session that create refused. A query that fails
  // after its budget was handed out still counts as spent (at epsilon'): overflow when memory runs
  // out, invalid_argument when phi throws (phi must not: what a throw on a user's sample reveals is
  // outside the guarantee).
  [[nodiscard]] status ask(const query_function& phi, winsorized_query_answer* out) noexcept;

  uint64_t asked() const noexcept { return asked_; }
  uint64_t remaining() const noexcept { return budget_.queries() - asked_; }
  // What the queries asked so far spend: composed_loss of asked() d~ mechanisms at the largest
  // per-coordinate level implemented, at the session's delta; never above (epsilon, delta).
  privacy_loss spent() const noexcept { return composed_loss(level_, asked_ * budget_.rotated_dim(), budget_.delta()); }
  const winsorized_session& budget() const noexcept { return budget_; }
  // The l2 radius the bins assume (options.tau or Cor. 1's) and the bin half width it gives.
  double tau() const noexcept { return tau_; }
  uint64_t bin_half_width() const noexcept { return bin_half_width_; }
  uint64_t users() const noexcept { return users_.size(); }
  uint32_t dimension() const noexcept { return options_.dim; }

 private:
  [[nodiscard]] status run(const query_function& phi, double eps, uint64_t query,
                           winsorized_query_answer* out) noexcept;

  winsorized_query_options options_{};
  std::vector<span<const double>> users_;
  std::size_t sample_dim_ = 0;
  winsorized_session budget_{};
  std::unique_ptr<random::drbg> rng_;
  double tau_ = 0;
  uint64_t bin_half_width_ = 0;
  uint64_t range_ = 0;
  int64_t clip_lo_ = 0, clip_hi_ = 0;
  uint64_t asked_ = 0;
  double level_ = 0;  // the largest per-coordinate epsilon implemented so far
};

}  // namespace ldp::server

#endif

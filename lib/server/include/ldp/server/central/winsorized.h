// Levy, Sun, Amin, Kale, Kulesza, Mohri, Suresh 2021, user-level central DP (docs/mechanisms.md C.2):
// PrivateRange (Alg 6), WinsorizedMean1D (Alg 1), WinsorizedMeanHighD (Alg 2) with its device/server
// split in two rounds that need only sums, and the K-adaptive-queries budget (Thm 3; the session
// that runs K adaptively chosen query functions is winsorized_queries.h). Neighbours
// replace one user's whole data; n is public. Privacy never depends on tau, gamma or the rotation:
// only utility does.
//
// [impl] Variants implemented (C.2 "Corrections"):
//   - windows: window_rule::safe (default) [mu - 3 tau, mu + 3 tau] with noise 12 tau / (n eps), which
//     makes Thm 1's no-clipping claim hold for a (1/4, 3/4)-quantile bin; window_rule::paper
//     [mu - 2 tau, mu + 2 tau] with 8 tau / (n eps), biased on straddling data.
//   - PrivateRange: bins I_k = [-B + 2k tau, -B + 2(k+1) tau), the last closed and cut at B; scores
//     c(x) = max(#{X' < x}, #{X' > x}) are computed per run of equal-score bins (O(n log n) for the
//     values, O(occupied bins) for a histogram, whatever B / tau); sampling is exact: a uniform bin is
//     proposed and accepted with probability exp(-eps' (c - c_min) / 2) by bern_exp on integers, with
//     eps' / 2 rounded down to a multiple of 2^-32 (no floating-point exponential, Ilvento 2020). The
//     expected number of proposals is l / W, W = sum over bins of exp(-eps' (c - c_min) / 2) >= 1:
//     O(1) when many bins score near the best, up to l when the data sit in one bin.
//   - noise: discrete Laplace on the integer sums (B.1) with t = 2 w / (eps / 2) grid units for a
//     window of width 2 w, i.e. Lap(2 (b - a) / (n eps)) on the mean, drawn from the server's DRBG.
//   - WinsorizedMeanHighD: the rotation of B.4 with a fresh seed per call, noise on all d~ rotated
//     coordinates, per-coordinate budget by advanced composition over d~ coordinate mechanisms; the
//     paper's eps' = eps / sqrt(8 d~ ln(1/delta)) (budget_rule::paper) or the eps' solving
//     eps_tot(eps') = eps exactly (budget_rule::tight, default; about 2x larger); tau' from the
//     paper (10 tau sqrt(ln(d~ n / gamma) / d~)) or Hoeffding (tau sqrt(2 ln(2 d~ n / gamma) / d~),
//     default), each capped at tau.
//   - Two rounds (C.2 "Device/server split"): round 1 aggregates per-coordinate bin histograms
//     (winsorized-bins), select_windows runs PrivateRange per coordinate and encodes the window list
//     the server broadcasts (wire central_params.h), round 2 aggregates the clamped rotated values
//     (winsorized-sums) and release_winsorized_mean adds the noise and rotates back. A user lost
//     between the rounds counts as the window midpoint (data-independent), keeping n and the
//     sensitivity. winsorized_mean_highd runs the same two aggregators on users' means in one call,
//     drawing the same random numbers in the same order: with the same DRBG seed both forms give the
//     same estimate.
#ifndef LDP_SERVER_CENTRAL_WINSORIZED_H
#define LDP_SERVER_CENTRAL_WINSORIZED_H

#include <cstdint>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/random/drbg.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire/params.h"

namespace ldp::server {

// ---- Budget arithmetic --------------------------------------------------------------------------

enum class budget_rule : uint8_t { paper, tight };
enum class tau_rule : uint8_t { paper, hoeffding };
enum class window_rule : uint8_t { paper, safe };

// Advanced composition (Dwork, Rothblum, Vadhan 2010) of k eps_step-DP mechanisms at slack delta:
// sqrt(2 k ln(1/delta)) eps_step + k eps_step (e^eps_step - 1).
[[nodiscard]] double advanced_composition(double eps_step, uint64_t k, double delta) noexcept;

// The per-mechanism epsilon for k mechanisms within (epsilon, delta): paper eps / sqrt(8 k ln(1/delta)),
// tight the largest eps' that basic (k eps') or advanced composition (advanced_composition(eps', k,
// delta), by bisection) keeps within epsilon; delta = 0 uses basic composition eps / k (pure DP).
// invalid_argument for epsilon <= 0, delta outside [0, 1), or k = 0.
[[nodiscard]] status step_epsilon(double epsilon, double delta, uint64_t k, budget_rule rule, double* out) noexcept;

// K adaptive WinsorizedMeanHighD queries on d~ rotated coordinates (Thm 3). paper, K > 1: each query
// at eps0 = eps / (2 sqrt(2 K ln(2 / delta))), delta0 = delta / (2K), then eps0 split over d~
// coordinates as step_epsilon(eps0, delta0, d~, paper); paper, K = 1: Alg 2's step_epsilon(eps,
// delta, d~, paper); tight: one composition over all K d~ coordinate mechanisms, step_epsilon(eps,
// delta, K d~, tight) (C.2: about 12x larger at d = 128, K = 50); delta = 0: basic, eps / (K d~).
[[nodiscard]] status query_step_epsilon(double epsilon, double delta, uint64_t queries, uint64_t rotated_dim,
                                        budget_rule rule, double* out) noexcept;

// tau' of a rotated coordinate for users whose means lie within tau (l2) of a common point, with
// failure probability gamma: min(tau, 10 tau sqrt(ln(d~ n / gamma) / d~)) or min(tau, tau sqrt(2
// ln(2 d~ n / gamma) / d~)), in tau's units. NaN for arguments out of range.
[[nodiscard]] double rotated_tau(double tau, uint64_t rotated_dim, uint64_t n, double gamma, tau_rule rule) noexcept;

// Levy et al. Cor. 1's concentration radius (docs/mechanisms.md C.2 "The default tau (Cor. 1)"):
// the l2 radius around the population mean that holds the means of all `users` users' `samples`
// i.i.d. samples of `dim` coordinates, each coordinate in an interval of length `width`, except
// with probability gamma: Hoeffding per coordinate with a union bound over users x dim,
// width sqrt(dim ln(2 users dim / gamma) / (2 samples)), capped at the whole box's width sqrt(dim) /
// 2 (the box's centre always holds every mean). Real units. NaN for arguments out of range.
[[nodiscard]] double user_mean_tau(double width, uint64_t dim, uint64_t samples, uint64_t users, double gamma) noexcept;

// The bin half width in rotated grid units (central_params.h: Y = H D X, sqrt(d~) times the
// normalized rotation, at 2^frac_bits per unit) for users' means within `tau` (l2, real units) of a
// common point: ceil(rotated_tau(tau, d~, users, beta, hoeffding) sqrt(d~) 2^frac_bits), at least 1
// and at most max(range, 1). 0 for arguments rotated_tau refuses.
[[nodiscard]] uint64_t rotated_bin_half_width(double tau, uint64_t rotated_dim, uint64_t users, double beta,
                                              unsigned frac_bits, uint64_t range) noexcept;

// The window half width w for bins of half width tau: 2 tau (paper) or 3 tau (safe).
[[nodiscard]] constexpr uint64_t window_half_width(uint64_t tau, window_rule rule) noexcept {
  return (rule == window_rule::paper ? 2 : 3) * tau;
}

// What a session of coordinate mechanisms spends per user.
struct privacy_loss {
  double epsilon = 0;
  double delta = 0;
  bool basic = false;  // basic composition (pure DP), else advanced at the session's delta
};

// The loss of `mechanisms` per_coordinate-DP mechanisms (adaptively chosen): the smaller of basic
// composition and, for delta > 0, advanced composition at delta.
[[nodiscard]] privacy_loss composed_loss(double per_coordinate, uint64_t mechanisms, double delta) noexcept;

// The budget of K adaptive queries (the session's accounting, Thm 3): each query is a
// WinsorizedMeanHighD call with a fresh rotation seed over d~ coordinate mechanisms, each spending
// epsilon' (half on PrivateRange, half on the noise), so a session is K d~ mechanisms. It hands out
// epsilon' to each of K queries and refuses a (K+1)-th.
class winsorized_session {
 public:
  // epsilon' = query_step_epsilon(...); invalid_argument as query_step_epsilon. A rule whose
  // epsilon' overspends (the paper's, at a large epsilon and delta) is created: within_budget of
  // loss(eps_coordinate()) says so before anything runs.
  [[nodiscard]] static status create(double epsilon, double delta, uint64_t queries, uint64_t rotated_dim,
                                     budget_rule rule, winsorized_session* out) noexcept;
  // The next query's per-coordinate epsilon; invalid_argument once K queries were handed out.
  [[nodiscard]] status next_query(double* eps_coordinate) noexcept;
  uint64_t remaining() const noexcept { return queries_ - used_; }

  // What the session spends when each of its K d~ mechanisms is `per_coordinate`-DP (as
  // implemented, at most epsilon'): the smaller of basic and advanced composition (advanced needs
  // delta > 0).
  [[nodiscard]] privacy_loss loss(double per_coordinate) const noexcept;
  // Whether a loss stays within the session's epsilon. The tight rule's bisection may land a few
  // ulps above epsilon; anything more is the paper's rule outside its assumptions.
  [[nodiscard]] bool within_budget(const privacy_loss& spent) const noexcept;

  double epsilon() const noexcept { return epsilon_; }
  double delta() const noexcept { return delta_; }
  uint64_t queries() const noexcept { return queries_; }
  uint64_t rotated_dim() const noexcept { return rotated_dim_; }
  uint64_t mechanisms() const noexcept { return queries_ * rotated_dim_; }  // create checked the product
  budget_rule rule() const noexcept { return rule_; }
  double eps_coordinate() const noexcept { return eps_coordinate_; }

 private:
  double epsilon_ = 0;
  double delta_ = 0;
  uint64_t queries_ = 0;
  uint64_t rotated_dim_ = 0;
  budget_rule rule_ = budget_rule::tight;
  double eps_coordinate_ = 0;
  uint64_t used_ = 0;
};

// ---- PrivateRange (Alg 6) -------------------------------------------------------------------------

struct bin_count {
  uint64_t bin = 0;    // < bins
  uint64_t count = 0;  // >= 1
};

// The exponential mechanism over `bins` bins (at most 2^62) with score c(k) = max(#below k, #above k)
// for the histogram `occupied` (bins strictly increasing, counts >= 1), at epsilon (sensitivity 1),
// so P(k) is proportional to exp(-epsilon c(k) / 2). *epsilon_impl <= epsilon is the level of the
// rational exponent used. The draw is exact (integer arithmetic and exact Bernoulli events only) and
// takes O(occupied bins) expected time whatever `bins` is: runs of empty bins share a score and are
// weighed as one group. invalid_argument for epsilon outside (0, 40], bins 0, or a bad histogram.
[[nodiscard]] status private_range(span<const bin_count> occupied, uint64_t bins, double epsilon, random::drbg& rng,
                                   uint64_t* bin, double* epsilon_impl) noexcept;

// The level private_range implements at `epsilon` (2 lambda, lambda = epsilon / 2 rounded down to a
// multiple of 2^-32), without drawing; invalid_argument (and 0) where private_range refuses epsilon.
[[nodiscard]] status private_range_epsilon(double epsilon, double* epsilon_impl) noexcept;

// The exact output law of private_range as doubles (for audits and tests): P(k) for every bin.
// Empty on bad arguments or when memory runs out.
[[nodiscard]] std::vector<double> private_range_law(span<const bin_count> occupied, uint64_t bins,
                                                    double epsilon) noexcept;

// ---- WinsorizedMean1D (Alg 1), one shot --------------------------------------------------------

struct winsorized_1d_options {
  double epsilon = 1;  // total: eps/2 for PrivateRange, eps/2 for the noise
  uint64_t tau = 1;    // bin half width, grid units, >= 1
  uint64_t range = 1;  // B: bins cover [-B, B], grid units, 1 <= B < 2^62
  window_rule window = window_rule::safe;
};

struct winsorized_1d_result {
  double mean = 0;        // grid units: (clipped sum + noise) / n
  uint64_t bin = 0;       // PrivateRange's bin
  int64_t window_lo = 0;  // [mid - w, mid + w]
  int64_t window_hi = 0;
  int64_t clipped_sum = 0;  // before noise
  uint64_t scale_num = 0;   // noise t = scale_num / scale_den grid units on the sum
  uint64_t scale_den = 0;
  double epsilon_impl = 0;  // range + noise, <= epsilon
};

// Alg 1 on n = values.size() >= 1 integers (grid units) drawn from `rng`. invalid_argument for bad
// options, no values, or sums beyond int64.
[[nodiscard]] status winsorized_mean_1d(span<const int64_t> values, const winsorized_1d_options& options,
                                        random::drbg& rng, winsorized_1d_result* out) noexcept;

// ---- The two rounds of WinsorizedMeanHighD ------------------------------------------------------

// Round 1 (winsorized-bins): per rotated coordinate, the exact histogram of the users' bins (d~ x l
// counts, 8 d~ l bytes). A report with a bin >= l is out_of_range. estimate_all() returns, per rotated
// coordinate, the midpoint of the bin holding the median user (rotated units; exact, NOT private).
class winsorized_bins_aggregator : public aggregator {
 public:
  winsorized_bins_aggregator(const wire::params& p, std::size_t cells);
  // The occupied bins of rotated coordinate j, in increasing order.
  std::vector<bin_count> histogram(std::size_t j) const;

 protected:
  status ingest(const wire::report& r) noexcept override;
  status merge_counts(const aggregator& other) override;
  void write_body(std::vector<unsigned char>& out) const override;
  status read_body(span<const unsigned char> body) override;
  std::vector<estimate> estimate_impl(double z) const override;

 private:
  std::size_t bins_ = 0;
  std::vector<uint64_t> counts_;  // coordinate-major: counts_[j * l + k]
  std::vector<int64_t> scratch_;
};

struct window_selection {
  std::vector<uint32_t> bins;              // the selected bin of each rotated coordinate
  std::vector<unsigned char> window_list;  // its wire encoding (the broadcast)
  wire::params round2;                     // the winsorized-sums block for it
  double epsilon_impl = 0;                 // per coordinate, <= eps_coordinate / 2
};

// PrivateRange on every rotated coordinate at eps_coordinate / 2, in coordinate order, and the
// round-2 block with window half width w = window_half_width(tau, rule). invalid_argument for an
// aggregator that is not round 1, no reports, or eps out of range.
[[nodiscard]] status select_windows(const aggregator& round1, double eps_coordinate, window_rule rule,
                                    random::drbg& rng, window_selection* out) noexcept;

// Round 2 (winsorized-sums): exact sums of the rotated values clamped to the windows. The window list
// arrives with set_windows (checked against the block's digest) or with a saved state; a report
// before that is invalid_argument, a value outside its coordinate's window out_of_range. estimate_all()
// returns the exact, NOT private, mean of the clamped values rotated back (d coordinates, real units).
class winsorized_sums_aggregator : public aggregator {
 public:
  explicit winsorized_sums_aggregator(const wire::params& p);
  [[nodiscard]] status set_windows(span<const unsigned char> window_list) noexcept;
  bool has_windows() const noexcept { return !windows_.empty(); }
  const std::vector<int64_t>& sums() const noexcept { return sums_; }
  uint32_t window_bin(std::size_t j) const noexcept { return bins_[j]; }

 protected:
  status ingest(const wire::report& r) noexcept override;
  status merge_counts(const aggregator& other) override;
  void write_body(std::vector<unsigned char>& out) const override;
  status read_body(span<const unsigned char> body) override;
  std::vector<estimate> estimate_impl(double z) const override;

 private:
  std::vector<unsigned char> windows_;  // the broadcast list, empty until set
  std::vector<uint32_t> bins_;
  std::vector<int64_t> sums_;
  std::vector<int64_t> scratch_;
};

struct winsorized_release {
  std::vector<double> mean;          // d coordinates, real units (rotated back)
  std::vector<double> rotated_mean;  // d~ noisy rotated means, rotated grid units
  uint64_t users = 0;                // n
  uint64_t scale_num = 0;            // noise t on each rotated sum (grid units)
  uint64_t scale_den = 0;
  double epsilon_impl = 0;    // per coordinate, <= eps_coordinate / 2
  double noise_variance = 0;  // of each coordinate of `mean` (real units): 2 alpha/(1-alpha)^2 / (n^2 d~) * gamma^2
};

// The noise and the inverse rotation on round 2 at eps_coordinate / 2. users = n of round 1 (0: the
// reports of round 2); round-2 reports below it are filled with window midpoints, above it is
// invalid_argument. invalid_argument also for an aggregator that is not round 2 or has no windows.
[[nodiscard]] status release_winsorized_mean(const aggregator& round2, double eps_coordinate, uint64_t users,
                                             random::drbg& rng, winsorized_release* out) noexcept;

struct winsorized_highd_result {
  window_selection windows;
  winsorized_release release;
};

// The one-shot form: users' means (n x d values in [clip_lo, clip_hi], user after user) through the
// same round-1 aggregator, select_windows, round-2 aggregator and release, with one DRBG.
[[nodiscard]] status winsorized_mean_highd(const wire::params& round1, span<const int64_t> user_means,
                                           double eps_coordinate, window_rule rule, random::drbg& rng,
                                           winsorized_highd_result* out) noexcept;

}  // namespace ldp::server

#endif

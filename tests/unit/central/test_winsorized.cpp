// Exact checks of Levy et al.'s user-level winsorized means (docs/mechanisms.md C.2): the winsorized
// blocks and window list, the device's contribution bounding and rotation, budget arithmetic (C.2
// Tests 3), the exponential mechanism's ratio (Tests 2), the exact privacy loss of WinsorizedMean1D
// from its finite mixture (Tests 1), the aggregators of both rounds, two rounds == one shot, and
// robustness cases (Tests 6). Deterministic: nothing here can fail by chance.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "device_context.h"
#include "ldp/device/winsorized.h"
#include "ldp/random.h"
#include "ldp/server/aggregator.h"
#include "ldp/server/central/winsorized.h"
#include "ldp/wire/central_params.h"
#include "ldp/wire/mean_params.h"
#include "ldp/wire/state.h"
#include "tables.h"

namespace {

using ldp::status;
using ldp::server::bin_count;
using ldp::wire::field;

const unsigned char seed_a[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
const unsigned char seed_b[32] = {9, 9, 9};

// d coordinates in [-1, 1] at f = 8, at most m samples a user, bins of half width tau over [-B, B].
ldp::wire::params round1_block(uint32_t d, uint32_t m, uint64_t range, uint64_t tau,
                               const unsigned char* seed = seed_a) {
  ldp::wire::params p;
  REQUIRE(ldp::wire::make_winsorized_bins(d, 8, -256, 256, m, range, tau, seed, &p) == status::ok);
  return p;
}

using device = ldp::test::owned_context<ldp::device::winsorized_context>;

// A user's report of `samples` under block p (round 2 with the broadcast window list) into bytes;
// its size.
std::size_t winsorized_report(const ldp::wire::params& p, ldp::span<const unsigned char> windows,
                              ldp::span<const int64_t> samples, std::vector<unsigned char>& bytes) {
  device user(p, windows);
  REQUIRE(user.code == status::ok);
  auto unused = ldp::test::seeded_drbg("winsorized draws nothing");
  std::size_t written = 0;
  REQUIRE(user->randomize(samples, unused, bytes, ldp::device::framing::report, &written) == status::ok);
  return written;
}

// y = H D x with the dense Sylvester matrix and the public signs.
std::vector<int64_t> dense_rotation(const ldp::wire::params& p, const std::vector<int64_t>& x) {
  const auto n = static_cast<uint32_t>(p.get(field::hadamard_dim));
  std::vector<uint32_t> words(ldp::random::rotation_sign_words(n));
  REQUIRE(ldp::random::rotation_signs(p.rotation_seed, n, words) == status::ok);
  std::vector<int64_t> y(n, 0);
  for (uint32_t r = 0; r < n; ++r) {
    for (uint32_t c = 0; c < x.size(); ++c) {
      const int64_t sign = ((words[c / 32] >> (c % 32)) & 1u) ? -1 : 1;
      y[r] += (ldp::popcount32(r & c) % 2 ? -1 : 1) * sign * x[c];
    }
  }
  return y;
}

// The exact law of WinsorizedMean1D's noisy sum on the integers [lo, hi], in logs: the mixture over
// PrivateRange's bins k of p_k DLap(s - S_k), S_k the sum clipped to bin k's window.
std::vector<double> log_output_law(const std::vector<int64_t>& values, const ldp::server::winsorized_1d_options& o,
                                   double t, int64_t lo, int64_t hi) {
  const uint64_t bins = ldp::wire::bin_count(o.range, o.tau);
  std::vector<uint64_t> idx;
  for (int64_t v : values) idx.push_back(ldp::wire::bin_of(v, o.range, o.tau));
  std::sort(idx.begin(), idx.end());
  std::vector<bin_count> occupied;
  for (uint64_t k : idx) {
    if (occupied.empty() || occupied.back().bin != k) occupied.push_back({k, 0});
    ++occupied.back().count;
  }
  const auto law = ldp::server::private_range_law(occupied, bins, o.epsilon / 2);
  REQUIRE(law.size() == bins);
  const auto w = static_cast<int64_t>(ldp::server::window_half_width(o.tau, o.window));
  std::vector<double> out(static_cast<std::size_t>(hi - lo + 1), -std::numeric_limits<double>::infinity());
  const double a = std::exp(-1 / t), log_c = std::log((1 - a) / (1 + a));
  for (uint64_t k = 0; k < bins; ++k) {
    const int64_t mid = ldp::wire::bin_midpoint(k, o.range, o.tau);
    int64_t sum = 0;
    for (int64_t v : values) sum += std::clamp(v, mid - w, mid + w);
    for (int64_t s = lo; s <= hi; ++s) {
      const double term =
          std::log(law[static_cast<std::size_t>(k)]) + log_c - static_cast<double>(std::llabs(s - sum)) / t;
      double& acc = out[static_cast<std::size_t>(s - lo)];
      const double big = std::max(acc, term);
      acc = big + std::log(std::exp(acc - big) + std::exp(term - big));
    }
  }
  return out;
}

double sup_log_ratio(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
  return worst;
}

std::vector<bin_count> histogram_of(const std::vector<uint64_t>& bins_of_users) {
  auto sorted = bins_of_users;
  std::sort(sorted.begin(), sorted.end());
  std::vector<bin_count> out;
  for (uint64_t k : sorted) {
    if (out.empty() || out.back().bin != k) out.push_back({k, 0});
    ++out.back().count;
  }
  return out;
}

}  // namespace

TEST_CASE("winsorized blocks, bins, rounding of the user mean and the window list") {
  const auto p = round1_block(5, 16, 5 * 256, 64);
  CHECK(p.get(field::hadamard_dim) == 8);
  CHECK(p.get(field::domain) == 8);
  CHECK(ldp::wire::winsorized_bin_count(p) == 20);
  CHECK(ldp::wire::winsorized_bin(p, -100000) == 0);
  CHECK(ldp::wire::winsorized_bin(p, 100000) == 19);
  CHECK(ldp::wire::winsorized_bin(p, 5 * 256) == 19);  // the last bin is closed at B
  CHECK(ldp::wire::winsorized_bin(p, -5 * 256 + 127) == 0);
  CHECK(ldp::wire::winsorized_bin(p, -5 * 256 + 128) == 1);
  CHECK(ldp::wire::winsorized_midpoint(p, 0) == -5 * 256 + 64);
  CHECK(ldp::wire::bin_count(10, 3) == 4);         // last bin [8, 10] cut at B
  CHECK(ldp::wire::bin_midpoint(3, 10, 3) == 11);  // midpoints -B + (2k+1) tau, even past B
  // Half to even: 5/2 -> 2, 7/2 -> 4, -5/2 -> -2, -7/2 -> -4, 7/3 -> 2, -7/3 -> -2.
  CHECK(ldp::wire::rounded_mean(5, 2) == 2);
  CHECK(ldp::wire::rounded_mean(7, 2) == 4);
  CHECK(ldp::wire::rounded_mean(-5, 2) == -2);
  CHECK(ldp::wire::rounded_mean(-7, 2) == -4);
  CHECK(ldp::wire::rounded_mean(7, 3) == 2);
  CHECK(ldp::wire::rounded_mean(-7, 3) == -2);
  // d M < 2^31 for the int32 rotation; l <= 2^24.
  ldp::wire::params q;
  CHECK(ldp::wire::make_winsorized_bins(2, 8, -(int64_t{1} << 30), 1, 4, 1000, 10, seed_a, &q) ==
        status::invalid_argument);
  CHECK(ldp::wire::make_winsorized_bins(1, 8, -(int64_t{1} << 30), 1, 4, 1000, 10, seed_a, &q) == status::ok);
  CHECK(ldp::wire::make_winsorized_bins(4, 8, -1, 1, 4, uint64_t{1} << 30, 32, seed_a, &q) == status::invalid_argument);
  CHECK(ldp::wire::make_winsorized_bins(4, 8, -1, 1, 4, uint64_t{1} << 30, 64, seed_a, &q) == status::ok);
  CHECK(ldp::wire::make_winsorized_bins(4, 8, -1, 1, 0, 100, 10, seed_a, &q) == status::invalid_argument);

  // The window list: encode, digest into the round-2 block, check; any other list is refused.
  const std::vector<uint32_t> bins{0, 1, 2, 3, 19, 18, 17, 16};
  std::vector<unsigned char> list(ldp::wire::window_list_size(p));
  std::size_t written = 0;
  REQUIRE(ldp::wire::encode_window_list(p, bins, list, &written) == status::ok);
  CHECK(written == 9 + 8);
  ldp::wire::params p2;
  REQUIRE(ldp::wire::make_winsorized_sums(p, 192, list, &p2) == status::ok);
  CHECK(p2.mech == ldp::wire::mechanism::winsorized_sums);
  CHECK(ldp::wire::check_window_list(p2, list) == status::ok);
  for (std::size_t j = 0; j < bins.size(); ++j) CHECK(ldp::wire::window_list_bin(p2, list, j) == bins[j]);
  auto other = list;
  REQUIRE(other.size() == 17);
  other[16] = 15;
  CHECK(ldp::wire::check_window_list(p2, other) == status::parameter_mismatch);
  CHECK(ldp::wire::check_window_list(p2, {list.data(), list.size() - 1}) == status::wrong_length);
  const std::vector<uint32_t> too_big{0, 1, 2, 3, 20, 18, 17, 16};
  CHECK(ldp::wire::encode_window_list(p, too_big, list, &written) == status::out_of_range);
  // A list made for another round 1 (other rotation seed) does not make a round-2 block of p.
  const auto p_other = round1_block(5, 16, 5 * 256, 64, seed_b);
  std::vector<unsigned char> foreign(ldp::wire::window_list_size(p_other));
  REQUIRE(ldp::wire::encode_window_list(p_other, bins, foreign, &written) == status::ok);
  CHECK(ldp::wire::make_winsorized_sums(p, 192, foreign, &p2) == status::invalid_argument);
}

TEST_CASE("device: at most m samples, clamped, averaged half to even, rotated as H D x") {
  const auto p = round1_block(5, 3, 5 * 256, 64);
  device user(p, ldp::span<const unsigned char>{});
  REQUIRE(user.code == status::ok);
  // 4 samples of 5 coordinates; only the first 3 count (m = 3); 1000 is clamped to 256.
  const std::vector<int64_t> samples{10,    1000, -7, 0, 1,  //
                                     11,    0,    -7, 0, 2,  //
                                     13,    0,    -8, 0, 2,  //
                                     99999, 5,    5,  5, 5};
  ldp::span<const int32_t> rotated;
  REQUIRE(user->rotated_mean(samples, &rotated) == status::ok);
  // Means: 34/3 -> 11, 256/3 -> 85, -22/3 -> -7, 0, 5/3 -> 2.
  const std::vector<int64_t> mean{11, 85, -7, 0, 2};
  const auto expected = dense_rotation(p, mean);
  REQUIRE(rotated.size() == 8);
  for (std::size_t j = 0; j < 8; ++j) CHECK(rotated[j] == expected[j]);
  // Round 1 reports the bins; the aggregator sees exactly them.
  ldp::wire::report r;
  REQUIRE(user->fields(samples, &r) == status::ok);
  REQUIRE(r.values.size() == 8);
  for (std::size_t j = 0; j < 8; ++j) CHECK(r.values[j] == ldp::wire::winsorized_bin(p, expected[j]));
  // Errors.
  CHECK(user->rotated_mean({}, &rotated) == status::invalid_argument);
  CHECK(user->rotated_mean({samples.data(), 19}, &rotated) == status::invalid_argument);
  // 8 values, 8 rotated, 1 sign word, in whole words.
  CHECK(ldp::device::winsorized_context::workspace_size(p) == 8 * 8 + 8 * 4 + 8);
  ldp::device::winsorized_context other;
  const ldp::span<std::byte> workspace = user.workspace;
  CHECK(ldp::device::winsorized_context::init(workspace.subspan(0, workspace.size() - 8), p, {}, &other) ==
        status::workspace_too_small);
  CHECK(other.rotated_mean(samples, &rotated) == status::invalid_argument);  // a failed init
}

TEST_CASE("device round 2: values clamped to the broadcast windows; a foreign list is refused") {
  const auto p = round1_block(3, 4, 3 * 256, 32);
  const std::vector<int64_t> samples{200, -200, 50, 190, -180, 60};
  const std::vector<uint32_t> bins{10, 12, 14, 16};
  std::vector<unsigned char> list(ldp::wire::window_list_size(p));
  std::size_t written = 0;
  REQUIRE(ldp::wire::encode_window_list(p, bins, list, &written) == status::ok);
  ldp::wire::params p2;
  REQUIRE(ldp::wire::make_winsorized_sums(p, 96, list, &p2) == status::ok);
  device user(p2, ldp::span<const unsigned char>(list));
  REQUIRE(user.code == status::ok);
  ldp::wire::report r;
  REQUIRE(user->fields(samples, &r) == status::ok);
  const auto y = dense_rotation(p2, {195, -190, 55});
  for (std::size_t j = 0; j < 4; ++j) {
    const int64_t mid = ldp::wire::winsorized_midpoint(p2, bins[j]);
    CHECK(r.values[j] == std::clamp(y[j], mid - 96, mid + 96));
  }
  auto tampered = list;
  tampered[9] = 11;
  CHECK(device(p2, ldp::span<const unsigned char>(tampered)).code == status::parameter_mismatch);
}

TEST_CASE("budget arithmetic: eps/2 + eps/2, eps' paper and tight, K queries, tau', windows") {
  double eps = 0;
  REQUIRE(ldp::server::step_epsilon(1.0, 1e-6, 128, ldp::server::budget_rule::paper, &eps) == status::ok);
  CHECK(eps == doctest::Approx(0.008407).epsilon(1e-3));  // C.2: eps' = 0.008407, eps_tot = 0.509
  CHECK(ldp::server::advanced_composition(eps, 128, 1e-6) == doctest::Approx(0.509).epsilon(2e-3));
  double tight = 0;
  REQUIRE(ldp::server::step_epsilon(1.0, 1e-6, 128, ldp::server::budget_rule::tight, &tight) == status::ok);
  CHECK(ldp::server::advanced_composition(tight, 128, 1e-6) <= 1.0);
  CHECK(ldp::server::advanced_composition(tight * (1 + 1e-9), 128, 1e-6) > 1.0);
  CHECK(tight / eps > 1.8);
  CHECK(tight / eps < 2.2);
  REQUIRE(ldp::server::step_epsilon(1.0, 0, 128, ldp::server::budget_rule::tight, &eps) == status::ok);
  CHECK(eps == doctest::Approx(1.0 / 128));  // pure DP: basic composition
  CHECK(ldp::server::step_epsilon(0, 1e-6, 128, ldp::server::budget_rule::tight, &eps) == status::invalid_argument);
  // Tight never does worse than basic composition: for 2 mechanisms basic gives 0.5, advanced about 0.13.
  REQUIRE(ldp::server::step_epsilon(1.0, 1e-6, 2, ldp::server::budget_rule::tight, &eps) == status::ok);
  CHECK(eps == doctest::Approx(0.5));
  // One query under the paper's rule is Alg 2 itself; pure DP is basic over all K d~ mechanisms.
  double alg2 = 0;
  REQUIRE(ldp::server::step_epsilon(1.0, 1e-6, 128, ldp::server::budget_rule::paper, &alg2) == status::ok);
  REQUIRE(ldp::server::query_step_epsilon(1.0, 1e-6, 1, 128, ldp::server::budget_rule::paper, &eps) == status::ok);
  CHECK(eps == alg2);
  REQUIRE(ldp::server::query_step_epsilon(1.0, 0, 3, 4, ldp::server::budget_rule::paper, &eps) == status::ok);
  CHECK(eps == doctest::Approx(1.0 / 12));
  // Thm 3 at d = 128, K = 50, eps = 1, delta = 1e-6: 9.56e-5 per coordinate; one flat composition
  // (C.2: eps / sqrt(8 d K ln(1/delta)) = 1.19e-3) and its tight solution are far larger.
  REQUIRE(ldp::server::query_step_epsilon(1.0, 1e-6, 50, 128, ldp::server::budget_rule::paper, &eps) == status::ok);
  CHECK(eps == doctest::Approx(9.56e-5).epsilon(2e-3));
  REQUIRE(ldp::server::query_step_epsilon(1.0, 1e-6, 50, 128, ldp::server::budget_rule::tight, &tight) == status::ok);
  CHECK(tight > 1.19e-3);
  CHECK(ldp::server::advanced_composition(tight, 50 * 128, 1e-6) <= 1.0);
  ldp::server::winsorized_session session;
  REQUIRE(ldp::server::winsorized_session::create(1.0, 1e-6, 2, 128, ldp::server::budget_rule::tight, &session) ==
          status::ok);
  double q = 0;
  CHECK(session.next_query(&q) == status::ok);
  CHECK(q > 0);
  CHECK(session.next_query(&q) == status::ok);
  CHECK(session.next_query(&q) == status::invalid_argument);
  CHECK(session.remaining() == 0);
  // The session's loss: advanced composition of its K d~ mechanisms, within epsilon for tight; the
  // paper's rule at a large epsilon and delta composes above it (basic and advanced alike).
  const ldp::server::privacy_loss spent = session.loss(session.eps_coordinate());
  CHECK(!spent.basic);
  CHECK(spent.delta == 1e-6);
  CHECK(spent.epsilon == ldp::server::advanced_composition(session.eps_coordinate(), 256, 1e-6));
  CHECK(session.within_budget(spent));
  ldp::server::winsorized_session paper_session;
  REQUIRE(ldp::server::winsorized_session::create(10.0, 0.5, 1, 8, ldp::server::budget_rule::paper, &paper_session) ==
          status::ok);
  CHECK(!paper_session.within_budget(paper_session.loss(paper_session.eps_coordinate())));
  ldp::server::winsorized_session pure;
  REQUIRE(ldp::server::winsorized_session::create(1.0, 0, 2, 4, ldp::server::budget_rule::tight, &pure) == status::ok);
  CHECK(pure.loss(pure.eps_coordinate()).basic);
  CHECK(pure.loss(pure.eps_coordinate()).epsilon == doctest::Approx(1.0));
  // tau': capped at tau; Hoeffding about 7x tighter than the paper's constant.
  const double paper = ldp::server::rotated_tau(1.0, 1 << 20, 1000, 1e-3, ldp::server::tau_rule::paper);
  const double hoeffding = ldp::server::rotated_tau(1.0, 1 << 20, 1000, 1e-3, ldp::server::tau_rule::hoeffding);
  CHECK(paper == doctest::Approx(10 * std::sqrt(std::log(1048576.0 * 1000 / 1e-3) / 1048576.0)));
  CHECK(paper / hoeffding > 6.5);
  CHECK(ldp::server::rotated_tau(1.0, 16, 1000, 1e-3, ldp::server::tau_rule::paper) == 1.0);
  // Windows 4 tau (paper) and 6 tau (safe); Laplace scale 2 (b - a) / (n eps) on the mean.
  CHECK(ldp::server::window_half_width(5, ldp::server::window_rule::paper) == 10);
  CHECK(ldp::server::window_half_width(5, ldp::server::window_rule::safe) == 15);
  auto rng = ldp::test::seeded_drbg("winsorized budget");
  ldp::server::winsorized_1d_result r;
  const std::vector<int64_t> values(40, 17);
  for (auto rule : {ldp::server::window_rule::paper, ldp::server::window_rule::safe}) {
    REQUIRE(ldp::server::winsorized_mean_1d(values, {0.8, 100, 1000, rule}, rng, &r) == status::ok);
    const double width = static_cast<double>(r.window_hi - r.window_lo);
    CHECK(width == (rule == ldp::server::window_rule::paper ? 400 : 600));
    const double t = static_cast<double>(r.scale_num) / static_cast<double>(r.scale_den);
    CHECK(t / 40 == doctest::Approx(2 * width / (40 * 0.8)).epsilon(1e-6));
    CHECK(r.epsilon_impl <= 0.8);
    CHECK(r.epsilon_impl > 0.8 * (1 - 1e-6));
  }
}

TEST_CASE("exponential mechanism: p_k(X) / p_k(X') <= e^eps for neighbours, every bin") {
  auto rng = ldp::test::seeded_drbg("private range ratio");
  for (int trial = 0; trial < 300; ++trial) {
    const uint64_t bins = 1 + ldp::random::uniform_below(rng, 30);
    const std::size_t n = 1 + ldp::random::uniform_below(rng, 12);
    std::vector<uint64_t> users(n);
    for (auto& u : users) u = ldp::random::uniform_below64(rng, bins);
    auto neighbour = users;
    neighbour[ldp::random::uniform_below(rng, static_cast<uint32_t>(n))] = ldp::random::uniform_below64(rng, bins);
    const double eps = 0.05 + 3.0 * ldp::random::uniform_below(rng, 1000) / 1000.0;
    const auto ha = histogram_of(users), hb = histogram_of(neighbour);
    const auto a = ldp::server::private_range_law(ha, bins, eps);
    const auto b = ldp::server::private_range_law(hb, bins, eps);
    REQUIRE(a.size() == bins);
    CAPTURE(trial);
    double total = 0;
    for (uint64_t k = 0; k < bins; ++k) {
      CHECK(a[static_cast<std::size_t>(k)] <= std::exp(eps) * b[static_cast<std::size_t>(k)] * (1 + 1e-12));
      total += a[static_cast<std::size_t>(k)];
    }
    CHECK(total == doctest::Approx(1.0));
  }
  // The scores: bins left of all data and right of all data score n; the median bin scores lowest.
  const std::vector<bin_count> five_in_3{{3, 5}}, one_in_8{{8, 1}}, one_in_2{{2, 1}};
  const auto law = ldp::server::private_range_law(five_in_3, 8, 2.0);
  for (uint64_t k = 0; k < 8; ++k)
    CHECK(law[static_cast<std::size_t>(k)] ==
          doctest::Approx(k == 3 ? 1 / (1 + 7 * std::exp(-5.0)) : std::exp(-5.0) / (1 + 7 * std::exp(-5.0))));
  uint64_t bin = 0;
  double impl = 0;
  const std::vector<bin_count> bad{{3, 1}, {3, 1}};
  CHECK(ldp::server::private_range(bad, 8, 1.0, rng, &bin, &impl) == status::invalid_argument);
  CHECK(ldp::server::private_range(one_in_8, 8, 1.0, rng, &bin, &impl) == status::invalid_argument);
  REQUIRE(ldp::server::private_range(one_in_2, uint64_t{1} << 40, 1.0, rng, &bin, &impl) == status::ok);
  CHECK(impl <= 1.0);
  // 1000 users in one of 2^62 bins: a uniform proposal over bins would need about 2^62 draws; the
  // group-level sampler returns at once. Any other bin has probability below 2^62 e^-250.
  const std::vector<bin_count> crowd{{uint64_t{1} << 61, 1000}};
  REQUIRE(ldp::server::private_range(crowd, uint64_t{1} << 62, 1.0, rng, &bin, &impl) == status::ok);
  CHECK(bin == uint64_t{1} << 61);
}

TEST_CASE("exact privacy loss of WinsorizedMean1D is at most eps; halving the noise breaks it") {
  // n = 20, eps = 1, tau = 4 grid units, B = 40 (10 bins). Neighbours move one user across bins and
  // to +-B. The output (noisy clipped sum; the mean is it divided by n) is the finite mixture
  // sum_k p_k DLap(s - S_k) on the integers; its log-ratio is evaluated on every lattice point within
  // 60 noise scales of the data (beyond, both laws are pure Laplace tails with a constant ratio).
  auto rng = ldp::test::seeded_drbg("winsorized exact privacy");
  for (auto rule : {ldp::server::window_rule::paper, ldp::server::window_rule::safe}) {
    const ldp::server::winsorized_1d_options o{1.0, 4, 40, rule};
    std::vector<int64_t> base{-3, -1, 0, 0, 1, 2, 2, 3, 3, 4, 5, 5, 6, 7, 8, 9, 10, 11, 13, 15};
    ldp::server::winsorized_1d_result r;
    REQUIRE(ldp::server::winsorized_mean_1d(base, o, rng, &r) == status::ok);
    const double t = static_cast<double>(r.scale_num) / static_cast<double>(r.scale_den);
    double worst = 0, worst_halved = 0;
    for (int trial = 0; trial < 24; ++trial) {
      auto x = base, y = base;
      const std::size_t who = ldp::random::uniform_below(rng, 20);
      y[who] = trial % 3 == 0   ? 40
               : trial % 3 == 1 ? -40
                                : static_cast<int64_t>(ldp::random::uniform_below(rng, 81)) - 40;
      const int64_t lo = -40 * 20 - static_cast<int64_t>(60 * t), hi = 40 * 20 + static_cast<int64_t>(60 * t);
      worst = std::max(worst, sup_log_ratio(log_output_law(x, o, t, lo, hi), log_output_law(y, o, t, lo, hi)));
      worst_halved = std::max(worst_halved,
                              sup_log_ratio(log_output_law(x, o, t / 2, lo, hi), log_output_law(y, o, t / 2, lo, hi)));
    }
    CAPTURE(static_cast<int>(rule));
    CHECK(worst <= r.epsilon_impl + 1e-9);
    CHECK(worst_halved > 1.0);
  }
}

TEST_CASE("round 1 and round 2 aggregators: ingest, rejections, merge, saved state") {
  const auto p = round1_block(5, 8, 5 * 256, 64);
  auto rng = ldp::test::seeded_drbg("winsorized aggregators");
  std::unique_ptr<ldp::server::aggregator> a, b;
  REQUIRE(ldp::server::aggregator::create(p, &a) == status::ok);
  REQUIRE(ldp::server::aggregator::create(p, &b) == status::ok);
  std::vector<unsigned char> bytes(ldp::wire::max_report_size(p));
  std::vector<std::vector<int64_t>> users;
  for (int u = 0; u < 60; ++u) {
    std::vector<int64_t> s(5 * 8);
    for (auto& v : s) v = static_cast<int64_t>(ldp::random::uniform_below(rng, 101)) - 50 + 20 * (u % 3);
    users.push_back(s);
    const std::size_t written = winsorized_report(p, {}, s, bytes);
    REQUIRE((u % 2 ? a : b)->add_report({bytes.data(), written}) == status::ok);
  }
  // A bin out of range is rejected.
  std::vector<int64_t> bad(8, 3);
  bad[5] = 20;
  ldp::wire::report r;
  r.mech = p.mech;
  r.values = bad;
  std::size_t written = 0;
  REQUIRE(ldp::wire::encode_report(p, ldp::wire::fingerprint(p), r, bytes, &written) == status::ok);
  CHECK(a->add_report({bytes.data(), written}) == status::out_of_range);
  REQUIRE(a->merge(*b) == status::ok);
  const auto saved = a->serialize();
  std::unique_ptr<ldp::server::aggregator> back;
  REQUIRE(ldp::server::aggregator::deserialize(saved, &back) == status::ok);
  CHECK(back->serialize() == saved);
  const auto& bins = dynamic_cast<const ldp::server::winsorized_bins_aggregator&>(*a);
  uint64_t total = 0;
  for (const auto& h : bins.histogram(3)) total += h.count;
  CHECK(total == 60);
  CHECK(a->estimate_all().size() == 8);

  ldp::server::window_selection sel;
  REQUIRE(ldp::server::select_windows(*a, 2.0, ldp::server::window_rule::safe, rng, &sel) == status::ok);
  CHECK(sel.bins.size() == 8);
  CHECK(sel.epsilon_impl <= 1.0);
  CHECK(sel.round2.get(field::window_half_width) == 192);
  std::unique_ptr<ldp::server::aggregator> s2, s3;
  REQUIRE(ldp::server::aggregator::create(sel.round2, &s2) == status::ok);
  REQUIRE(ldp::server::aggregator::create(sel.round2, &s3) == status::ok);
  auto& sums2 = dynamic_cast<ldp::server::winsorized_sums_aggregator&>(*s2);
  auto& sums3 = dynamic_cast<ldp::server::winsorized_sums_aggregator&>(*s3);
  // Without windows nothing is counted.
  written = winsorized_report(sel.round2, sel.window_list, users[0], bytes);
  CHECK(s2->add_report({bytes.data(), written}) == status::invalid_argument);
  auto wrong = sel.window_list;
  wrong.back() ^= 1;
  CHECK(sums2.set_windows(wrong) == status::parameter_mismatch);
  REQUIRE(sums2.set_windows(sel.window_list) == status::ok);
  REQUIRE(sums3.set_windows(sel.window_list) == status::ok);
  for (std::size_t u = 0; u < users.size(); ++u) {
    written = winsorized_report(sel.round2, sel.window_list, users[u], bytes);
    REQUIRE((u % 2 ? s2 : s3)->add_report({bytes.data(), written}) == status::ok);
  }
  // A value outside its window is rejected.
  std::vector<int64_t> outside(8);
  for (std::size_t j = 0; j < 8; ++j) outside[j] = ldp::wire::winsorized_midpoint(sel.round2, sel.bins[j]);
  outside[2] += 193;
  r.mech = sel.round2.mech;
  r.values = outside;
  REQUIRE(ldp::wire::encode_report(sel.round2, ldp::wire::fingerprint(sel.round2), r, bytes, &written) == status::ok);
  CHECK(s2->add_report({bytes.data(), written}) == status::out_of_range);
  REQUIRE(s2->merge(*s3) == status::ok);
  const auto saved2 = s2->serialize();
  REQUIRE(ldp::server::aggregator::deserialize(saved2, &back) == status::ok);
  CHECK(back->serialize() == saved2);
  // The sum rule of the saved state (|sum_j - n mid_j| <= n (w + 1)) holds for the merge of two states
  // that hold it: a state at the edge loads, its merge with itself loads, one unit more does not.
  {
    const uint64_t n = s2->reports(), w = sel.round2.get(field::window_half_width);
    const int64_t mid = ldp::wire::winsorized_midpoint(sel.round2, sel.bins[0]);
    const std::size_t sum0 = saved2.size() - 8 * 8;  // the 8 sums end the body
    auto with_sum = [&](int64_t sum) {
      std::vector<unsigned char> file = saved2;
      ldp::store_le64(file.data() + sum0, static_cast<uint64_t>(sum));
      const ldp::span<const unsigned char> body(file.data() + ldp::wire::state_header_size,
                                                file.size() - ldp::wire::state_header_size);
      REQUIRE(ldp::wire::encode_state_header(sel.round2.mech, ldp::wire::fingerprint(sel.round2), body,
                                             {file.data(), ldp::wire::state_header_size}) == status::ok);
      return file;
    };
    const auto edge_sum = static_cast<int64_t>(n) * mid + static_cast<int64_t>(n * (w + 1));
    const std::vector<unsigned char> at_edge = with_sum(edge_sum), past_edge = with_sum(edge_sum + 1);
    std::unique_ptr<ldp::server::aggregator> edge, twice;
    REQUIRE(ldp::server::aggregator::deserialize(at_edge, &edge) == status::ok);
    CHECK(ldp::server::aggregator::deserialize(past_edge, &twice) == status::malformed_report);
    REQUIRE(ldp::server::aggregator::deserialize(at_edge, &twice) == status::ok);
    REQUIRE(twice->merge(*edge) == status::ok);
    const std::vector<unsigned char> merged = twice->serialize();
    CHECK(ldp::server::aggregator::deserialize(merged, &back) == status::ok);
  }
  CHECK(s2->estimate_all().size() == 5);
  // A state saved without windows does not load.
  std::unique_ptr<ldp::server::aggregator> empty;
  REQUIRE(ldp::server::aggregator::create(sel.round2, &empty) == status::ok);
  const auto saved_empty = empty->serialize();
  CHECK(ldp::server::aggregator::deserialize(saved_empty, &back) == status::unsupported_version);  // list all 0
  ldp::server::winsorized_release rel;
  CHECK(ldp::server::release_winsorized_mean(*empty, 1.0, 0, rng, &rel) == status::invalid_argument);
  CHECK(ldp::server::release_winsorized_mean(*s2, 1.0, 59, rng, &rel) == status::invalid_argument);
  REQUIRE(ldp::server::release_winsorized_mean(*s2, 1.0, 61, rng, &rel) == status::ok);  // one user lost
  CHECK(rel.users == 61);
  CHECK(rel.mean.size() == 5);
}

TEST_CASE("merging round 2 without the other's windows is parameter_mismatch, not overflow") {
  // The window list is state, not block: an aggregator that never received it cannot take counts
  // made under it. merge() once reported every refusal of merge_counts as overflow.
  const auto p = round1_block(5, 8, 5 * 256, 64);
  auto rng = ldp::test::seeded_drbg("winsorized window mismatch");
  std::unique_ptr<ldp::server::aggregator> round1;
  REQUIRE(ldp::server::aggregator::create(p, &round1) == status::ok);
  std::vector<unsigned char> bytes(ldp::wire::max_report_size(p));
  const std::vector<int64_t> samples(5 * 8, 7);  // 8 samples of d = 5
  std::size_t written = winsorized_report(p, {}, samples, bytes);
  REQUIRE(round1->add_report({bytes.data(), written}) == status::ok);
  ldp::server::window_selection sel;
  REQUIRE(ldp::server::select_windows(*round1, 2.0, ldp::server::window_rule::safe, rng, &sel) == status::ok);
  std::unique_ptr<ldp::server::aggregator> with, without;
  REQUIRE(ldp::server::aggregator::create(sel.round2, &with) == status::ok);
  REQUIRE(ldp::server::aggregator::create(sel.round2, &without) == status::ok);
  REQUIRE(dynamic_cast<ldp::server::winsorized_sums_aggregator&>(*with).set_windows(sel.window_list) == status::ok);
  bytes.resize(ldp::wire::max_report_size(sel.round2));
  written = winsorized_report(sel.round2, sel.window_list, samples, bytes);
  REQUIRE(with->add_report({bytes.data(), written}) == status::ok);
  CHECK(without->merge(*with) == status::parameter_mismatch);
  CHECK(without->reports() == 0);
  CHECK(with->merge(*without) == status::ok);  // an empty state without windows adds nothing
  CHECK(with->reports() == 1);
}

TEST_CASE("two rounds from device reports == one shot on the same data and noise seed") {
  for (uint32_t d : {1u, 3u, 8u, 13u}) {
    const auto p = round1_block(d, 6, uint64_t{d} * 256, 16);
    auto data_rng = ldp::test::seeded_drbg("winsorized two rounds data");
    const std::size_t n = 40;
    std::vector<std::vector<int64_t>> samples(n);
    std::vector<int64_t> means;
    for (auto& s : samples) {
      const std::size_t count = 1 + ldp::random::uniform_below(data_rng, 9);  // some above m = 6
      s.resize(count * d);
      for (auto& v : s) v = static_cast<int64_t>(ldp::random::uniform_below(data_rng, 301)) - 120;
      for (std::size_t i = 0; i < d; ++i) {
        int64_t sum = 0;
        const std::size_t used = std::min<std::size_t>(count, 6);
        for (std::size_t k = 0; k < used; ++k) sum += std::clamp<int64_t>(s[k * d + i], -256, 256);
        means.push_back(ldp::wire::rounded_mean(sum, used));
      }
    }
    // Two rounds: device reports, aggregators, windows, release, one DRBG.
    std::vector<unsigned char> bytes(ldp::wire::max_report_size(p));
    std::unique_ptr<ldp::server::aggregator> round1;
    REQUIRE(ldp::server::aggregator::create(p, &round1) == status::ok);
    std::size_t written = 0;
    for (const auto& s : samples) {
      written = winsorized_report(p, {}, s, bytes);
      REQUIRE(round1->add_report({bytes.data(), written}) == status::ok);
    }
    auto server_rng = ldp::test::seeded_drbg("winsorized two rounds noise");
    ldp::server::window_selection sel;
    REQUIRE(ldp::server::select_windows(*round1, 1.5, ldp::server::window_rule::safe, server_rng, &sel) == status::ok);
    std::unique_ptr<ldp::server::aggregator> round2;
    REQUIRE(ldp::server::aggregator::create(sel.round2, &round2) == status::ok);
    REQUIRE(dynamic_cast<ldp::server::winsorized_sums_aggregator&>(*round2).set_windows(sel.window_list) == status::ok);
    std::vector<unsigned char> bytes2(ldp::wire::max_report_size(sel.round2));
    for (const auto& s : samples) {
      written = winsorized_report(sel.round2, sel.window_list, s, bytes2);
      REQUIRE(round2->add_report({bytes2.data(), written}) == status::ok);
    }
    ldp::server::winsorized_release two;
    REQUIRE(ldp::server::release_winsorized_mean(*round2, 1.5, 0, server_rng, &two) == status::ok);
    // One shot on the users' means with a generator seeded alike.
    auto same_rng = ldp::test::seeded_drbg("winsorized two rounds noise");
    ldp::server::winsorized_highd_result one;
    REQUIRE(ldp::server::winsorized_mean_highd(p, means, 1.5, ldp::server::window_rule::safe, same_rng, &one) ==
            status::ok);
    CAPTURE(d);
    CHECK(one.windows.bins == sel.bins);
    CHECK(one.release.mean == two.mean);
    CHECK(one.release.rotated_mean == two.rotated_mean);
    CHECK(two.mean.size() == d);
  }
}

TEST_CASE("robustness: tau >= B (one bin), n = 1, large n eps, extreme values") {
  auto rng = ldp::test::seeded_drbg("winsorized robustness");
  ldp::server::winsorized_1d_result r;
  const std::vector<int64_t> one{5};
  REQUIRE(ldp::server::winsorized_mean_1d(one, {1.0, 500, 100, ldp::server::window_rule::safe}, rng, &r) == status::ok);
  CHECK(r.bin == 0);  // a single bin
  CHECK(r.window_lo == -100 + 500 - 1500);
  const std::vector<int64_t> many(5000, 42);
  REQUIRE(ldp::server::winsorized_mean_1d(many, {30.0, 10, 1000, ldp::server::window_rule::paper}, rng, &r) ==
          status::ok);
  CHECK(std::fabs(r.mean - 42) < 1.0);  // large n eps: noise of scale t = 8 on a sum over 5000 users
  const std::vector<int64_t> extreme{INT64_MIN, INT64_MAX, 0};
  REQUIRE(ldp::server::winsorized_mean_1d(extreme, {1.0, 10, 1000, ldp::server::window_rule::safe}, rng, &r) ==
          status::ok);
  CHECK(r.clipped_sum >= 3 * r.window_lo);
  CHECK(r.clipped_sum <= 3 * r.window_hi);
  CHECK(ldp::server::winsorized_mean_1d({}, {1.0, 10, 1000, ldp::server::window_rule::safe}, rng, &r) ==
        status::invalid_argument);
  CHECK(ldp::server::winsorized_mean_1d(one, {0, 10, 1000, ldp::server::window_rule::safe}, rng, &r) ==
        status::invalid_argument);
  CHECK(ldp::server::winsorized_mean_1d(one, {1.0, 0, 1000, ldp::server::window_rule::safe}, rng, &r) ==
        status::invalid_argument);
  // High-d with n = 1 and d not a power of two.
  const auto p = round1_block(3, 2, 3 * 256, 8);
  ldp::server::winsorized_highd_result h;
  const std::vector<int64_t> user{10, -20, 30};
  REQUIRE(ldp::server::winsorized_mean_highd(p, user, 1.0, ldp::server::window_rule::safe, rng, &h) == status::ok);
  CHECK(h.release.mean.size() == 3);
  CHECK(ldp::server::winsorized_mean_highd(p, {user.data(), 2}, 1.0, ldp::server::window_rule::safe, rng, &h) ==
        status::invalid_argument);
}

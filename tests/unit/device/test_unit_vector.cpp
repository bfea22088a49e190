// Device side of the unit-vector family (docs/mechanisms.md B.6, lib/device unit_vector.h):
// - privacy by exact enumeration of the shipped half() and sign threshold on a small grid: for every
//   input x of the ball, the two halves have exactly equal mass under any symmetric weights, and the
//   probability of every output z, 2 D(z) P(want = half(z, x)), has a ratio over any two inputs of at
//   most T / (2^32 - T) = e^epsilon_impl, reached;
// - the sign threshold is exactly 2^31 + floor(2^31 ||x|| / R);
// - the normalization to 2^14 stays within one unit of z / ||z|| 2^14, and its randomized rounding
//   is unbiased (exact expectation over a scripted generator);
// - argument checks, and golden report bytes for a fixed seed.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "device_context.h"
#include "ldp/device.h"
#include "ldp/wire.h"
#include "tables.h"
#include "wire_examples.h"

using ldp::status;
using ldp::u128;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

ldp::wire::params block(uint32_t d, double radius = 1.0, double epsilon = 1.0) {
  const auto made = ldp::wire::make_l2_ball(d, radius, 16, epsilon);
  REQUIRE(made.code == status::ok);
  return made.block;
}

// A context of d = 6 refuses 5 coordinates without writing.
void refuses_wrong_size(ldp::device::unit_vector_context& c, ldp::random::drbg& rng, std::vector<unsigned char>& out) {
  std::size_t written = 0;
  const std::vector<int64_t> wrong(5, 0);
  CHECK(c.randomize(wrong, rng, out, ldp::device::framing::report, &written) == status::invalid_argument);
  CHECK(written == 0);
}

// half() of vectors held here (a span does not bind to a temporary).
int half(const std::vector<int64_t>& z, const std::vector<int32_t>& x) { return ldp::device::l2_ball_half(z, x); }

}  // namespace

TEST_CASE("sign threshold: exactly 2^31 + floor(2^31 sqrt(S) / R)") {
  auto rng = ldp::test::seeded_drbg("l2-ball sign threshold");
  CHECK(ldp::device::l2_ball_sign_threshold(0, 65536) == uint64_t{1} << 31);
  CHECK(ldp::device::l2_ball_sign_threshold(uint64_t{65536} * 65536, 65536) == uint64_t{1} << 32);
  CHECK(ldp::device::l2_ball_sign_threshold(uint64_t{32768} * 32768, 65536) == (uint64_t{3} << 30));
  for (int trial = 0; trial < 20000; ++trial) {
    const auto radius = static_cast<int64_t>(1 + ldp::random::uniform_below64(rng, (uint64_t{1} << 31) - 1));
    const auto r = static_cast<uint64_t>(radius);
    const uint64_t s = ldp::random::uniform_below64(rng, r * r + 1);
    const uint64_t k = ldp::device::l2_ball_sign_threshold(s, radius) - (uint64_t{1} << 31);
    // k = floor(sqrt(S 2^62 / R^2)) <=> k^2 R^2 <= S 2^62 < (k + 1)^2 R^2, compared in 128 bits
    // (k <= 2^31, so k^2 <= 2^62 and the products stay below 2^124).
    const u128 scaled = ldp::mul_64x64(s, uint64_t{1} << 62);
    CHECK(!(scaled < ldp::mul_64x64(k * k, r * r)));
    CHECK(scaled < ldp::mul_64x64((k + 1) * (k + 1), r * r));
  }
}

TEST_CASE("privacy by exact enumeration: the halves are exact and the ratio is T / (2^32 - T)") {
  // d = 2, R = 3 grid units: every integer x with ||x|| <= R; z in [-4, 4]^2 \ {0} with arbitrary
  // symmetric integer weights D(z) = w(|z_1|) w(|z_2|) (the argument needs only D(z) = D(-z)).
  const int64_t radius = 3;
  const uint64_t w[] = {7, 5, 3, 2, 1};
  const uint64_t one = uint64_t{1} << 32;
  const uint64_t keep = block(2, 1.0, 1.0).get(field::threshold_keep);
  std::vector<std::vector<int32_t>> inputs;
  for (int32_t a = -3; a <= 3; ++a) {
    for (int32_t b = -3; b <= 3; ++b) {
      if (a * a + b * b <= radius * radius) inputs.push_back({a, b});
    }
  }
  double worst = 0;
  for (int64_t z1 = -4; z1 <= 4; ++z1) {
    for (int64_t z2 = -4; z2 <= 4; ++z2) {
      if (z1 == 0 && z2 == 0) continue;
      const std::vector<int64_t> z = {z1, z2}, minus = {-z1, -z2};
      double lo = 1, hi = 0;
      for (const auto& x : inputs) {
        const int h = ldp::device::l2_ball_half(z, x);
        REQUIRE(ldp::device::l2_ball_half(minus, x) == -h);  // the halves swap under z -> -z
        const uint64_t s = static_cast<uint64_t>(x[0] * x[0] + x[1] * x[1]);
        const uint64_t t = ldp::device::l2_ball_sign_threshold(s, radius);
        // P(want = +1) = t / 2^32 * T / 2^32 + (1 - t / 2^32)(1 - T / 2^32), as an exact fraction of 2^64.
        const u128 plus = ldp::mul_64x64(t, keep) + ldp::mul_64x64(one - t, one - keep);
        const u128 mass = h > 0 ? plus : ldp::mul_64x64(one, one) - plus;
        const double p = ldp::to_nearest<double>(mass) / 18446744073709551616.0;
        lo = std::min(lo, p);
        hi = std::max(hi, p);
      }
      worst = std::max(worst, hi / lo);
    }
  }
  // The halves: for each x, the weight of {z : half(z, x) = +1} is exactly half of the total.
  for (const auto& x : inputs) {
    uint64_t plus = 0, total = 0;
    for (int64_t z1 = -4; z1 <= 4; ++z1) {
      for (int64_t z2 = -4; z2 <= 4; ++z2) {
        if (z1 == 0 && z2 == 0) continue;
        const uint64_t weight = w[z1 < 0 ? -z1 : z1] * w[z2 < 0 ? -z2 : z2];
        total += weight;
        if (half({z1, z2}, x) > 0) plus += weight;
      }
    }
    CHECK(2 * plus == total);
  }
  const double bound = static_cast<double>(keep) / static_cast<double>(one - keep);
  CHECK(worst <= bound * (1 + 1e-12));
  CHECK(worst >= bound * (1 - 1e-12));  // reached: x on the sphere, z on either side
  CHECK(std::log(bound) <= 1.0);
}

TEST_CASE("half: antisymmetric in z, ties by the first non-zero coordinate of z") {
  auto rng = ldp::test::seeded_drbg("l2-ball half");
  for (int trial = 0; trial < 5000; ++trial) {
    const std::size_t d = 1 + ldp::random::uniform_below(rng, 12);
    std::vector<int64_t> z(d), minus(d);
    std::vector<int32_t> x(d);
    bool nonzero = false;
    for (std::size_t i = 0; i < d; ++i) {
      z[i] = static_cast<int64_t>(ldp::random::uniform_below(rng, 7)) - 3;
      minus[i] = -z[i];
      x[i] = trial % 3 == 0 ? 0 : static_cast<int32_t>(ldp::random::uniform_below(rng, 5)) - 2;
      nonzero = nonzero || z[i] != 0;
    }
    if (!nonzero) continue;
    CHECK(ldp::device::l2_ball_half(minus, x) == -ldp::device::l2_ball_half(z, x));
  }
  const std::vector<int32_t> zero = {0, 0, 0};
  CHECK(half({0, -2, 5}, zero) == -1);
  CHECK(half({0, 0, 5}, zero) == 1);
  CHECK(half({1, 1}, {1, -1}) == 1);  // a tie
}

namespace {

// A generator whose 64-bit words are scripted: the randomized rounding's uniform_below64(n) with
// n < 2^47 reads one word per draw (accepted unless it falls in the rejection zone, never here).
struct scripted {
  uint64_t word = 0;
  uint64_t next_u64() { return word; }
  uint32_t next_u32() { return static_cast<uint32_t>(word >> 32); }
};

}  // namespace

TEST_CASE("unit direction: within one unit of z / ||z|| 2^14, rounding unbiased") {
  auto rng = ldp::test::seeded_drbg("l2-ball direction");
  for (int trial = 0; trial < 2000; ++trial) {
    const std::size_t d = 1 + ldp::random::uniform_below(rng, 40);
    std::vector<int64_t> z(d);
    long double norm2 = 0;
    for (std::size_t i = 0; i < d; ++i) {
      const int shift = static_cast<int>(ldp::random::uniform_below(rng, 32));
      z[i] = static_cast<int64_t>(ldp::random::uniform_below64(rng, uint64_t{1} << 32) >> shift) *
             (ldp::random::uniform_below(rng, 2) == 0 ? 1 : -1);
      norm2 += static_cast<long double>(z[i]) * static_cast<long double>(z[i]);
    }
    if (norm2 == 0) z[0] = 1, norm2 = 1;
    std::vector<int64_t> out(d);
    ldp::device::unit_direction(z, rng, out);
    long double out2 = 0;
    for (std::size_t i = 0; i < d; ++i) {
      const long double exact = static_cast<long double>(z[i]) * 16384 / std::sqrt(norm2);
      CHECK(std::fabs(static_cast<long double>(out[i]) - exact) < 1 + 1e-6L);
      CHECK(std::llabs(out[i]) <= 16385);
      out2 += static_cast<long double>(out[i]) * static_cast<long double>(out[i]);
    }
    CHECK(std::sqrt(out2) == doctest::Approx(16384).epsilon(static_cast<double>(d) * 2.0 / 16384));
  }
  // Unbiased: over the 2^k equally likely top words of a scripted generator the average of the
  // output is the rational z 2^(30+e) / (r 2^16) exactly; here z = (1, 1, 1): N = 3, e = 30,
  // r = isqrt(3 2^60) = 1859775393, value 2^60 / (r 2^16) = 2^44 / r.
  const std::vector<int64_t> z = {1, 1, 1};
  const uint64_t r = ldp::isqrt64(uint64_t{3} << 60), denominator = r << 16;
  const uint64_t numerator = uint64_t{1} << 60;
  std::vector<int64_t> out(3);
  // u = 0 < remainder: rounds up. The word is the largest whose product with the denominator stays
  // below 2^64, so uniform_below64 accepts it (the word 0 would be rejected forever: its product's
  // low half 0 is below 2^64 mod the denominator).
  scripted below{~uint64_t{0} / denominator};
  ldp::device::unit_direction(z, below, out);
  CHECK(out[0] == static_cast<int64_t>(numerator / denominator + 1));
  // uniform_below64(n) maps the word through the high half of word * n: the largest word gives n - 1,
  // which is >= the remainder, so it rounds down.
  scripted above{~uint64_t{0}};
  ldp::device::unit_direction(z, above, out);
  CHECK(out[0] == static_cast<int64_t>(numerator / denominator));
}

TEST_CASE("l2-ball context: argument checks and golden bytes") {
  const ldp::wire::params p = block(6, 2.0, 2.0);
  ldp::test::owned_context<ldp::device::unit_vector_context> c(p);
  REQUIRE(c.code == status::ok);
  auto rng = ldp::test::seeded_drbg("l2-ball golden");
  std::vector<unsigned char> out(ldp::wire::max_report_size(p));
  std::size_t written = 0;
  refuses_wrong_size(c.context, rng, out);
  ldp::test::owned_context<ldp::device::unit_vector_context> other(ldp::test::example_params(mechanism::grr));
  CHECK(other.code == status::invalid_argument);
  // A vector outside the ball is clipped; the report decodes and its direction has norm 2^14.
  const std::vector<int64_t> x = {65536, -131072, 0, 3 << 16, 1, -5};
  REQUIRE(c->randomize(x, rng, out, ldp::device::framing::report, &written) == status::ok);
  CHECK(written == ldp::wire::max_report_size(p));
  ldp::wire::report r;
  REQUIRE(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), ldp::span<const unsigned char>(out.data(), written),
                                   &r) == status::ok);
  std::vector<int64_t> u(6);
  REQUIRE(ldp::wire::read_vector(r, u) == status::ok);
  double norm = 0;
  for (int64_t v : u) norm += static_cast<double>(v) * static_cast<double>(v);
  CHECK(std::sqrt(norm) == doctest::Approx(16384).epsilon(1e-3));
  // Golden bytes: the same seed gives the same report on every target and kernel table.
  for (const ldp::kernels::table* table : ldp::test::runnable_tables()) {
    auto seeded = ldp::test::seeded_drbg("l2-ball golden bytes", *table);
    REQUIRE(c->randomize(x, seeded, out, ldp::device::framing::payload, &written) == status::ok);
    CHECK(ldp::test::to_hex(out.data(), written) == "19dd88f69f26980997107c1e");
  }
}

// PrivUnitG (docs/mechanisms.md B.7).

TEST_CASE("privunitg cap offset: exactly ceil(sqrt(g^2 S)), by 128-bit products") {
  auto rng = ldp::test::seeded_drbg("privunitg cap offset");
  CHECK(ldp::device::privunitg_cap_offset(0, 12345) == u128{0, 0});
  CHECK(ldp::device::privunitg_cap_offset(3, 4) == u128{0, 6});
  CHECK(ldp::device::privunitg_cap_offset(1, 2) == u128{0, 2});
  for (int trial = 0; trial < 20000; ++trial) {
    const auto g = static_cast<uint32_t>(ldp::random::uniform_below(rng, ldp::wire::privunitg_max_cap_threshold + 1));
    const uint64_t s =
        1 + (ldp::random::uniform_below64(rng, (uint64_t{1} << 62) - 1) >> ldp::random::uniform_below(rng, 62));
    const u128 n = ldp::mul_64x64(uint64_t{g} * g, s);
    const u128 c = ldp::device::privunitg_cap_offset(g, s);
    REQUIRE(c.hi == 0);
    CAPTURE(g);
    CAPTURE(s);
    CHECK(!(ldp::mul_64x64(c.lo, c.lo) < n));                      // c^2 >= g^2 S
    CHECK((c.lo == 0 || ldp::mul_64x64(c.lo - 1, c.lo - 1) < n));  // (c - 1)^2 < g^2 S
  }
}

TEST_CASE("privunitg by exact enumeration: the shipped cap test is the real cap, delta_E bounds q(v), and the level") {
  // d = 2, the discrete Gaussian of sigma = 2 and 3 on a window of +-12 sigma, every grid w with
  // 1 <= ||w||^2 <= 25, every integer g in [0, 3 sigma] (B.7 "Tests planned"; the device's sigma is 2^26,
  // the argument holds for any sigma).
  for (int sigma : {2, 3}) {
    const int window = 12 * sigma;
    std::vector<double> weight(2 * static_cast<std::size_t>(window) + 1);
    double total = 0;
    for (int z = -window; z <= window; ++z)
      total += weight[static_cast<std::size_t>(z + window)] = std::exp(-z * z / (2.0 * sigma * sigma));
    for (double& w : weight) w /= total;
    const double delta =
        24 / (M_PI * M_PI * std::sqrt(2 * M_PI) * sigma) + 2 * std::sqrt(2.0) * std::exp(-sigma * sigma);
    std::vector<std::vector<int32_t>> inputs;
    for (int32_t a = -5; a <= 5; ++a) {
      for (int32_t b = -5; b <= 5; ++b) {
        if (a * a + b * b >= 1 && a * a + b * b <= 25) inputs.push_back({a, b});
      }
    }
    for (uint32_t g = 0; g <= 3 * static_cast<uint32_t>(sigma); ++g) {
      CAPTURE(sigma);
      CAPTURE(g);
      std::vector<double> q(inputs.size(), 0.0);
      std::vector<std::vector<char>> in(inputs.size());
      int mismatches = 0;
      for (std::size_t k = 0; k < inputs.size(); ++k) {
        const auto& w = inputs[k];
        const auto s = static_cast<uint64_t>(w[0] * w[0] + w[1] * w[1]);
        const u128 offset = ldp::device::privunitg_cap_offset(g, s);
        for (int64_t z1 = -window; z1 <= window; ++z1) {
          for (int64_t z2 = -window; z2 <= window; ++z2) {
            const std::vector<int64_t> z = {z1, z2};
            const bool shipped = ldp::device::privunitg_in_cap(z, w, offset);
            // The real cap <z, w / sqrt(S)> >= g, decided exactly: <z, w> >= 0 and <z, w>^2 >= g^2 S.
            const int64_t dot = z1 * w[0] + z2 * w[1];
            const bool exact = dot >= 0 && static_cast<uint64_t>(dot * dot) >= uint64_t{g} * g * s;
            mismatches += shipped == exact ? 0 : 1;
            in[k].push_back(shipped ? 1 : 0);
            if (shipped)
              q[k] += weight[static_cast<std::size_t>(z1 + window)] * weight[static_cast<std::size_t>(z2 + window)];
          }
        }
        CHECK(std::fabs(q[k] - ldp::wire::upper_normal_tail(static_cast<double>(g) / sigma)) <= delta);
      }
      CHECK(mismatches == 0);
      // The output law D(z) p / q(w) in the cap, D(z) (1 - p) / (1 - q(w)) outside, against B.7's level
      // with [Q_lo, Q_hi] the enumerated range of q and p the level-2 keep probability at Q_lo.
      const double lo = *std::min_element(q.begin(), q.end()), hi = *std::max_element(q.begin(), q.end());
      const double p = std::exp(2.0) * lo / (1 - lo + std::exp(2.0) * lo);
      REQUIRE(p >= hi);
      const double bound = std::max({p * (1 - lo) / ((1 - p) * lo), hi / lo, (1 - lo) / (1 - hi)});
      double worst = 0;
      for (std::size_t zi = 0; zi < in[0].size(); ++zi) {
        double most = 0, least = 1e300;
        for (std::size_t k = 0; k < inputs.size(); ++k) {
          const double law = in[k][zi] != 0 ? p / q[k] : (1 - p) / (1 - q[k]);  // over D(z), which cancels
          most = std::max(most, law);
          least = std::min(least, law);
        }
        worst = std::max(worst, most / least);
      }
      CHECK(worst <= bound * (1 + 1e-12));
      CHECK(std::log(bound) <= 2 + 1e-12);
    }
  }
}

namespace {

// privunitg_round's coin is the top 15 bits of next_u32.
struct scripted32 {
  uint32_t word = 0;
  uint32_t next_u32() { return word; }
};

}  // namespace

TEST_CASE("privunitg rounding: Z / 2^15 unbiased over the coin, clamped at +-(2^15 - 1)") {
  // Over the 2^15 equally likely coins the sum of the outputs is exactly 2^15 z / 2^15 = z.
  for (int64_t z : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{32767}, int64_t{-40000}, int64_t{123456789},
                    int64_t{-987654321}}) {
    int64_t sum = 0;
    for (uint32_t coin = 0; coin < (uint32_t{1} << 15); ++coin) {
      scripted32 rng{coin << 17};
      std::vector<int64_t> v = {z};
      ldp::device::privunitg_round(ldp::span<int64_t>(v), rng);
      sum += v[0];
    }
    CAPTURE(z);
    CHECK(sum == z);
  }
  scripted32 rng{0};
  std::vector<int64_t> v = {int64_t{1} << 40, -(int64_t{1} << 40), (int64_t{32767} << 15) + 1};
  ldp::device::privunitg_round(ldp::span<int64_t>(v), rng);
  CHECK(v == std::vector<int64_t>{32767, -32767, 32767});
}

TEST_CASE("privunitg context and direction step: argument checks, any dimension k, golden bytes") {
  const auto made = ldp::wire::make_privunitg(6, 2.0, 16, 2.0);
  REQUIRE(made.code == status::ok);
  const ldp::wire::params& p = made.block;
  ldp::test::owned_context<ldp::device::unit_vector_context> c(p);
  REQUIRE(c.code == status::ok);
  auto rng = ldp::test::seeded_drbg("privunitg context");
  std::vector<unsigned char> out(ldp::wire::max_report_size(p));
  std::size_t written = 0;
  refuses_wrong_size(c.context, rng, out);
  // x = 0 (w = +-e_1) and a vector outside the ball both give decodable reports.
  const std::vector<int64_t> zero(6, 0), x = {65536, -131072, 0, 3 << 16, 1, -5};
  for (const auto& input : {zero, x}) {
    REQUIRE(c->randomize(input, rng, out, ldp::device::framing::report, &written) == status::ok);
    CHECK(written == ldp::wire::max_report_size(p));
    ldp::wire::report r;
    REQUIRE(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), ldp::span<const unsigned char>(out.data(), written),
                                     &r) == status::ok);
  }
  // The step alone in k = 3 dimensions (ProjUnit's use): w = (3, 4, 0), g = t 2^26 with t = 1, always in
  // the cap: <q, w> / 5 is about 2^11 (t + phi(t) / Qbar(t)) = 2^11 * 2.525 per draw, far above 0.
  ldp::device::privunitg_cap cap;
  cap.keep = ~uint64_t{0} >> 1;
  cap.keep_bits = 63;
  cap.threshold = uint32_t{1} << 26;
  const std::vector<int32_t> w = {3, 4, 0};
  std::vector<int64_t> q(3);
  for (int trial = 0; trial < 20; ++trial) {
    ldp::device::privunitg_direction(ldp::span<const int32_t>(w), 25, cap, rng, ldp::span<int64_t>(q));
    CHECK(3 * q[0] + 4 * q[1] >= 5 * 2048);
    for (int64_t v : q) CHECK(std::llabs(v) <= 32767);
  }
  // Golden bytes: the same seed gives the same report on every target and kernel table.
  for (const ldp::kernels::table* table : ldp::test::runnable_tables()) {
    auto seeded = ldp::test::seeded_drbg("privunitg golden bytes", *table);
    REQUIRE(c->randomize(x, seeded, out, ldp::device::framing::payload, &written) == status::ok);
    CHECK(ldp::test::to_hex(out.data(), written) == "0cff2df8360a3004fcfc2e09");
  }
}

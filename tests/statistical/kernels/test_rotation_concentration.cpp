// The randomized Hadamard rotation spreads a vector (docs/mechanisms.md B.4 "Concentration" and
// "Tests"): over many public seeds, U z = d^-1/2 H D z exceeds |z| sqrt(2 ln(2d/beta) / d) in some
// coordinate with frequency at most beta, and each coordinate has mean 0. The input is the constant
// vector, the worst case without D (H z puts all of |z| on coordinate 0), so sign vectors that are
// not random (all zero, repeated, or ignored by the kernel) fail both checks. Probabilities are
// over independent uniform signs, which the ChaCha20 stream stands in for; seeds are fixed.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "ldp/random/rotation.h"
#include "tables.h"

namespace {

constexpr uint32_t dim = 256;
constexpr unsigned log2dim = 8;
constexpr int seeds = 4000;

// U z for z = (1, ..., 1) / sqrt(d) (so |z| = 1) under seed number `k`.
std::vector<float> rotated_constant(const ldp::kernels::table& t, int k) {
  unsigned char seed[32];
  ldp::test::seed_from_name("rotation concentration", seed);
  for (int b = 0; b < 4; ++b) seed[b] = static_cast<unsigned char>(k >> (8 * b));
  std::vector<uint32_t> words(ldp::random::rotation_sign_words(dim));
  REQUIRE(ldp::random::rotation_signs(seed, dim, ldp::span<uint32_t>(words)) == ldp::status::ok);
  std::vector<float> z(dim, 1.0f / 16.0f);  // 1 / sqrt(256), exact
  t.rotate_f32(z.data(), words.data(), log2dim);
  return z;
}

}  // namespace

TEST_CASE("rotation concentration: max coordinate above the B.4 bound with frequency <= beta") {
  // beta = 0.05: the bound is sqrt(2 ln(2 * 256 / 0.05) / 256) = 0.2686. The count of seeds whose
  // rotation exceeds it is Binomial(4000, p) with p <= 0.05; P(count >= 300) <= exp(-4000 KL(0.075
  // || 0.05)) = exp(-22.9) < 1e-9 (Chernoff), the false-failure probability. Without D every seed
  // would exceed it (coordinate 0 would be 1).
  const double beta = 0.05;
  const double bound = std::sqrt(2 * std::log(2 * dim / beta) / dim);
  const auto& t = ldp::kernels::select(ldp::platform::detect_cpu());
  int exceed = 0;
  double sum0 = 0;
  for (int k = 0; k < seeds; ++k) {
    const auto y = rotated_constant(t, k);
    bool over = false;  // (a max-reduction here crashes GCC 12's aarch64 vectorizer)
    for (float v : y) over = over || std::fabs(static_cast<double>(v)) > bound;
    exceed += over ? 1 : 0;
    sum0 += y[0];
  }
  CHECK(exceed < 300);
  // Coordinate 0 is (1/d) times a sum of d independent signs, so the mean over the seeds is
  // (1/(d N)) times a sum of d N signs: by Hoeffding, P(|mean| >= t) <= 2 exp(-d N t^2 / 2), which
  // is 1e-7 at t = sqrt(2 ln(2e7) / (d N)) = 0.0057 (the standard deviation is 0.001).
  const double t_mean = std::sqrt(2 * std::log(2e7) / (double{dim} * seeds));
  CHECK(std::fabs(sum0 / seeds) < t_mean);
  // The rotation keeps the norm (|z| = 1) whatever the signs.
  const auto y = rotated_constant(t, 0);
  double norm = 0;
  for (float v : y) norm += static_cast<double>(v) * v;
  CHECK(std::fabs(norm - 1) < 1e-5);
}

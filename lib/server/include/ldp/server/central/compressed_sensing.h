// Ghazi et al. 2024, Algorithm 2 (docs/mechanisms.md I.3, digest C.3): approximate-DP mean estimation
// of s-sparse vectors by compressed sensing. The trusted server measures each point with a public
// Gaussian matrix A (m x d, m << d), releases the mean measurement plus Gaussian noise, and decodes
// it with an l1 decoder, which recovers an (approximately) sparse mean from m ~ s log(d / s) noisy
// measurements (Wojtaszczyk 2010).
//
// [impl] Choices the paper leaves open (C.3 "decoder and constants uncertain"):
//   - A: entries N(0, 1/m) from a public 64-bit seed (Box-Muller on the drbg keyed by the seed; the
//     uniforms are the same everywhere, the libm log/cos/sin may differ in the last bit across
//     platforms, which moves nothing that privacy rests on).
//   - Privacy does NOT rest on A being a restricted isometry (the paper's argument holds only on a
//     high-probability event that nobody can check for a given A): each point's measurement A x_i is
//     l2-clipped to C = (1 + eta) L, so the l2 sensitivity of the summed measurements is 2C for every
//     A. When A is an eta-RIP on s-sparse vectors the clip never acts and the output is the paper's.
//   - Noise: the clipped measurements are truncated toward zero onto the grid 2^-frac_bits (which
//     never increases a norm), summed exactly in int64, and the exact discrete Gaussian with the
//     sigma^2 of gaussian_variance (sparse_projection.h: zCDP, Canonne-Kamath-Steinke 2020) is added
//     to each of the m sums; the measured mean is the result times 2^-frac_bits / n.
//   - Decoder: the LASSO min_z 1/2 ||A z - y||_2^2 + lambda ||z||_1 by FISTA with adaptive restart
//     and continuation in lambda (cs_decode). Privacy holds for any decoder (post-processing).
#ifndef LDP_SERVER_CENTRAL_COMPRESSED_SENSING_H
#define LDP_SERVER_CENTRAL_COMPRESSED_SENSING_H

#include <cstdint>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/random/drbg.h"

namespace ldp::server {

// The public m x d measurement matrix, row-major, entries N(0, 1/m) (so E ||A x||^2 = ||x||^2), a
// function of (m, d, seed) alone. invalid_argument for m or d of 0 or m * d above 2^28; overflow when
// memory runs out. Never throws.
[[nodiscard]] status cs_matrix(uint32_t m, uint32_t d, uint64_t seed, std::vector<double>* a) noexcept;

struct cs_decode_options {
  double lambda = 0;          // the LASSO weight, >= 0 (0: least squares, no sparsity)
  uint32_t iterations = 500;  // FISTA steps per continuation stage
  double tolerance = 1e-12;   // a stage ends when a step moves z by less than tolerance * (1 + ||z||_2)
};

// The l1 decoder: z minimizing 1/2 ||A z - y||_2^2 + lambda ||z||_1, A = a (m = y.size() rows of d
// columns, row-major). FISTA (Beck-Teboulle 2009) with step 1 / ||A||_2^2 (power iteration, raised by
// 1%), restarted whenever the momentum points uphill (O'Donoghue-Candes 2015), and continuation:
// lambda starts at ||A^T y||_inf / 2 and halves per stage down to options.lambda (at most 40 stages,
// then one at options.lambda), each stage warm started. Without noise and with A a restricted isometry, a small lambda returns the s-sparse x with
// A x = y within O(lambda sqrt(s)). invalid_argument for mismatched sizes, non-finite entries or bad
// options; overflow when memory runs out. Never throws.
[[nodiscard]] status cs_decode(span<const double> a, span<const double> y, uint32_t d, const cs_decode_options& options,
                               std::vector<double>* z) noexcept;

// One data point: at most s non-zero coordinates (index, value); indices distinct and below d.
struct sparse_point {
  std::vector<uint32_t> index;
  std::vector<double> value;
};

struct cs_release_options {
  uint32_t measurements = 0;  // m, in [1, d]
  uint64_t matrix_seed = 0;   // public
  double radius = 1;          // L: the l2 bound of every point (larger points are clipped to it)
  double rip_slack = 0.5;     // eta: the measurement clip C = (1 + eta) L
  double epsilon = 1;         // in (0, 40]
  double delta = 1e-6;        // in (0, 1)
  uint32_t frac_bits = 16;    // the measurement grid 2^-frac_bits, in [0, 40]
  double lambda = 0;          // 0: noise_sd * sqrt(2 ln(2 d)), about the size of ||A^T z||_inf
  uint32_t iterations = 500;  // per continuation stage of cs_decode
};

struct cs_release {
  std::vector<double> measured_mean;  // (1/n) sum_i clip(A x_i) + noise, m values (already DP)
  std::vector<double> mean;           // the decoded estimate of the mean, d values
  double epsilon_impl = 0;            // the level the discrete Gaussian implements, <= epsilon
  double noise_sd = 0;                // sqrt(sigma^2) 2^-frac_bits / n: the noise on each measurement
  double lambda = 0;                  // the decoder's weight used
  uint64_t sigma2 = 0;                // the discrete Gaussian's sigma^2 on the sums, squared grid units
  uint64_t sensitivity = 0;           // 2 floor(C 2^frac_bits): the l2 sensitivity of the sums
};

// Algorithm 2 on the n = points.size() >= 1 points (n public, replace-one neighbours), noise from
// `rng`, a server DRBG the caller seeds. Points are validated (index < d, distinct, finite values) and
// l2-clipped to L. invalid_argument for an empty set, a bad point or option, or a sigma^2 the sampler
// cannot represent (use fewer frac_bits); overflow for sums past int64 or out of memory. Never throws.
[[nodiscard]] status release_cs_mean(span<const sparse_point> points, uint32_t d, const cs_release_options& options,
                                     random::drbg& rng, cs_release* out) noexcept;

}  // namespace ldp::server

#endif

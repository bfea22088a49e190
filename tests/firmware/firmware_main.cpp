// A firmware-style program for Cortex-M (newlib-nano, no OS) that links every device-side module
// and uses each of its entry points, so that the symbol scan in check_firmware.cmake sees
// everything a real device image would pull in. It is built, scanned and sized in CI, not run.
#include <cstddef>
#include <cstdint>

#include "firmware_ledger.h"
#include "ldp/base.h"
#include "ldp/device.h"
#include "ldp/kernels.h"
#include "ldp/platform.h"
#include "ldp/random.h"
#include "ldp/wire.h"

namespace {

// Stand-in for a TRNG peripheral: a real board reads its RNG data register here.
volatile uint32_t* const trng_data = reinterpret_cast<volatile uint32_t*>(0x50060808u);

// Results go to a volatile sink so that nothing is optimized away.
volatile uint64_t sink;

}  // namespace

extern "C" int ldp_platform_entropy(unsigned char* out, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<unsigned char>(*trng_data);
  return 0;
}

extern "C" [[noreturn]] void ldp_abort(const char*, int, const char*) {
  for (;;) __builtin_trap();
}

int main() {
  using ldp::device::frequency_context;
  using ldp::device::vector_mean_context;
  constexpr auto report = ldp::device::framing::report;
  unsigned char seed[ldp::random::drbg::seed_size] = {};
  ldp::random::drbg rng(seed, ldp::kernels::native());
  if (ldp::random::drbg::from_entropy(ldp::platform::fill_entropy, nullptr, &rng) != ldp::status::ok) {
    return 1;
  }
  uint64_t mask[16];
  if (ldp::random::fill_bernoulli_mask(rng, mask, 1000, 77309411u) != ldp::status::ok) return 2;
  sink = mask[0] ^ mask[15];
  sink = static_cast<uint64_t>(ldp::random::discrete_laplace(rng, 3 * 65536, 65536));
  sink = ldp::random::uniform_below(rng, 1000) + ldp::random::bern_exp(rng, 1, 3);
  unsigned char stream[96];
  const unsigned char nonce[ldp::random::chacha20_nonce_size] = {1};
  if (ldp::random::chacha20_keystream(ldp::kernels::native(), seed, nonce, 0, stream) != ldp::status::ok) {
    return 3;
  }
  sink = stream[95];
  // An OUE report for d = 64 in a buffer sized at compile time from the parameter block.
  constexpr ldp::wire::params oue = [] {
    ldp::wire::params p;
    p.mech = ldp::wire::mechanism::oue;
    p.set(ldp::wire::field::domain, 64).set(ldp::wire::field::threshold_bits, 32);
    p.set(ldp::wire::field::threshold_keep, 2147483648u);
    p.set(ldp::wire::field::threshold_other, 1155094610u);
    return p;
  }();
  unsigned char report_bytes[ldp::wire::max_report_size(oue)];
  alignas(ldp::device::workspace_alignment) std::byte workspace[frequency_context::workspace_size(oue)];
  frequency_context oracle;
  std::size_t report_size = 0;
  if (frequency_context::init(workspace, oue, &oracle) != ldp::status::ok ||
      oracle.randomize(17, rng, report_bytes, report, &report_size) != ldp::status::ok) {
    return 4;
  }
  sink = report_bytes[report_size - 1];
  // A device may derive its own block: the derivation is deterministic across platforms.
  const ldp::wire::derived_params grr = ldp::wire::make_grr(1.0, 10);
  if (frequency_context::init({}, grr.block, &oracle) != ldp::status::ok ||
      oracle.randomize(3, rng, report_bytes, report, &report_size) != ldp::status::ok) {
    return 5;
  }
  sink = report_bytes[report_size - 1];
  // A memoized report (docs/mechanisms.md E.1) under a block derived on the device: the permanent
  // response keyed by the device secret (flash in a real image), then the instantaneous stage.
  static const unsigned char device_secret[ldp::device::device_secret_size] = {0x5e, 0xc7};
  const ldp::wire::derived_params memo = ldp::wire::make_memoized_oracle(ldp::wire::mechanism::olh, 2.0, 1.0, 10);
  unsigned char memo_report[ldp::wire::report_header_size + 8 + 4];  // the seed, a bucket of at most 4 bytes
  if (frequency_context::init({}, memo.block, &oracle) != ldp::status::ok ||
      oracle.randomize_memoized(3, {device_secret, 1}, rng, memo_report, report, &report_size) != ldp::status::ok) {
    return 6;
  }
  sink = memo_report[report_size - 1];
  // Numeric reports (docs/mechanisms.md B.1, B.2), from blocks derived on the device: a discrete
  // Laplace value on [-1, 1] with f = 16, a Duchi bit, and a 3-coordinate Laplace vector.
  const ldp::wire::derived_params laplace = ldp::wire::make_laplace(-1.0, 1.0, 16, 1.0);
  const ldp::wire::derived_params duchi = ldp::wire::make_duchi(-1.0, 1.0, 16, 1.0);
  const ldp::wire::derived_params laplace3 = ldp::wire::make_laplace_vector(3, -1.0, 1.0, 16, 1.0);
  unsigned char numeric_report[ldp::wire::report_header_size + 3 * ldp::wire::varint_max_size];
  int64_t reading = 0;
  ldp::device::mean_context scalar;
  if (ldp::wire::to_fixed(0.3, 16, &reading) != ldp::status::ok ||
      ldp::device::mean_context::init({}, laplace.block, &scalar) != ldp::status::ok ||
      scalar.randomize(reading, rng, numeric_report, report, &report_size) != ldp::status::ok) {
    return 20;
  }
  sink = numeric_report[report_size - 1];
  if (ldp::device::mean_context::init({}, duchi.block, &scalar) != ldp::status::ok ||
      scalar.randomize(reading, rng, numeric_report, report, &report_size) != ldp::status::ok) {
    return 21;
  }
  sink = numeric_report[report_size - 1];
  // The Duchi bit memoized by alpha-point rounding (docs/mechanisms.md E.2): k = 16 grid points, a
  // flip of 1/8, permanent draws from the device secret the firmware keeps (above).
  const ldp::wire::derived_params memo_duchi = ldp::wire::make_memoized_duchi(-1.0, 1.0, 16, 1.0, 16, 0.125);
  if (ldp::device::mean_context::init({}, memo_duchi.block, &scalar) != ldp::status::ok ||
      scalar.randomize_memoized(reading, {device_secret, 1}, rng, numeric_report, report, &report_size) !=
          ldp::status::ok) {
    return 23;
  }
  sink = numeric_report[report_size - 1];
  const int64_t coordinates[3] = {reading, -reading, 70000};
  alignas(ldp::device::workspace_alignment) std::byte noisy[3 * sizeof(int64_t)];
  vector_mean_context vector;
  if (vector_mean_context::init(noisy, laplace3.block, &vector) != ldp::status::ok ||
      vector.randomize(coordinates, rng, numeric_report, report, &report_size) != ldp::status::ok) {
    return 22;
  }
  sink = numeric_report[report_size - 1];
  // A kway-marginals report (docs/mechanisms.md H.5): a record of p = 8 bits, its N' = 8 + 28 = 36
  // conjunction indicators of at most k = 2 attributes as laplace-vector coordinates.
  const ldp::wire::derived_params marginals = ldp::wire::make_kway_marginals(8, 2, 0, 1.0);
  alignas(ldp::device::workspace_alignment) std::byte indicators[36 * sizeof(int64_t)];
  unsigned char marginals_report[ldp::wire::report_header_size + 36 * ldp::wire::varint_max_size];
  if (vector_mean_context::init(indicators, marginals.block, &vector) != ldp::status::ok ||
      ldp::device::randomize_kway_marginals(vector, 0xa5u, rng, marginals_report, report, &report_size) !=
          ldp::status::ok) {
    return 37;
  }
  sink = marginals_report[report_size - 1];
  // A sparse-projection report (docs/mechanisms.md C.3): the 2 largest of 4 coordinates, clipped to the l2
  // ball of radius 1 (f = 16); the workspace and report sizes are constant expressions.
  constexpr ldp::wire::params sparse = [] {
    ldp::wire::params p;
    p.mech = ldp::wire::mechanism::sparse_projection;
    p.set(ldp::wire::field::domain, 64).set(ldp::wire::field::sparsity, 2).set(ldp::wire::field::frac_bits, 16);
    p.set_signed(ldp::wire::field::clip_lo, -65536).set_signed(ldp::wire::field::clip_hi, 65536);
    return p;
  }();
  const uint32_t sparse_indices[4] = {3, 9, 17, 40};
  const int64_t sparse_values[4] = {70000, -12, -90000, 5};
  alignas(ldp::device::workspace_alignment)
      std::byte kept[ldp::device::sparse_projection_context::workspace_size(sparse)];
  unsigned char sparse_report[ldp::device::max_output_size(sparse, report)];
  ldp::device::sparse_projection_context projection;
  if (ldp::device::sparse_projection_context::init(kept, sparse, &projection) != ldp::status::ok ||
      projection.randomize({sparse_indices, sparse_values}, rng, sparse_report, report, &report_size) !=
          ldp::status::ok) {
    return 60;
  }
  sink = sparse_report[report_size - 1];
  // A winsorized-bins report (docs/mechanisms.md C.2, round 1): the mean of a user's 3 samples of d = 5
  // in [-1, 1] (f = 8), rotated (d~ = 8) and binned; every buffer is sized from the block.
  constexpr ldp::wire::params winsorized = [] {
    ldp::wire::params p;
    p.mech = ldp::wire::mechanism::winsorized_bins;
    p.set(ldp::wire::field::domain, 8).set(ldp::wire::field::hadamard_dim, 8).set(ldp::wire::field::vector_dim, 5);
    p.set(ldp::wire::field::frac_bits, 8)
        .set_signed(ldp::wire::field::clip_lo, -256)
        .set_signed(ldp::wire::field::clip_hi, 256);
    p.set(ldp::wire::field::observations, 4)
        .set(ldp::wire::field::bin_range, 1280)
        .set(ldp::wire::field::bin_half_width, 64);
    const unsigned char round_seed[ldp::wire::seed_size] = {7};
    p.set_seed(ldp::wire::field::rotation_seed, round_seed);
    return p;
  }();
  const int64_t user_samples[15] = {10, -20, 30, 256, 0, 12, -18, 33, 250, 1, 9, -25, 28, 240, -1};
  alignas(ldp::device::workspace_alignment)
      std::byte winsorized_workspace[ldp::device::winsorized_context::workspace_size(winsorized)];
  unsigned char winsorized_report[ldp::device::max_output_size(winsorized, report)];
  ldp::device::winsorized_context user;
  if (ldp::device::winsorized_context::init(winsorized_workspace, winsorized, {}, &user) != ldp::status::ok ||
      user.randomize(user_samples, rng, winsorized_report, report, &report_size) != ldp::status::ok) {
    return 61;
  }
  sink = winsorized_report[report_size - 1];
  // A vector mean report (docs/mechanisms.md B.5) from a block derived on the device: 100 coordinates
  // in the L2 ball of radius 1 (f = 16), the rotation signs derived once into caller memory, one
  // rotated coordinate randomized with Duchi's bit.
  const unsigned char rotation_seed[ldp::wire::seed_size] = {3, 1, 4, 1, 5};
  const ldp::wire::derived_params mean_block = ldp::wire::make_vector_duchi(100, 1.0, 16, 1.0, 1e-3, rotation_seed);
  alignas(ldp::device::workspace_alignment) std::byte rotation[4 * sizeof(uint32_t) + 128 * sizeof(int32_t)];
  if (vector_mean_context::init(rotation, mean_block.block, &vector) != ldp::status::ok) return 30;
  int64_t update[100];
  for (int i = 0; i < 100; ++i) update[i] = (i % 2 != 0 ? -reading : reading) / 16;
  unsigned char mean_report[ldp::wire::report_header_size + 2];
  if (vector.randomize(update, rng, mean_report, report, &report_size) != ldp::status::ok) return 31;
  sink = mean_report[report_size - 1];
  // Unit-vector reports (docs/mechanisms.md B.6-B.8) from blocks derived on the device: l2-ball and
  // PrivUnitG in d = 16, ProjUnit and FastProjUnit from d = 16 down to k = 8 (R = 1, f = 16); the
  // workspaces (at most a few hundred bytes here) and reports fit the static buffers below, which
  // init and randomize check.
  const ldp::wire::derived_params unit_blocks[] = {
      ldp::wire::make_l2_ball(16, 1.0, 16, 2.0), ldp::wire::make_privunitg(16, 1.0, 16, 2.0),
      ldp::wire::make_projunit(16, 8, 1.0, 16, 2.0), ldp::wire::make_fastprojunit(16, 8, 1.0, 16, 2.0)};
  alignas(ldp::device::workspace_alignment) static std::byte unit_workspace[2048];
  unsigned char unit_report[64];
  int64_t gradient[16];
  for (int i = 0; i < 16; ++i) gradient[i] = (i % 3 == 0 ? -reading : reading) / 4;
  ldp::device::unit_vector_context sphere;
  if (ldp::device::unit_vector_context::init(unit_workspace, unit_blocks[0].block, &sphere) != ldp::status::ok ||
      sphere.randomize(gradient, rng, unit_report, report, &report_size) != ldp::status::ok ||
      ldp::device::unit_vector_context::init(unit_workspace, unit_blocks[1].block, &sphere) != ldp::status::ok ||
      sphere.randomize(gradient, rng, unit_report, report, &report_size) != ldp::status::ok) {
    return 40;
  }
  sink = unit_report[report_size - 1];
  ldp::device::projected_unit_context projected;
  for (int member = 2; member < 4; ++member) {
    if (ldp::device::projected_unit_context::init(unit_workspace, unit_blocks[member].block, &projected) !=
            ldp::status::ok ||
        projected.randomize(gradient, rng, unit_report, report, &report_size) != ldp::status::ok) {
      return 41;
    }
    sink = unit_report[report_size - 1];
  }
  // A user-level vote (docs/mechanisms.md C.1, M3): 24 observations of 6 coordinates, of which the
  // first 16 count, rotated over d~ = 8, coordinate 5 voted over 32 cells; then the refinement of
  // the same coordinate under a round-2 block built on the device. Sizes are constant expressions.
  constexpr ldp::wire::params kent = [] {
    constexpr unsigned char kent_seed[ldp::wire::seed_size] = {2, 7, 1, 8};
    ldp::wire::params p;
    p.mech = ldp::wire::mechanism::kent_vote;
    p.set(ldp::wire::field::domain, 32).set(ldp::wire::field::threshold_bits, 32);
    p.set(ldp::wire::field::threshold_keep, 2673442470u).set(ldp::wire::field::threshold_other, 1621524826u);
    p.set(ldp::wire::field::frac_bits, 16).set_signed(ldp::wire::field::clip_lo, -65536);
    p.set_signed(ldp::wire::field::clip_hi, 65536).set(ldp::wire::field::round, 1);
    p.set(ldp::wire::field::observations, 16).set(ldp::wire::field::vector_dim, 6);
    p.set(ldp::wire::field::fold_coordinate, 5).set(ldp::wire::field::hadamard_dim, 8);
    p.set_seed(ldp::wire::field::rotation_seed, kent_seed);
    return p;
  }();
  alignas(ldp::device::workspace_alignment)
      std::byte kent_workspace[ldp::device::user_level_context::workspace_size(kent)];
  ldp::device::user_level_context voter;
  int64_t observations[24 * 6];
  for (int i = 0; i < 24 * 6; ++i) observations[i] = (i % 7) * 3000 - reading;
  unsigned char kent_report[ldp::wire::max_report_size(kent)];
  if (ldp::device::user_level_context::init(kent_workspace, kent, &voter) != ldp::status::ok ||
      voter.randomize(observations, rng, kent_report, report, &report_size) != ldp::status::ok) {
    return 70;
  }
  sink = kent_report[report_size - 1];
  const ldp::wire::derived_params refine = ldp::wire::make_kent_refine(1.0, -20000, 30000, ldp::wire::shape_of(kent));
  unsigned char refine_report[ldp::wire::report_header_size + ldp::wire::varint_max_size];
  // The round-2 block needs no vote bits: the same memory serves it.
  if (ldp::device::user_level_context::init(kent_workspace, refine.block, &voter) != ldp::status::ok ||
      voter.randomize(observations, rng, refine_report, report, &report_size) != ldp::status::ok) {
    return 71;
  }
  sink = refine_report[report_size - 1];
  // Kent M4a's support vote (docs/mechanisms.md C.1 P4) on the same observations as 6 coordinates:
  // the at most 2 whose local mean over the first 16 reaches 1/8, hashed with the public signs of
  // the report's seed, plus discrete Laplace noise of scale 2 s / alpha = 4 (alpha = 1).
  constexpr ldp::wire::params support = [] {
    ldp::wire::params p;
    p.mech = ldp::wire::mechanism::kent_support;
    p.set(ldp::wire::field::domain, 6).set(ldp::wire::field::sparsity, 2);
    p.set(ldp::wire::field::observations, 16).set(ldp::wire::field::vote_threshold, 8192);
    p.set(ldp::wire::field::frac_bits, 16).set_signed(ldp::wire::field::clip_lo, -65536);
    p.set_signed(ldp::wire::field::clip_hi, 65536);
    p.set(ldp::wire::field::scale_num, 4 * 65536 + 1).set(ldp::wire::field::scale_den, 65536);
    return p;
  }();
  alignas(ldp::device::workspace_alignment)
      std::byte support_workspace[ldp::device::kent_support_context::workspace_size(support)];
  unsigned char support_report[ldp::wire::max_report_size(support)];
  ldp::device::kent_support_context supporter;
  if (ldp::device::kent_support_context::init(support_workspace, support, &supporter) != ldp::status::ok ||
      supporter.randomize(observations, rng, support_report, report, &report_size) != ldp::status::ok) {
    return 72;
  }
  sink = support_report[report_size - 1];
  // The public-coin learners (docs/mechanisms.md H.2, H.3): user 17 of 1000 with feature x and label 1
  // under the squared loss on the grid {0, 1/3, 2/3, 1} (p = 1, k = 3), V = 2^8; the scales of
  // make_bernstein_1bit at epsilon 1 and make_bernstein_genprot at 2 with T = 8 public samples.
  static constexpr unsigned char coin_seed[ldp::wire::seed_size] = {4, 1, 7};
  constexpr auto coin_block = [](ldp::wire::mechanism m) {
    ldp::wire::params p;
    p.mech = m;
    p.set(ldp::wire::field::vector_dim, 1).set(ldp::wire::field::grid_size, 3).set(ldp::wire::field::loss, 1);
    p.set(ldp::wire::field::users, 1000).set(ldp::wire::field::frac_bits, 8);
    p.set_seed(ldp::wire::field::hash_seed, coin_seed).set(ldp::wire::field::scale_den, 65536);
    p.set(ldp::wire::field::scale_num, m == ldp::wire::mechanism::bernstein_1bit ? 34247595u : 24204407u);
    if (m == ldp::wire::mechanism::bernstein_genprot) p.set(ldp::wire::field::public_strings, 8);
    return p;
  };
  const double feature = static_cast<double>(reading % 100) / 100;
  ldp::device::learner_example example;
  example.user = 17;
  example.x = &feature;
  example.dim = 1;
  example.label = 1;
  for (const ldp::wire::mechanism m : {ldp::wire::mechanism::bernstein_1bit, ldp::wire::mechanism::bernstein_genprot}) {
    const ldp::wire::params coin = coin_block(m);
    alignas(ldp::device::workspace_alignment) std::byte point[sizeof(double)];
    unsigned char coin_report[ldp::wire::report_header_size + 16];
    ldp::device::public_coin_context learner;
    if (ldp::device::public_coin_context::init(point, coin, &learner) != ldp::status::ok ||
        learner.randomize(example, rng, coin_report, report, &report_size) != ldp::status::ok) {
      return 73;
    }
    sink = coin_report[report_size - 1];
  }
  // String-discovery reports (docs/mechanisms.md F) from blocks derived on the device: a pem word of
  // at most 16 bytes (OLH, 8 bits a group, no workspace) and an sfp word of at most 8 bytes (CMS with
  // 16 rows of 256 columns: 32 bytes of sign bits); the group first, then the inner oracle's report.
  static const unsigned char sketch_seed[ldp::wire::seed_size] = {9, 2, 6};
  const ldp::wire::derived_params pem = ldp::wire::make_pem(2.0, 16, 8);
  const ldp::wire::derived_params sfp = ldp::wire::make_sfp(2.0, 8, 16, 256, sketch_seed);
  const unsigned char typed[] = {'f', 'o', 'r', 't', 'u', 'n', 'e'};
  alignas(ldp::device::workspace_alignment) std::byte sign_bits[256 / 8];
  unsigned char string_report[ldp::wire::report_header_size + 64];
  ldp::device::string_context discovery;
  if (ldp::device::string_context::init({}, pem.block, &discovery) != ldp::status::ok ||
      discovery.randomize(typed, rng, string_report, report, &report_size) != ldp::status::ok) {
    return 90;
  }
  sink = string_report[report_size - 1];
  if (ldp::device::string_context::init(sign_bits, sfp.block, &discovery) != ldp::status::ok ||
      discovery.randomize(typed, rng, string_report, report, &report_size) != ldp::status::ok) {
    return 91;
  }
  sink = string_report[report_size - 1];
  // Distribution reports (docs/mechanisms.md G) of a temperature in [-40, 60] (f = 8): Square Wave over
  // 64 buckets with a window of 2 * 4 + 1 kept with 1/2 (epsilon ln 7), a constant block whose report
  // size is a constant expression; and a hierarchical histogram of 256 = 4^4 buckets derived on the
  // device (a level, then OLH: no workspace).
  constexpr ldp::wire::params square_wave = [] {
    ldp::wire::params p;
    p.mech = ldp::wire::mechanism::square_wave;
    p.set(ldp::wire::field::domain, 64).set(ldp::wire::field::threshold_bits, 32);
    p.set(ldp::wire::field::threshold_keep, 2147483648u).set(ldp::wire::field::window_half_width, 4);
    p.set(ldp::wire::field::frac_bits, 8).set_signed(ldp::wire::field::clip_lo, -40 * 256);
    p.set_signed(ldp::wire::field::clip_hi, 60 * 256);
    return p;
  }();
  const int64_t temperature = 2150;  // 8.4 degrees on the grid of f = 8
  unsigned char distribution_report[ldp::device::max_output_size(square_wave, report)];
  ldp::device::distribution_context distribution;
  if (ldp::device::distribution_context::init({}, square_wave, &distribution) != ldp::status::ok ||
      distribution.randomize(temperature, rng, distribution_report, report, &report_size) != ldp::status::ok) {
    return 95;
  }
  sink = distribution_report[report_size - 1];
  const ldp::wire::derived_params tree = ldp::wire::make_hierarchical(2.0, 256, 4, -40.0, 60.0, 8);
  unsigned char tree_report[ldp::wire::report_header_size + 1 + 8 + 4];  // level, OLH seed, bucket of <= 4 bytes
  if (ldp::device::distribution_context::init({}, tree.block, &distribution) != ldp::status::ok ||
      distribution.randomize(temperature, rng, tree_report, report, &report_size) != ldp::status::ok) {
    return 96;
  }
  sink = tree_report[report_size - 1];
  // The local Bernstein mechanism (docs/mechanisms.md H.1): a logistic loss of p = 2 features on the
  // grid of k = 3 steps (N = 16 values), the block derived on the device, the values and the noisy
  // coordinates in static arrays.
  const ldp::wire::derived_params bernstein_block =
      ldp::wire::make_bernstein(2, 3, ldp::wire::loss_kind::logistic, 16, 2.0);
  const double bernstein_x[2] = {0.25, 0.875};
  static int64_t losses[16];
  alignas(ldp::device::workspace_alignment) static std::byte learner_noisy[16 * sizeof(int64_t)];
  static unsigned char learner_report[ldp::wire::report_header_size + 16 * ldp::wire::varint_max_size];
  if (vector_mean_context::init(learner_noisy, bernstein_block.block, &vector) != ldp::status::ok ||
      ldp::device::randomize_bernstein(vector, bernstein_x, 1.0, losses, rng, learner_report, report, &report_size) !=
          ldp::status::ok) {
    return 36;
  }
  sink = learner_report[report_size - 1];
  // A smooth-queries report (docs/mechanisms.md H.6): the 4^2 Chebyshev features of a reading pair in
  // [-1, 1]^2 by the integer recurrence, block derived on the device, laplace-vector noise on each.
  const ldp::wire::derived_params smooth = ldp::wire::make_smooth_queries(2, 4, 16, 2.0);
  const int64_t pair[2] = {reading, -40000};
  alignas(ldp::device::workspace_alignment) std::byte smooth_workspace[16 * sizeof(int64_t)];
  unsigned char smooth_report[ldp::wire::report_header_size + 16 * ldp::wire::varint_max_size];
  if (vector_mean_context::workspace_size(smooth.block) > sizeof smooth_workspace ||
      vector_mean_context::init(smooth_workspace, smooth.block, &vector) != ldp::status::ok ||
      ldp::device::randomize_smooth_queries(vector, pair, rng, smooth_report, report, &report_size) !=
          ldp::status::ok) {
    return 97;
  }
  sink = smooth_report[report_size - 1];
  // A glm-copies report (docs/mechanisms.md H.4): d = 2, 7 copies of (x_0, x_1, s) on the grid of
  // f = 8 with the discrete Gaussian of make_glm_copies(4, 1e-6, {2, 2, 8}); within the bare-metal
  // budget LDP_CONFIG_MAX_GLM_COPIES = 21.
  constexpr ldp::wire::params glm = [] {
    ldp::wire::params p;
    p.mech = ldp::wire::mechanism::glm_copies;
    p.set(ldp::wire::field::domain, 21).set(ldp::wire::field::vector_dim, 2).set(ldp::wire::field::frac_bits, 8);
    p.set(ldp::wire::field::degree, 2).set(ldp::wire::field::noise_sigma2, 4424337);
    p.set(ldp::wire::field::privacy_delta, 18446744073709u);
    return p;
  }();
  alignas(ldp::device::workspace_alignment) std::byte glm_workspace[ldp::device::glm_context::workspace_size(glm)];
  unsigned char glm_report[ldp::wire::max_report_size(glm)];
  const int64_t glm_example[] = {192, 64};  // x = (0.75, 0.25)
  ldp::device::glm_context glm_learner;
  if (ldp::device::glm_context::init(glm_workspace, glm, &glm_learner) != ldp::status::ok ||
      glm_learner.randomize(glm_example, 256, rng, glm_report, report, &report_size) != ldp::status::ok) {
    return 98;
  }
  sink = glm_report[report_size - 1];
  // A training round's contribution (docs/mechanisms.md I.0): the round's logistic model over 4
  // features arrives as a broadcast (binary32 weights, wire_format.md 10; built here, received in a
  // real image) whose digest the round names; the gradient averaged over the user's first 2 of 3
  // samples in float, clipped to G = 1 and quantized (f = 16), entirely in static buffers.
  {
    const ldp::wire::model_header model{{ldp::wire::model_kind::logistic, 4, 1}, ldp::wire::weight_format::f32, 3};
    static const double weights[5] = {0.5, -0.25, 0.125, 1.0, -0.5};
    static unsigned char broadcast[ldp::wire::model_broadcast_header_size + 5 * 4 + 4];
    std::size_t broadcast_size = 0;
    if (ldp::wire::encode_model_broadcast(model, weights, broadcast, &broadcast_size) != ldp::status::ok) return 110;
    const ldp::device::gradient_bound bound{ldp::wire::model_broadcast_digest(broadcast), 2, 16, 65536};
    static const float features[12] = {1, 0, 0.5f, 2, 0, 1, 1, -1, 3, 3, 3, 3};
    static const float labels[3] = {1, 0, 1};
    static float model_workspace[10];
    static int64_t contribution[5];
    if (ldp::device::user_gradient<float>(broadcast, bound, {features, labels, 3}, model_workspace, contribution) !=
        ldp::status::ok) {
      return 111;
    }
    sink = static_cast<uint64_t>(contribution[4]);
    // The same samples in sparse form (feature index, value pairs), as an embedding-style device holds them.
    static const std::size_t offsets[4] = {0, 3, 5, 9};
    static const uint32_t index[9] = {0, 2, 3, 1, 3, 0, 1, 2, 3};
    static const float value[9] = {1, 0.5f, 2, 1, 1, 3, 3, 3, 3};
    if (ldp::device::user_gradient<float>(broadcast, bound,
                                          ldp::device::sparse_samples<float>{offsets, index, value, labels, 3},
                                          model_workspace, contribution) != ldp::status::ok) {
      return 112;
    }
    sink = static_cast<uint64_t>(contribution[0]);
  }
  if (firmware_ledger(rng, 20000 * 86400ull) != 0) return 80;  // the privacy ledger (docs/ledger.md)
  const ldp::q_result q = ldp::to_q32(0.25, 15);
  sink = static_cast<uint64_t>(q.value);
  sink = static_cast<uint64_t>(ldp::platform::detect_cpu().neon);
  sink = reinterpret_cast<uintptr_t>(ldp::status_name(q.code));
  return 0;
}

// Memoized randomized response on the device (docs/mechanisms.md E.1): the exact privacy of both stages
// of the shipped code (D.2 (a): one report is epsilon_1-LDP, the permanent response epsilon_inf-LDP,
// both tightly), permanent responses as a pure function of (secret, use case, block, item) on every
// kernel table, and the refusals that keep every report on the two-stage path.
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "device_context.h"
#include "enumerator.h"
#include "ldp/device.h"
#include "ldp/wire.h"
#include "privacy_ratio.h"
#include "tables.h"
#include "wire_examples.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

bool hashed(const ldp::wire::params& p) { return ldp::wire::kind_of(p.mech) == ldp::wire::payload_kind::hash_bucket; }

struct secret {
  unsigned char bytes[ldp::device::device_secret_size] = {};
  explicit secret(unsigned char first) { bytes[0] = first; }
};

long double bound(double epsilon) { return std::exp(static_cast<long double>(epsilon)); }

}  // namespace

TEST_CASE("exact enumeration: a memoized report is epsilon_1-LDP, a permanent response epsilon_inf-LDP, tightly") {
  for (mechanism m : ldp::test::memoized_oracles()) {
    for (const auto& [inf, report] : std::vector<std::pair<double, double>>{{2.0, 1.0}, {4.0, 0.5}, {1.0, 0.7}}) {
      // Unary outputs: 2^d patterns; local hashing: d items over g buckets.
      const bool local_hashing = m == mechanism::olh || m == mechanism::blh;
      const std::vector<uint32_t> domains =
          local_hashing ? std::vector<uint32_t>{2, 5} : std::vector<uint32_t>{2, 3, 4};
      for (uint32_t d : domains) {
        const std::string where = std::string(ldp::wire::mechanism_name(m)) + " eps_inf " + std::to_string(inf) +
                                  " eps_1 " + std::to_string(report) + " d " + std::to_string(d);
        CAPTURE(where);
        const auto memo = ldp::wire::make_memoized_oracle(m, inf, report, d);
        REQUIRE(memo.code == status::ok);
        const ldp::wire::params p = memo.block;
        const double eps_1 = memo.epsilon_impl, eps_inf = ldp::wire::longitudinal_epsilon(p);
        CHECK(eps_1 <= report);
        CHECK(eps_inf <= inf);
        ldp::test::owned_context<ldp::device::frequency_context> oracle(p);
        REQUIRE(oracle.code == status::ok);
        long double best_report = 0, best_permanent = 0;
        // Local hashing is audited given its revealed (device-permanent) seed, for a few seeds.
        for (uint64_t seed : {uint64_t{1}, uint64_t{0x9e3779b97f4a7c15u}, uint64_t{42}}) {
          // Both stages of the shipped code, the enumerator standing in for both streams.
          const auto both = ldp::test::max_ratio(d, seed, [&](uint32_t x, ldp::test::enumerating_coins& c) {
            ldp::wire::report rep;
            REQUIRE(oracle->memoized_fields(x, c, c, &rep) == status::ok);
            return ldp::test::describe(p, rep);
          });
          const auto permanent = ldp::test::max_ratio(d, seed, [&](uint32_t x, ldp::test::enumerating_coins& c) {
            ldp::wire::report rep;
            REQUIRE(oracle->fields(x, c, &rep) == status::ok);
            return ldp::test::describe(p, rep);
          });
          CHECK_FALSE(both.infinite);
          CHECK_FALSE(permanent.infinite);
          CHECK(both.max_ratio <= bound(eps_1) * (1 + 1e-12L));
          CHECK(permanent.max_ratio <= bound(eps_inf) * (1 + 1e-12L));
          best_report = std::max(best_report, both.max_ratio);
          best_permanent = std::max(best_permanent, permanent.max_ratio);
          if (!hashed(p)) break;
        }
        CHECK(best_report >= bound(eps_1) * (1 - 1e-9L));
        CHECK(best_permanent >= bound(eps_inf) * (1 - 1e-9L));
      }
    }
  }
}

TEST_CASE("epsilon_1 is the composite channel's, neither stage's alone") {
  // The measured ratio of both stages is e^{epsilon_1}, strictly below the level of the
  // instantaneous stage alone (2 ln(I_k / I_o) for a one-hot pair) and of the permanent one, so an
  // epsilon_1 computed from either stage alone would fail the tightness check above.
  const auto memo = ldp::wire::make_memoized_oracle(mechanism::sue, 3.0, 1.0, 3);
  REQUIRE(memo.code == status::ok);
  const ldp::wire::params p = memo.block;
  ldp::test::owned_context<ldp::device::frequency_context> oracle(p);
  REQUIRE(oracle.code == status::ok);
  const auto both = ldp::test::max_ratio(3, 0, [&](uint32_t x, ldp::test::enumerating_coins& c) {
    ldp::wire::report rep;
    REQUIRE(oracle->memoized_fields(x, c, c, &rep) == status::ok);
    return ldp::test::describe(p, rep);
  });
  const double instant_only =
      2 * std::log(static_cast<double>(p.get(field::instant_keep)) / static_cast<double>(p.get(field::instant_other)));
  CHECK(both.max_ratio < bound(instant_only) * (1 - 1e-6L));
  CHECK(both.max_ratio < bound(ldp::wire::longitudinal_epsilon(p)) * (1 - 1e-6L));
  CHECK(both.max_ratio == doctest::Approx(static_cast<double>(bound(memo.epsilon_impl))).epsilon(1e-12));
}

TEST_CASE("permanent responses: a function of (secret, use case, block, item), the same on every kernel table") {
  const secret a(1), b(2);
  for (mechanism m : ldp::test::memoized_oracles()) {
    const std::string name = ldp::wire::mechanism_name(m);
    CAPTURE(name);
    constexpr uint32_t d = 40;
    const auto memo = ldp::wire::make_memoized_oracle(m, 4.0, 1.0, d);
    REQUIRE(memo.code == status::ok);
    const ldp::wire::params& p = memo.block;
    ldp::test::owned_context<ldp::device::frequency_context> oracle(p);
    REQUIRE(oracle.code == status::ok);
    const auto permanent = [&](const secret& s, uint32_t use_case, uint32_t item, const ldp::kernels::table& k) {
      ldp::wire::report rep;
      REQUIRE(oracle->permanent_fields(item, {s.bytes, use_case}, k, &rep) == status::ok);
      return ldp::test::describe(p, rep);
    };
    const auto& scalar = ldp::kernels::scalar();
    std::vector<std::string> reference;
    for (uint32_t item = 0; item < d; ++item) reference.push_back(permanent(a, 7, item, scalar));
    for (const auto* t : ldp::test::runnable_tables()) {
      CAPTURE(t->name);
      for (uint32_t item = 0; item < d; ++item) CHECK(permanent(a, 7, item, *t) == reference[item]);
    }
    // Another secret or use case: other responses (all 40 equal by chance has probability far
    // below 2^-40 for every oracle here).
    int same_secret = 0, same_use_case = 0;
    for (uint32_t item = 0; item < d; ++item) {
      same_secret += permanent(b, 7, item, scalar) == reference[item];
      same_use_case += permanent(a, 8, item, scalar) == reference[item];
    }
    CHECK(same_secret < static_cast<int>(d));
    CHECK(same_use_case < static_cast<int>(d));
    // Another block (its fingerprint is in the scope): other responses too.
    const auto other_block = ldp::wire::make_memoized_oracle(m, 4.0, 0.9, d);
    REQUIRE(other_block.code == status::ok);
    ldp::test::owned_context<ldp::device::frequency_context> other(other_block.block);
    REQUIRE(other.code == status::ok);
    int same_block = 0;
    for (uint32_t item = 0; item < d; ++item) {
      ldp::wire::report rep;
      REQUIRE(other->permanent_fields(item, {a.bytes, 7}, scalar, &rep) == status::ok);
      same_block += ldp::test::describe(other_block.block, rep) == reference[item];
    }
    CHECK(same_block < static_cast<int>(d));
    if (hashed(p)) {
      // The revealed seed is the device's: one for every item of a secret, another for another secret.
      std::set<std::string> seeds;
      for (uint32_t item = 0; item < d; ++item) {
        ldp::wire::report rep;
        REQUIRE(oracle->permanent_fields(item, {a.bytes, 7}, scalar, &rep) == status::ok);
        seeds.insert(std::to_string(rep.seed));
      }
      CHECK(seeds.size() == 1);
      ldp::wire::report rep;
      REQUIRE(oracle->permanent_fields(0, {b.bytes, 7}, scalar, &rep) == status::ok);
      CHECK(seeds.count(std::to_string(rep.seed)) == 0);
    }
    // Whole reports: the same DRBG seed and secret give the same bytes on every table.
    std::vector<unsigned char> first;
    for (const auto* t : ldp::test::runnable_tables()) {
      CAPTURE(t->name);
      auto rng = ldp::test::seeded_drbg("memoized report bytes", *t);
      std::vector<unsigned char> bytes;
      for (uint32_t item = 0; item < d; ++item) {
        std::vector<unsigned char> out(ldp::wire::max_report_size(p));
        std::size_t size = 0;
        REQUIRE(oracle->randomize_memoized(item, {a.bytes, 7}, rng, out, ldp::device::framing::report, &size) ==
                status::ok);
        bytes.insert(bytes.end(), out.begin(), out.begin() + static_cast<std::ptrdiff_t>(size));
      }
      if (first.empty()) first = bytes;
      CHECK(bytes == first);
    }
  }
}

TEST_CASE("no path skips the permanent stage") {
  const secret a(1);
  const auto memo = ldp::wire::make_memoized_oracle(mechanism::oue, 2.0, 1.0, 10).block;
  const auto plain = ldp::wire::make_oue(1.0, 10).block;
  auto rng = ldp::test::seeded_drbg("memoized refusals");
  std::vector<unsigned char> out(ldp::wire::max_report_size(memo));
  std::size_t size = 1;
  ldp::test::owned_context<ldp::device::frequency_context> memoized(memo);
  REQUIRE(memoized.code == status::ok);
  ldp::test::owned_context<ldp::device::frequency_context> ordinary(plain);
  REQUIRE(ordinary.code == status::ok);
  // A memoized block through the plain entry: refused, nothing written.
  CHECK(memoized->randomize(3, rng, out, ldp::device::framing::report, &size) == status::invalid_argument);
  CHECK(size == 0);
  // A plain block through the memoized entries.
  size = 1;
  CHECK(ordinary->randomize_memoized(3, {a.bytes, 7}, rng, out, ldp::device::framing::report, &size) ==
        status::invalid_argument);
  CHECK(size == 0);
  ldp::wire::report rep;
  CHECK(ordinary->permanent_fields(3, {a.bytes, 7}, ldp::kernels::scalar(), &rep) == status::invalid_argument);
  ldp::device::drbg_coins coins(rng);
  CHECK(ordinary->memoized_fields(3, coins, coins, &rep) == status::invalid_argument);
  // No secret; an item outside [0, d).
  size = 1;
  CHECK(memoized->randomize_memoized(3, {nullptr, 7}, rng, out, ldp::device::framing::report, &size) ==
        status::invalid_argument);
  CHECK(size == 0);
  CHECK(memoized->randomize_memoized(10, {a.bytes, 7}, rng, out, ldp::device::framing::report, &size) ==
        status::out_of_range);
  CHECK(size == 0);
  CHECK(memoized->randomize_memoized(9, {a.bytes, 7}, rng, out, ldp::device::framing::payload, &size) == status::ok);
  CHECK(size == ldp::wire::max_payload_size(memo));
  // The instantaneous masks (which with the report would give the permanent bits back) are wiped;
  // the first word is the report's bits.
  REQUIRE(memoized.workspace.size() == 24);
  for (std::size_t i = 8; i < memoized.workspace.size(); ++i) CHECK(memoized.workspace[i] == std::byte{0});
  // A context that never initialized.
  ldp::device::frequency_context none;
  CHECK(none.randomize_memoized(3, {a.bytes, 7}, rng, out, ldp::device::framing::report, &size) ==
        status::invalid_argument);
  // Memoized unary blocks hold the two instantaneous masks besides the permanent bits; the plain
  // block's workspace is unchanged.
  CHECK(ldp::device::frequency_context::workspace_size(memo) ==
        3 * ldp::device::frequency_context::workspace_size(plain));
  CHECK(ldp::device::frequency_context::workspace_size(plain) == 8);
  const auto olh = ldp::wire::make_memoized_oracle(mechanism::olh, 2.0, 1.0, 10).block;
  CHECK(ldp::device::frequency_context::workspace_size(olh) == 0);
}

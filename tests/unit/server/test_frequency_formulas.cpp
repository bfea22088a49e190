// Server side of the frequency oracles, estimates and variances (docs/mechanisms.md A.0-A.8):
// each oracle against hand-computed values and the naive references, the FWHT decodes against
// dense products, confidence levels, and the oracle recommendation.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "frequency_fixture.h"

using namespace ldp::test::frequency;

TEST_CASE("GRR: point mass and edge items against the A.1 formulas") {
  const params p = block(mechanism::grr);
  const double pk = prob(p, field::threshold_keep), q = (1 - pk) / 9;
  aggregator a = make(p);
  // 100 reports of item 3, 20 of 7, 5 of 0 and 5 of 9 (the [r >= v] edges).
  const std::pair<uint32_t, int> plan[] = {{3, 100}, {7, 20}, {0, 5}, {9, 5}};
  for (const auto& [item, count] : plan) {
    ldp::wire::report r;
    r.index = item;
    const bytes b = encode(p, r);
    for (int i = 0; i < count; ++i) REQUIRE(a->add_report(b) == status::ok);
  }
  REQUIRE(a->reports() == 130);
  const std::vector<estimate> e = a->estimate_all();
  REQUIRE(e.size() == 10);
  const double n = 130;
  const double support[10] = {5, 0, 0, 100, 0, 0, 0, 20, 0, 5};
  for (uint32_t v = 0; v < 10; ++v) {
    const double c = (support[v] - n * q) / (pk - q);
    check(e[v], c, n * q * (1 - q) / ((pk - q) * (pk - q)) + clip(c, n) * (1 - pk - q) / (pk - q));
  }
  // All reports = item 3: c-hat_3 = (n - n q)/(p - q).
  aggregator b = make(p);
  ldp::wire::report r;
  r.index = 3;
  const bytes three = encode(p, r);
  for (int i = 0; i < 50; ++i) REQUIRE(b->add_report(three) == status::ok);
  CHECK(b->estimate_all()[3].value == doctest::Approx((50 - 50 * q) / (pk - q)).epsilon(1e-12));
}

TEST_CASE("SUE: one-hot reports, and a variance independent of c_v (A.2)") {
  const params p = block(mechanism::sue, 1.0, 12);
  const double pk = prob(p, field::threshold_keep), q = prob(p, field::threshold_other);
  CHECK(pk + q == 1.0);
  aggregator a = make(p);
  // 40 exact one-hot vectors of item 3, 10 of item 11.
  for (int i = 0; i < 50; ++i) {
    const unsigned item = i < 40 ? 3 : 11;
    unsigned char bits[2] = {0, 0};
    bits[item / 8] = static_cast<unsigned char>(1u << (item % 8));
    ldp::wire::report r;
    r.bits = span<const unsigned char>(bits, 2);
    REQUIRE(a->add_report(view(encode(p, r))) == status::ok);
  }
  const std::vector<estimate> e = a->estimate_all();
  const double n = 50, lead = n * pk * q / ((pk - q) * (pk - q));
  for (uint32_t v = 0; v < 12; ++v) {
    const double support = v == 3 ? 40 : v == 11 ? 10 : 0;
    check(e[v], (support - n * q) / (pk - q), lead);
  }
  // Ideal-parameter closed form n e^{eps/2}/(e^{eps/2} - 1)^2, up to the threshold rounding.
  const double h = std::exp(0.5);
  CHECK(e[0].variance == doctest::Approx(n * h / ((h - 1) * (h - 1))).epsilon(1e-6));
}

TEST_CASE("every pure oracle matches the naive support-counting reference") {
  for (mechanism m : {mechanism::grr, mechanism::sue, mechanism::oue, mechanism::blh, mechanism::olh, mechanism::hr}) {
    const std::string oracle_name = ldp::wire::mechanism_name(m);
    CAPTURE(oracle_name);
    const params p = block(m, 1.0, m == mechanism::oue ? 20 : 10);
    const std::vector<bytes> reports = random_reports(p, ldp::wire::mechanism_name(m), 300);
    aggregator a = make(p);
    for (const bytes& b : reports) REQUIRE(a->add_report(b) == status::ok);
    check_all(a->estimate_all(), reference_pure(p, decode_all(p, reports)));
  }
}

TEST_CASE("OUE: the c_v coefficient of the variance is exactly 1 (A.3)") {
  const params p = block(mechanism::oue, 1.0, 20);
  CHECK(prob(p, field::threshold_keep) == 0.5);
  const std::vector<bytes> reports = random_reports(p, "oue variance", 100);
  aggregator a = make(p);
  for (const bytes& b : reports) REQUIRE(a->add_report(b) == status::ok);
  const double q = prob(p, field::threshold_other), lead = 100 * q * (1 - q) / ((0.5 - q) * (0.5 - q));
  for (const estimate& e : a->estimate_all()) {
    CHECK(e.variance == doctest::Approx(lead + clip(e.value, 100)).epsilon(1e-12));
  }
}

TEST_CASE("OLH/BLH: every report supports item 3, and the server uses q* = 1/g (A.4)") {
  for (mechanism m : {mechanism::blh, mechanism::olh}) {
    const params p = block(m);
    const auto g = static_cast<uint32_t>(p.get(field::hash_range));
    CHECK((m == mechanism::blh ? g == 2 : g >= 5));
    const double pk = prob(p, field::threshold_keep), q = 1.0 / g;
    auto rng = ldp::test::seeded_drbg("olh support");
    aggregator a = make(p);
    const int n = 200;
    for (int i = 0; i < n; ++i) {
      ldp::wire::report r;
      r.seed = rng.next_u64();
      r.index = ldp::wire::hash_to_range(ldp::wire::report_hash_key(r.seed), 3, g);
      REQUIRE(a->add_report(view(encode(p, r))) == status::ok);
    }
    const estimate e = a->estimate_all()[3];
    const double c = (n - n * q) / (pk - q);
    check(e, c, n * q * (1 - q) / ((pk - q) * (pk - q)) + clip(c, n) * (1 - pk - q) / (pk - q));
  }
}

TEST_CASE("HR: reports inside C_3, and the FWHT decode equals the dense Hadamard product (A.5)") {
  const params p = block(mechanism::hr, 1.0, 10);
  const uint64_t k = p.get(field::hadamard_dim);
  REQUIRE(k == 16);
  const double pk = prob(p, field::threshold_keep);
  aggregator a = make(p);
  std::vector<double> hist(static_cast<std::size_t>(k), 0.0);
  auto rng = ldp::test::seeded_drbg("hr in C_3");
  const int n = 120;
  for (int i = 0; i < n; ++i) {
    uint32_t y = 0;
    do {
      y = rng.next_u32() % 16;
    } while (hadamard(4, y) != 1);  // row v + 1 = 4
    ldp::wire::report r;
    r.index = y;
    REQUIRE(a->add_report(view(encode(p, r))) == status::ok);
    hist[y] += 1;
  }
  const std::vector<estimate> e = a->estimate_all();
  for (uint32_t v = 0; v < 10; ++v) {
    double dense = 0;  // (H h)[v + 1] = 2 S_{v+1} - n
    for (std::size_t y = 0; y < hist.size(); ++y) dense += hadamard(v + 1, y) * hist[y];
    const double c = dense / (2 * pk - 1);
    check(e[v], c, n / ((2 * pk - 1) * (2 * pk - 1)) - clip(c, n));
  }
  CHECK(e[3].value == doctest::Approx(n / (2 * pk - 1)).epsilon(1e-12));
}

TEST_CASE("block HR: the per-block FWHT decode equals the dense sum, with the block variance (A.5)") {
  // d = 20 items in B = 7 blocks of K - 1 = 3 (the last holds 2), epsilon 3; 500 random reports
  // over [0, B K).
  const params p = ldp::wire::make_hr(3.0, 20, 4).block;
  REQUIRE(ldp::wire::hr_blocks(p) == 7);
  const double pk = prob(p, field::threshold_keep), o = (1 - pk) / 13, s = pk - o;
  aggregator a = make(p);
  std::vector<double> hist(28, 0.0);
  auto rng = ldp::test::seeded_drbg("block hr decode");
  const int n = 500;
  for (int i = 0; i < n; ++i) {
    ldp::wire::report r;
    r.index = rng.next_u32() % 28;
    REQUIRE(a->add_report(view(encode(p, r))) == status::ok);
    hist[r.index] += 1;
  }
  const std::vector<estimate> e = a->estimate_all();
  REQUIRE(e.size() == 20);
  for (uint32_t v = 0; v < 20; ++v) {
    CAPTURE(v);
    const uint32_t block = v / 3, row = v % 3 + 1;
    double dense = 0, in_block = 0;  // sum of H_4[row, z] over block v's reports, and their number
    for (uint32_t z = 0; z < 4; ++z) {
      dense += hadamard(row, z) * hist[block * 4 + z];
      in_block += hist[block * 4 + z];
    }
    const double c = dense / s;
    // N_j clamped to [n m_out, n m_in]: c_J clipped to [0, n].
    const double clamped = std::min(std::max(in_block, n * 2 * o), n * (pk + o));
    check(e[v], c, clamped / (s * s) - clip(c, n));
  }
}

TEST_CASE("CMS and HCMS match the reference (HCMS: row FWHT equals the dense product)") {
  for (mechanism m : {mechanism::cms, mechanism::hcms}) {
    const std::string oracle_name = ldp::wire::mechanism_name(m);
    CAPTURE(oracle_name);
    const params p = block(m, 2.0, 40);
    const std::vector<bytes> reports = random_reports(p, ldp::wire::mechanism_name(m), 400);
    aggregator a = make(p);
    for (const bytes& b : reports) REQUIRE(a->add_report(b) == status::ok);
    check_all(a->estimate_all(), reference_sketch(p, decode_all(p, reports)));
    // The conditional form on a sparse family (16 d <= k m) of 16 rows of 64 buckets.
    static const unsigned char seed[32] = {9};
    const params sparse =
        (m == mechanism::cms ? ldp::wire::make_cms(2.0, 40, 16, 64, seed) : ldp::wire::make_hcms(2.0, 40, 16, 64, seed))
            .block;
    const std::vector<bytes> sparse_reports = random_reports(sparse, "sparse family", 400);
    aggregator s = make(sparse);
    for (const bytes& b : sparse_reports) REQUIRE(s->add_report(b) == status::ok);
    check_all(s->estimate_all(), reference_sketch(sparse, decode_all(sparse, sparse_reports)));
    for (const estimate& e : s->estimate_all()) CHECK(e.kind == ldp::server::variance_kind::exact);
    // estimate_items: same counts; the collision term covers the distinct candidates only.
    const uint32_t items[] = {5, 5, 17};
    const std::vector<estimate> some = a->estimate_items(items);
    REQUIRE(some.size() == 3);
    CHECK(some[0].value == a->estimate_all()[5].value);
    CHECK(some[0].variance == some[1].variance);
    CHECK(some[2].value == a->estimate_all()[17].value);
  }
}

TEST_CASE("variance kinds: exact, averaged over the public functions, or a bound (A.4, A.6)") {
  for (mechanism m : {mechanism::grr, mechanism::sue, mechanism::oue, mechanism::blh, mechanism::olh, mechanism::hr,
                      mechanism::flh, mechanism::cms, mechanism::hcms}) {
    const std::string oracle_name = ldp::wire::mechanism_name(m);
    CAPTURE(oracle_name);
    const params p = block(m, 2.0, 40);
    aggregator a = make(p);
    for (const bytes& b : random_reports(p, oracle_name.c_str(), 200)) REQUIRE(a->add_report(b) == status::ok);
    // FLH's shared-function term averages over the functions, and so do the sketches' on this dense
    // family (4 rows of 16 buckets over 40 items: 16 d > k m); every other variance is exact.
    const bool sketch = m == mechanism::cms || m == mechanism::hcms;
    const ldp::server::variance_kind want =
        m == mechanism::flh || sketch ? ldp::server::variance_kind::average : ldp::server::variance_kind::exact;
    for (const estimate& e : a->estimate_all()) CHECK(e.kind == want);
    // A candidate list of the sketches: the items outside it are unknown, the average remains.
    const uint32_t items[] = {3, 17};
    for (const estimate& e : a->estimate_items(items)) {
      CHECK(e.kind == (sketch ? ldp::server::variance_kind::average : want));
    }
  }
  CHECK(std::string(ldp::server::variance_kind_name(ldp::server::variance_kind::bound)) == "bound");
}

TEST_CASE("CMS and HCMS: a family with too many shared buckets to pair gives an upper bound") {
  // k = 384 rows of m = 2 buckets over 24 items (sparse enough: 16 d <= k m): 132 pairs per row,
  // 50,688 in all, pass the budget of 4 k (d + m) = 39,936, so the second moment of the collisions
  // takes its lower bound first / k.
  static const unsigned char seed[32] = {7};
  for (mechanism m : {mechanism::cms, mechanism::hcms}) {
    const std::string oracle_name = ldp::wire::mechanism_name(m);
    CAPTURE(oracle_name);
    const params p =
        (m == mechanism::cms ? ldp::wire::make_cms(2.0, 24, 384, 2, seed) : ldp::wire::make_hcms(2.0, 24, 384, 2, seed))
            .block;
    const std::vector<bytes> reports = random_reports(p, oracle_name.c_str(), 400);
    aggregator a = make(p);
    for (const bytes& b : reports) REQUIRE(a->add_report(b) == status::ok);
    const std::vector<estimate> got = a->estimate_all();
    const std::vector<expected> exact = reference_sketch(p, decode_all(p, reports));
    REQUIRE(got.size() == exact.size());
    bool above = false;
    for (std::size_t i = 0; i < got.size(); ++i) {
      CAPTURE(i);
      CHECK(got[i].kind == ldp::server::variance_kind::bound);
      CHECK(got[i].value == doctest::Approx(exact[i].count).epsilon(1e-9));
      CHECK(got[i].variance >= exact[i].variance * (1 - 1e-12));
      above = above || got[i].variance > exact[i].variance * (1 + 1e-9);
    }
    CHECK(above);  // some item meets another in both rows
  }
}

TEST_CASE("CMS and HCMS: noise-free encodings of one item") {
  // Every report is the exact (unflipped) encoding of item 7: the estimate follows the formulas
  // with those counts, and exceeds the count of any item that never collides with 7.
  for (mechanism m : {mechanism::cms, mechanism::hcms}) {
    const std::string oracle_name = ldp::wire::mechanism_name(m);
    CAPTURE(oracle_name);
    const params p = block(m, 2.0, 40);
    const uint32_t k = 4, mm = 16;
    aggregator a = make(p);
    std::vector<bytes> reports;
    for (uint32_t i = 0; i < 64; ++i) {
      const uint32_t j = i % k;
      const uint32_t h = ldp::wire::sketch_hash(sketch_seed)(j, 7, mm);
      ldp::wire::report r;
      r.index = j;
      unsigned char bits[2] = {0, 0};
      if (m == mechanism::cms) {
        bits[h / 8] = static_cast<unsigned char>(1u << (h % 8));
        r.bits = span<const unsigned char>(bits, 2);
      } else {
        r.column = (i / k) % mm;
        r.bit = hadamard(r.column, h) == 1 ? 1 : 0;
      }
      reports.push_back(encode(p, r));
      REQUIRE(a->add_report(reports.back()) == status::ok);
    }
    const std::vector<estimate> all = a->estimate_all();
    check_all(all, reference_sketch(p, decode_all(p, reports)));
    for (const estimate& e : all) CHECK(e.value <= all[7].value);
  }
}

TEST_CASE("confidence levels: z by inverting the normal CDF") {
  const params p = block(mechanism::grr);
  aggregator a = make(p);
  for (const bytes& b : random_reports(p, "confidence", 50)) REQUIRE(a->add_report(b) == status::ok);
  const estimate e95 = a->estimate_all(0.95)[2];
  CHECK((e95.ci_high - e95.value) / std::sqrt(e95.variance) == doctest::Approx(z95).epsilon(1e-12));
  const estimate e99 = a->estimate_all(0.99)[2];
  CHECK((e99.ci_high - e99.value) / std::sqrt(e99.variance) == doctest::Approx(2.5758293035489004).epsilon(1e-12));
  const estimate e50 = a->estimate_all(0.5)[2];
  CHECK((e50.value - e50.ci_low) / std::sqrt(e50.variance) == doctest::Approx(0.6744897501960817).epsilon(1e-12));
  const estimate zero = a->estimate_all(0.0)[2];
  CHECK(zero.ci_low == zero.value);
  CHECK(std::isnan(a->estimate_all(1.5)[2].ci_low));
  // Candidates outside the domain come back as NaN, the others as in estimate_all.
  const uint32_t items[] = {4, 10, 4};
  const std::vector<estimate> some = a->estimate_items(items);
  REQUIRE(some.size() == 3);
  CHECK(some[0].value == a->estimate_all()[4].value);
  CHECK(some[1].item == 10);
  CHECK(std::isnan(some[1].value));
  CHECK(some[2].value == some[0].value);
}

TEST_CASE("recommend: GRR for small domains, OUE/OLH for large ones (A.8)") {
  const auto rank = [](const std::vector<ldp::server::recommendation>& r, mechanism m) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (r[i].mech == m) return static_cast<int>(i);
    }
    return -1;
  };
  const auto small = ldp::server::recommend(4, 4.0, 10000);
  REQUIRE(!small.empty());
  CHECK(small[0].mech == mechanism::grr);
  const auto large = ldp::server::recommend(10000, 1.0, 10000);
  REQUIRE(large.size() == 9);
  CHECK((large[0].mech == mechanism::oue || large[0].mech == mechanism::olh));
  CHECK(rank(large, mechanism::grr) > rank(large, mechanism::oue));
  // The GRR/OUE boundary d = 3 e^eps + 2 (24.2 at eps = 2), with implemented parameters.
  const auto below = ldp::server::recommend(20, 2.0, 1000);
  const auto above = ldp::server::recommend(30, 2.0, 1000);
  CHECK(rank(below, mechanism::grr) < rank(below, mechanism::oue));
  CHECK(rank(above, mechanism::grr) > rank(above, mechanism::oue));
  for (const auto* list : {&small, &large, &below, &above}) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      const auto& r = (*list)[i];
      if (i > 0) CHECK((*list)[i - 1].variance_per_report <= r.variance_per_report);
      CHECK(r.variance_per_report > 0);
      CHECK(r.report_bytes > 10);
    }
  }
  // The entries agree with the blocks they describe.
  for (const auto& r : large) {
    const std::string oracle_name = ldp::wire::mechanism_name(r.mech);
    CAPTURE(oracle_name);
    CHECK(r.std_error == doctest::Approx(std::sqrt(10000 * r.variance_per_report)));
    if (r.mech == mechanism::oue) {
      const params p = ldp::wire::make_oue(1.0, 10000).block;
      const double q = prob(p, field::threshold_other);
      CHECK(r.variance_per_report == doctest::Approx(q * (1 - q) / ((0.5 - q) * (0.5 - q))));
      CHECK(r.report_bytes == ldp::wire::max_report_size(p));
    }
    if (r.mech == mechanism::hr) {
      const params p = ldp::wire::make_hr(1.0, 10000).block;
      const double pk = prob(p, field::threshold_keep);
      CHECK(r.variance_per_report == doctest::Approx(1 / ((2 * pk - 1) * (2 * pk - 1))));
    }
    if (r.mech == mechanism::cms || r.mech == mechanism::hcms) {
      CHECK(r.g_or_k == 16);
      CHECK(r.m == 1024);
    }
    if (r.mech == mechanism::olh) CHECK(r.g_or_k >= 3);
  }
  CHECK(ldp::server::recommend(1, 1.0, 10).empty());
  CHECK(ldp::server::recommend(10, -1.0, 10).empty());
}

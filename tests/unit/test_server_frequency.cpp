// Server side of the frequency oracles (MECHANISMS.md A.0-A.9): estimates and variances against
// hand-computed values and a naive reference, the FWHT decodes against dense products, merge order
// independence, saved state round trips and corruption, rejection counting, batches,
// post-processing invariants and the oracle recommendation. Reports are built by hand with
// wire::encode_report, so these tests do not depend on the device randomizers.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ldp/server.h"
#include "ldp/wire.h"
#include "tables.h"
#include "wire_examples.h"

using ldp::span;
using ldp::status;
using ldp::server::estimate;
using ldp::server::frequency_aggregator;
using ldp::wire::field;
using ldp::wire::mechanism;
using ldp::wire::params;

namespace {

using bytes = std::vector<unsigned char>;
using aggregator = std::unique_ptr<frequency_aggregator>;

const unsigned char sketch_seed[32] = {0x42, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                       17,   18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};

const std::vector<mechanism> oracles = ldp::test::mechanisms_of(ldp::wire::mechanism_family::frequency_oracle);

constexpr double z95 = 1.959963984540054;  // two-sided 95% normal quantile

// Blocks used throughout: small domains, epsilon 1 (1.5 for OLH: e^1.5 + 1 = 5.48 is not an
// integer), sketches of k = 4 rows by m = 16 columns.
params block(mechanism m, double eps = 1.0, uint32_t d = 10) {
  ldp::wire::derived_params r;
  switch (m) {
    case mechanism::grr: r = ldp::wire::make_grr(eps, d); break;
    case mechanism::sue: r = ldp::wire::make_sue(eps, d); break;
    case mechanism::oue: r = ldp::wire::make_oue(eps, d); break;
    case mechanism::blh: r = ldp::wire::make_blh(eps, d); break;
    case mechanism::olh: r = ldp::wire::make_olh(eps + 0.5, d); break;
    case mechanism::hr: r = ldp::wire::make_hr(eps, d); break;
    case mechanism::cms: r = ldp::wire::make_cms(eps, d, 4, 16, sketch_seed); break;
    default: r = ldp::wire::make_hcms(eps, d, 4, 16, sketch_seed); break;
  }
  REQUIRE(r.code == status::ok);
  REQUIRE(r.block.mech == m);
  return r.block;
}

aggregator make(const params& p) {
  aggregator a;
  REQUIRE(frequency_aggregator::create(p, &a) == status::ok);
  REQUIRE(a != nullptr);
  return a;
}

bytes encode(const params& p, const ldp::wire::report& r) {
  bytes out(ldp::wire::max_report_size(p));
  std::size_t n = 0;
  REQUIRE(ldp::wire::encode_report(p, ldp::wire::fingerprint(p), r, out, &n) == status::ok);
  out.resize(n);
  return out;
}

span<const unsigned char> view(const bytes& b) { return {b.data(), b.size()}; }

bytes payload_of(const bytes& report) { return bytes(report.begin() + 10, report.end()); }

double prob(const params& p, field f) {
  return std::ldexp(static_cast<double>(p.get(f)), -static_cast<int>(p.get(field::threshold_bits)));
}

double clip(double c, double n) { return c < 0 ? 0 : c > n ? n : c; }

bytes random_bits(ldp::random::drbg& rng, uint64_t nbits) {
  bytes b(static_cast<std::size_t>((nbits + 7) / 8));
  rng.fill(b);
  if (nbits % 8 != 0) b.back() = static_cast<unsigned char>(b.back() & ((1u << (nbits % 8)) - 1));
  return b;
}

// A valid report with random fields.
bytes random_report(const params& p, ldp::random::drbg& rng) {
  ldp::wire::report r;
  bytes bits;
  const uint64_t d = p.get(field::domain);
  switch (ldp::wire::kind_of(p.mech)) {
    case ldp::wire::payload_kind::index: {
      const uint64_t bound = p.mech == mechanism::hr ? p.get(field::hadamard_dim) : d;
      r.index = static_cast<uint32_t>(rng.next_u32() % bound);
      break;
    }
    case ldp::wire::payload_kind::unary_bits:
      bits = random_bits(rng, d);
      r.bits = bits;
      break;
    case ldp::wire::payload_kind::hash_bucket:
      r.seed = rng.next_u64();
      r.index = static_cast<uint32_t>(rng.next_u32() % p.get(field::hash_range));
      break;
    case ldp::wire::payload_kind::sketch_row:
      r.index = static_cast<uint32_t>(rng.next_u32() % p.get(field::sketch_rows));
      bits = random_bits(rng, p.get(field::sketch_columns));
      r.bits = bits;
      break;
    default:
      r.index = static_cast<uint32_t>(rng.next_u32() % p.get(field::sketch_rows));
      r.column = static_cast<uint32_t>(rng.next_u32() % p.get(field::sketch_columns));
      r.bit = static_cast<uint8_t>(rng.next_u32() & 1);
      break;
  }
  return encode(p, r);
}

std::vector<bytes> random_reports(const params& p, const char* name, int count) {
  auto rng = ldp::test::seeded_drbg(name);
  std::vector<bytes> out;
  for (int i = 0; i < count; ++i) out.push_back(random_report(p, rng));
  return out;
}

std::vector<ldp::wire::report> decode_all(const params& p, const std::vector<bytes>& reports) {
  std::vector<ldp::wire::report> out;
  for (const bytes& b : reports) {
    ldp::wire::report r;
    REQUIRE(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), b, &r) == status::ok);
    out.push_back(r);
  }
  return out;
}

int hadamard(uint64_t r, uint64_t y) {
  uint64_t x = r & y;
  int parity = 0;
  while (x != 0) {
    parity ^= static_cast<int>(x & 1);
    x >>= 1;
  }
  return parity == 0 ? 1 : -1;
}

bool bit_of(span<const unsigned char> bits, uint64_t j) {
  return ((bits[static_cast<std::size_t>(j / 8)] >> (j % 8)) & 1) != 0;
}

struct expected {
  double count;
  double variance;
};

// Naive reference for the pure oracles: C_v by testing every report's support, then the A.0
// template written out (HR: the dense O(n K) sum; q = 1/2).
std::vector<expected> reference_pure(const params& p, const std::vector<ldp::wire::report>& rs) {
  const uint64_t d = p.get(field::domain);
  const auto n = static_cast<double>(rs.size());
  const double pk = prob(p, field::threshold_keep);
  double q = 0;
  switch (p.mech) {
    case mechanism::grr: q = (1 - pk) / static_cast<double>(d - 1); break;
    case mechanism::sue:
    case mechanism::oue: q = prob(p, field::threshold_other); break;
    case mechanism::blh:
    case mechanism::olh: q = 1.0 / static_cast<double>(p.get(field::hash_range)); break;
    default: q = 0.5; break;
  }
  std::vector<expected> out;
  for (uint32_t v = 0; v < d; ++v) {
    double support = 0;
    for (const auto& r : rs) {
      bool s = false;
      switch (p.mech) {
        case mechanism::grr: s = r.index == v; break;
        case mechanism::sue:
        case mechanism::oue: s = bit_of(r.bits, v); break;
        case mechanism::blh:
        case mechanism::olh:
          s = ldp::wire::hash_to_range(ldp::wire::report_hash_key(r.seed), v,
                                       static_cast<uint32_t>(p.get(field::hash_range))) == r.index;
          break;
        default: s = hadamard(v + 1, r.index) == 1; break;
      }
      support += s ? 1 : 0;
    }
    const double c = (support - n * q) / (pk - q);
    const double var = n * q * (1 - q) / ((pk - q) * (pk - q)) + clip(c, n) * (1 - pk - q) / (pk - q);
    out.push_back({c, var});
  }
  return out;
}

// Naive reference for CMS/HCMS: the integer state rebuilt from the reports, the finalized sketch
// by definition (HCMS: the dense O(m^2) Hadamard product per row), f-hat and the A.6 variance with
// the collision term over all d items.
std::vector<expected> reference_sketch(const params& p, const std::vector<ldp::wire::report>& rs) {
  const uint64_t d = p.get(field::domain);
  const uint32_t k = static_cast<uint32_t>(p.get(field::sketch_rows));
  const uint32_t m = static_cast<uint32_t>(p.get(field::sketch_columns));
  const double c = 1 / (1 - 2 * prob(p, field::threshold_other));
  const auto n = static_cast<double>(rs.size());
  std::vector<double> nj(k, 0.0), cell(std::size_t{k} * m, 0.0);
  for (const auto& r : rs) {
    nj[r.index] += 1;
    if (p.mech == mechanism::cms) {
      for (uint32_t l = 0; l < m; ++l) cell[r.index * m + l] += bit_of(r.bits, l) ? 1 : 0;
    } else {
      cell[r.index * m + r.column] += r.bit != 0 ? 1 : -1;
    }
  }
  std::vector<double> sketch(cell.size());
  for (uint32_t j = 0; j < k; ++j) {
    for (uint32_t l = 0; l < m; ++l) {
      if (p.mech == mechanism::cms) {
        sketch[j * m + l] = k * ((c / 2) * (2 * cell[j * m + l] - nj[j]) + nj[j] / 2);
      } else {
        double dense = 0;
        for (uint32_t t = 0; t < m; ++t) dense += hadamard(l, t) * cell[j * m + t];
        sketch[j * m + l] = k * c * dense;
      }
    }
  }
  std::vector<double> f(static_cast<std::size_t>(d));
  const double mm = m;
  for (uint32_t x = 0; x < d; ++x) {
    double sum = 0;
    for (uint32_t j = 0; j < k; ++j) {
      sum += sketch[j * m + ldp::wire::sketch_hash(p.hash_seed)(j, x, m)];
    }
    f[x] = (mm / (mm - 1)) * (sum / k - n / mm);
  }
  std::vector<expected> out;
  for (uint32_t x = 0; x < d; ++x) {
    double collisions = 0;
    for (uint32_t y = 0; y < d; ++y) {
      const double fy = clip(f[y], n);
      if (y != x) collisions += std::max(fy * (fy - 1), 0.0);
    }
    collisions /= k * (mm - 1);
    const double fx = clip(f[x], n), r2 = (mm / (mm - 1)) * (mm / (mm - 1));
    const double var = p.mech == mechanism::cms
                           ? r2 * n * (c * c - 1) / 4 + (n - fx) / (mm - 1) + collisions
                           : r2 * (n * c * c - fx - (n - fx) / (mm * mm)) + collisions;
    out.push_back({f[x], var});
  }
  return out;
}

void check(const estimate& e, double count, double variance) {
  CHECK(e.value == doctest::Approx(count).epsilon(1e-9));
  CHECK(e.variance == doctest::Approx(variance).epsilon(1e-9));
  const double half = z95 * std::sqrt(variance);
  CHECK(e.ci_low == doctest::Approx(count - half).epsilon(1e-9));
  CHECK(e.ci_high == doctest::Approx(count + half).epsilon(1e-9));
}

void check_all(const std::vector<estimate>& got, const std::vector<expected>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i].item == i);
    check(got[i], want[i].count, want[i].variance);
  }
}

bool same_estimates(const std::vector<estimate>& a, const std::vector<estimate>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].item != b[i].item || a[i].value != b[i].value || a[i].variance != b[i].variance) return false;
  }
  return true;
}

// A state file around a given body (the header recomputed, so the body checks are reached).
bytes with_body(mechanism m, uint64_t fp, const bytes& body) {
  bytes out(ldp::wire::state_header_size);
  REQUIRE(ldp::wire::encode_state_header(m, fp, body, out) == status::ok);
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

bytes body_of(const bytes& state) { return bytes(state.begin() + 32, state.end()); }

void put_le(bytes& b, std::size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<unsigned char>(v >> (8 * i));
}

std::size_t block_size(const bytes& body) { return std::size_t{body[0]} | std::size_t{body[1]} << 8; }

uint64_t rejected(const frequency_aggregator& a, status s) {
  return a.rejected()[static_cast<std::size_t>(s)];
}

}  // namespace

TEST_CASE("create accepts the eight oracles and rejects other blocks") {
  for (mechanism m : oracles) {
    const params p = block(m);
    aggregator a = make(p);
    CHECK(a->parameters().mech == m);
    CHECK(a->fingerprint() == ldp::wire::fingerprint(p));
    CHECK(a->reports() == 0);
  }
  aggregator a;
  CHECK(frequency_aggregator::create(ldp::test::example_params(mechanism::laplace), &a) ==
        status::invalid_parameters);
  CHECK(frequency_aggregator::create(params{}, &a) == status::unknown_mechanism);
  CHECK(a == nullptr);
  CHECK(frequency_aggregator::create(block(mechanism::grr), nullptr) == status::invalid_argument);
  // A block that validates but has no estimator: GRR with p-hat = q-hat (T = 2^w / d).
  params flat = block(mechanism::grr, 1.0, 4);
  flat.set(field::threshold_keep, uint64_t{1} << 30);
  CHECK(frequency_aggregator::create(flat, &a) == status::invalid_parameters);
  params half = block(mechanism::hr);
  half.set(field::threshold_keep, uint64_t{1} << 31);  // 2 p-hat - 1 = 0
  CHECK(frequency_aggregator::create(half, &a) == status::invalid_parameters);
  params fair = block(mechanism::cms);
  fair.set(field::threshold_other, uint64_t{1} << 31);  // c = 1/(1 - 2 q) undefined
  CHECK(frequency_aggregator::create(fair, &a) == status::invalid_parameters);
}

TEST_CASE("the user-level vote is counted as SUE, and the generic entry points serve every oracle") {
  const params vote = ldp::test::example_params(mechanism::kent_vote);
  aggregator a;
  REQUIRE(frequency_aggregator::create(vote, &a) == status::ok);
  std::unique_ptr<ldp::server::aggregator> any;
  CHECK(ldp::server::aggregator::create(params{}, &any) == status::unknown_mechanism);
  CHECK(ldp::server::aggregator::create(vote, nullptr) == status::invalid_argument);
  for (mechanism m : {mechanism::grr, mechanism::oue, mechanism::olh, mechanism::hcms, mechanism::kent_vote}) {
    CAPTURE(ldp::wire::mechanism_name(m));
    const params p = m == mechanism::kent_vote ? vote : block(m);
    REQUIRE(ldp::server::aggregator::create(p, &any) == status::ok);
    // A saved state read back through the generic entry point is the same state.
    const std::vector<unsigned char> state = any->serialize();
    std::unique_ptr<ldp::server::aggregator> back;
    REQUIRE(ldp::server::aggregator::deserialize(view(state), &back) == status::ok);
    CHECK(back->serialize() == state);
    CHECK(back->estimate_all().size() == p.get(field::domain));
  }
}

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
  for (mechanism m : {mechanism::grr, mechanism::sue, mechanism::oue, mechanism::blh, mechanism::olh,
                      mechanism::hr}) {
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

TEST_CASE("CMS and HCMS match the reference (HCMS: row FWHT equals the dense product)") {
  for (mechanism m : {mechanism::cms, mechanism::hcms}) {
    const std::string oracle_name = ldp::wire::mechanism_name(m);
    CAPTURE(oracle_name);
    const params p = block(m, 2.0, 40);
    const std::vector<bytes> reports = random_reports(p, ldp::wire::mechanism_name(m), 400);
    aggregator a = make(p);
    for (const bytes& b : reports) REQUIRE(a->add_report(b) == status::ok);
    check_all(a->estimate_all(), reference_sketch(p, decode_all(p, reports)));
    // estimate_items: same counts; the collision term covers the distinct candidates only.
    const uint32_t items[] = {5, 5, 17};
    const std::vector<estimate> some = a->estimate_items(items);
    REQUIRE(some.size() == 3);
    CHECK(some[0].value == a->estimate_all()[5].value);
    CHECK(some[0].variance == some[1].variance);
    CHECK(some[2].value == a->estimate_all()[17].value);
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
  CHECK((e99.ci_high - e99.value) / std::sqrt(e99.variance) ==
        doctest::Approx(2.5758293035489004).epsilon(1e-12));
  const estimate e50 = a->estimate_all(0.5)[2];
  CHECK((e50.value - e50.ci_low) / std::sqrt(e50.variance) ==
        doctest::Approx(0.6744897501960817).epsilon(1e-12));
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

TEST_CASE("merge: any split and any order serialize to identical bytes") {
  for (mechanism m : oracles) {
    const std::string oracle_name = ldp::wire::mechanism_name(m);
    CAPTURE(oracle_name);
    const params p = block(m);
    std::vector<bytes> reports = random_reports(p, "merge", 90);
    reports[10].pop_back();         // a truncated report in the first part
    reports[75][2] ^= 1;            // a foreign fingerprint in the last part
    aggregator whole = make(p);
    for (const bytes& b : reports) static_cast<void>(whole->add_report(b));
    aggregator part[3] = {make(p), make(p), make(p)};
    for (std::size_t i = 0; i < reports.size(); ++i) static_cast<void>(part[i / 30]->add_report(reports[i]));
    const bytes expected_bytes = whole->serialize();
    REQUIRE(!expected_bytes.empty());

    const int orders[][3] = {{0, 1, 2}, {2, 0, 1}, {1, 2, 0}, {2, 1, 0}};
    for (const auto& order : orders) {
      aggregator acc = make(p);
      for (int i : order) REQUIRE(acc->merge(*part[i]) == status::ok);
      CHECK(acc->serialize() == expected_bytes);
    }
    // A tree: (1 + 2) into a copy of 0.
    aggregator left, right;
    REQUIRE(frequency_aggregator::deserialize(view(part[0]->serialize()), &left) == status::ok);
    REQUIRE(frequency_aggregator::deserialize(view(part[1]->serialize()), &right) == status::ok);
    REQUIRE(right->merge(*part[2]) == status::ok);
    REQUIRE(left->merge(*right) == status::ok);
    CHECK(left->serialize() == expected_bytes);
    CHECK(left->reports() == 88);
    CHECK(rejected(*left, status::wrong_length) == 1);
    CHECK(rejected(*left, status::parameter_mismatch) == 1);
    CHECK(same_estimates(left->estimate_all(), whole->estimate_all()));
  }
}

TEST_CASE("merge refuses other parameters and leaves the state unchanged") {
  const params p = block(mechanism::grr);
  aggregator a = make(p);
  for (const bytes& b : random_reports(p, "foreign merge", 20)) REQUIRE(a->add_report(b) == status::ok);
  const bytes before = a->serialize();
  aggregator other_eps = make(block(mechanism::grr, 2.0));
  aggregator other_d = make(block(mechanism::grr, 1.0, 11));
  aggregator other_mech = make(block(mechanism::oue));
  for (const bytes& b : random_reports(other_eps->parameters(), "x", 5)) REQUIRE(other_eps->add_report(b) == status::ok);
  CHECK(a->merge(*other_eps) == status::parameter_mismatch);
  CHECK(a->merge(*other_d) == status::parameter_mismatch);
  CHECK(a->merge(*other_mech) == status::parameter_mismatch);
  CHECK(a->serialize() == before);
  // Merging a state into itself doubles it (OLH too, whose merge appends its own list).
  for (mechanism m : {mechanism::grr, mechanism::olh, mechanism::hcms}) {
    const params q = block(m);
    aggregator s = make(q), twice = make(q);
    for (const bytes& b : random_reports(q, "self", 12)) {
      REQUIRE(s->add_report(b) == status::ok);
      REQUIRE(twice->add_report(b) == status::ok);
      REQUIRE(twice->add_report(b) == status::ok);
    }
    REQUIRE(s->merge(*s) == status::ok);
    CHECK(s->serialize() == twice->serialize());
  }
}

TEST_CASE("merge past 2^62 reports is overflow and changes nothing") {
  const params p = block(mechanism::grr, 1.0, 4);
  aggregator a = make(p);
  bytes body = body_of(a->serialize());
  const std::size_t at_n = 2 + block_size(body);
  const uint64_t big = (uint64_t{1} << 61) + 1;
  put_le(body, at_n, big);
  put_le(body, at_n + 8 + 128, big);  // h[0] = n
  aggregator x, y;
  REQUIRE(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), body)), &x) == status::ok);
  REQUIRE(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), body)), &y) == status::ok);
  const bytes before = x->serialize();
  CHECK(x->merge(*y) == status::overflow);
  CHECK(x->serialize() == before);
  // n itself above 2^62 does not load.
  put_le(body, at_n, (uint64_t{1} << 62) + 1);
  put_le(body, at_n + 8 + 128, (uint64_t{1} << 62) + 1);
  CHECK(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), body)), &x) == status::overflow);
}

TEST_CASE("serialize / deserialize round trip for every oracle") {
  for (mechanism m : oracles) {
    const std::string oracle_name = ldp::wire::mechanism_name(m);
    CAPTURE(oracle_name);
    const params p = block(m);
    aggregator a = make(p);
    std::vector<bytes> reports = random_reports(p, "round trip", 40);
    reports.push_back(bytes{1, 2, 3});  // one rejection to carry along
    for (const bytes& b : reports) static_cast<void>(a->add_report(b));
    const bytes state = a->serialize();
    REQUIRE(state.size() > 32);
    CHECK(std::memcmp(state.data(), "LDPS", 4) == 0);
    aggregator b;
    REQUIRE(frequency_aggregator::deserialize(state, &b) == status::ok);
    CHECK(b->parameters().mech == m);
    CHECK(b->reports() == 40);
    CHECK(b->rejected() == a->rejected());
    CHECK(b->serialize() == state);
    CHECK(same_estimates(b->estimate_all(), a->estimate_all()));
    // And it keeps aggregating: one more report on both sides.
    const bytes more = random_reports(p, "round trip more", 1)[0];
    REQUIRE(a->add_report(more) == status::ok);
    REQUIRE(b->add_report(more) == status::ok);
    CHECK(b->serialize() == a->serialize());
  }
}

TEST_CASE("corrupted state: every byte flip, truncation and body mutation is handled") {
  for (mechanism m : oracles) {
    const std::string oracle_name = ldp::wire::mechanism_name(m);
    CAPTURE(oracle_name);
    const params p = m == mechanism::cms || m == mechanism::hcms
                         ? (m == mechanism::cms ? ldp::wire::make_cms(1.0, 10, 2, 4, sketch_seed)
                                                : ldp::wire::make_hcms(1.0, 10, 2, 4, sketch_seed))
                               .block
                         : block(m, 1.0, 4);
    aggregator a = make(p);
    for (const bytes& b : random_reports(p, "corrupt", 3)) REQUIRE(a->add_report(b) == status::ok);
    const bytes state = a->serialize();
    aggregator out;
    // Single-byte flips anywhere: a CRC or a header check catches every one.
    for (std::size_t i = 0; i < state.size(); ++i) {
      for (int mask : {0x01, 0x80, 0xff}) {
        bytes bad = state;
        bad[i] = static_cast<unsigned char>(bad[i] ^ mask);
        CAPTURE(i);
        CHECK(frequency_aggregator::deserialize(bad, &out) != status::ok);
        CHECK(out == nullptr);
      }
    }
    for (std::size_t size = 0; size < state.size(); ++size) {
      CHECK(frequency_aggregator::deserialize(span<const unsigned char>(state.data(), size), &out) != status::ok);
    }
    // Body flips behind a valid header reach the body checks: never a crash, and whatever loads is
    // canonical (it serializes back to the same bytes).
    const bytes body = body_of(state);
    const std::size_t counters = 2 + block_size(body) + 8;
    for (std::size_t i = 0; i < body.size(); ++i) {
      for (int mask : {0x01, 0x5a, 0xff}) {
        bytes b = body;
        b[i] = static_cast<unsigned char>(b[i] ^ mask);
        const bytes file = with_body(p.mech, a->fingerprint(), b);
        const status s = frequency_aggregator::deserialize(file, &out);
        CAPTURE(i);
        if (s == status::ok) {
          CHECK(out->serialize() == file);
        } else {
          CHECK(out == nullptr);
        }
        // For the histogram oracles only the 16 rejection counters (0: damaged chunks) may change freely.
        if (m == mechanism::grr || m == mechanism::hr) {
          CHECK((s == status::ok) == (i >= counters && i < counters + 128));
        }
      }
    }
    // Truncated and extended bodies behind a valid header.
    for (std::size_t cut = 0; cut < body.size(); ++cut) {
      const bytes file = with_body(p.mech, a->fingerprint(), bytes(body.begin(), body.begin() + static_cast<std::ptrdiff_t>(cut)));
      CHECK(frequency_aggregator::deserialize(file, &out) != status::ok);
    }
    bytes longer = body;
    longer.push_back(0);
    CHECK(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), longer)), &out) ==
          status::wrong_length);
  }
}

TEST_CASE("corrupted state: specific statuses") {
  const params p = block(mechanism::grr, 1.0, 4);
  aggregator a = make(p);
  for (const bytes& b : random_reports(p, "statuses", 5)) REQUIRE(a->add_report(b) == status::ok);
  const bytes state = a->serialize();
  const bytes body = body_of(state);
  aggregator out;
  bytes bad = state;
  bad[0] = 'X';
  CHECK(frequency_aggregator::deserialize(bad, &out) == status::malformed_report);
  bad = state;
  bad.pop_back();
  CHECK(frequency_aggregator::deserialize(bad, &out) == status::wrong_length);
  bad = state;
  bad.back() ^= 1;
  CHECK(frequency_aggregator::deserialize(bad, &out) == status::checksum_mismatch);
  // A header naming other parameters than the block in the body.
  CHECK(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint() ^ 1, body)), &out) ==
        status::parameter_mismatch);
  CHECK(frequency_aggregator::deserialize(view(with_body(mechanism::hr, a->fingerprint(), body)), &out) ==
        status::parameter_mismatch);
  // Counts that do not add up to n.
  bytes b = body;
  const std::size_t counts = 2 + block_size(body) + 8 + 128;
  b[counts] = static_cast<unsigned char>(b[counts] + 1);
  CHECK(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), b)), &out) == status::malformed_report);
  // Rejection counter 0 (ok) counts damaged batch chunks (issue 21).
  b = body;
  b[2 + block_size(body) + 8] = 1;
  REQUIRE(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), b)), &out) == status::ok);
  CHECK(out->damaged_chunks() == 1);
  CHECK(out->rejected_total() == 0);
  // A block length past the body.
  b = body;
  b[1] = 0x7f;
  CHECK(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), b)), &out) == status::wrong_length);
  // A non-oracle block (its own fingerprint in the header).
  const params lap = ldp::test::example_params(mechanism::laplace);
  unsigned char blk[ldp::wire::params_max_size];
  std::size_t blk_size = 0;
  REQUIRE(ldp::wire::encode_params(lap, blk, &blk_size) == status::ok);
  bytes lb = {static_cast<unsigned char>(blk_size), 0};
  lb.insert(lb.end(), blk, blk + blk_size);
  lb.resize(lb.size() + 8 + 128 + 16, 0);  // n, the counters, the mean family's 16-byte sum
  CHECK(frequency_aggregator::deserialize(view(with_body(mechanism::laplace, ldp::wire::fingerprint(lap), lb)), &out) ==
        status::invalid_parameters);

  // OLH: unsorted entries and a bucket >= g.
  const params o = block(mechanism::olh);
  aggregator olh = make(o);
  for (const bytes& r : random_reports(o, "olh state", 2)) REQUIRE(olh->add_report(r) == status::ok);
  const bytes ob = body_of(olh->serialize());
  const std::size_t entries = 2 + block_size(ob) + 8 + 128;
  bytes swapped = ob;
  std::swap_ranges(swapped.begin() + static_cast<std::ptrdiff_t>(entries),
                   swapped.begin() + static_cast<std::ptrdiff_t>(entries + 12),
                   swapped.begin() + static_cast<std::ptrdiff_t>(entries + 12));
  CHECK(frequency_aggregator::deserialize(view(with_body(o.mech, olh->fingerprint(), swapped)), &out) ==
        status::malformed_report);
  bytes bucket = ob;
  bucket[entries + 8] = 0xff;
  CHECK(frequency_aggregator::deserialize(view(with_body(o.mech, olh->fingerprint(), bucket)), &out) ==
        status::out_of_range);
}

TEST_CASE("bad reports are rejected by status, counted, and do not disturb the estimate") {
  const params p = block(mechanism::grr);
  const std::vector<bytes> valid = random_reports(p, "bad input", 60);
  aggregator clean = make(p), mixed = make(p);
  for (const bytes& b : valid) REQUIRE(clean->add_report(b) == status::ok);

  ldp::wire::report r;
  r.index = 4;
  const bytes good = encode(p, r);
  bytes truncated(good.begin(), good.end() - 1);
  bytes longer = good;
  longer.push_back(0);
  bytes version = good;
  version[0] = 2;
  bytes unknown = good;
  unknown[1] = 200;
  bytes out_of_range = good;
  out_of_range.back() = 10;
  const params other = block(mechanism::grr, 2.0);
  const bytes foreign = encode(other, r);
  const bytes oue_report = random_reports(block(mechanism::oue), "oue", 1)[0];
  const std::pair<bytes, status> bad[] = {
      {truncated, status::wrong_length},      {longer, status::wrong_length},
      {bytes{}, status::wrong_length},        {version, status::unsupported_version},
      {unknown, status::unknown_mechanism},   {out_of_range, status::out_of_range},
      {foreign, status::parameter_mismatch},  {oue_report, status::parameter_mismatch},
  };
  for (std::size_t i = 0; i < valid.size(); ++i) {
    REQUIRE(mixed->add_report(valid[i]) == status::ok);
    if (i % 7 == 0) {
      for (const auto& [b, s] : bad) CHECK(mixed->add_report(b) == s);
    }
  }
  CHECK(mixed->reports() == valid.size());
  const uint64_t rounds = (valid.size() + 6) / 7;
  CHECK(rejected(*mixed, status::wrong_length) == 3 * rounds);
  CHECK(rejected(*mixed, status::unsupported_version) == rounds);
  CHECK(rejected(*mixed, status::unknown_mechanism) == rounds);
  CHECK(rejected(*mixed, status::out_of_range) == rounds);
  CHECK(rejected(*mixed, status::parameter_mismatch) == 2 * rounds);
  CHECK(rejected(*mixed, status::ok) == 0);
  CHECK(same_estimates(mixed->estimate_all(), clean->estimate_all()));

  // Payload-level failures of the other kinds: padding bits, a sign byte above 1.
  const params oue = block(mechanism::oue, 1.0, 20);
  aggregator ao = make(oue);
  bytes padded = random_reports(oue, "padding", 1)[0];
  padded.back() |= 0x80;
  CHECK(ao->add_report(padded) == status::reserved_bits_set);
  CHECK(rejected(*ao, status::reserved_bits_set) == 1);
  const params hc = block(mechanism::hcms);
  aggregator ah = make(hc);
  bytes sign = random_reports(hc, "sign", 1)[0];
  sign.back() = 2;
  CHECK(ah->add_report(sign) == status::reserved_bits_set);
  CHECK(ah->add_payload(view(payload_of(random_reports(hc, "ok payload", 1)[0]))) == status::ok);
  CHECK(ah->add_payload(view(bytes{})) == status::wrong_length);
  CHECK(ah->reports() == 1);
}

namespace {

bytes batch_header(const params& p) {
  bytes out(1024);
  std::size_t n = 0;
  REQUIRE(ldp::wire::encode_batch_header(p, out, &n) == status::ok);
  out.resize(n);
  return out;
}

bytes chunk(const std::vector<bytes>& payloads) {
  bytes buffer(1 << 16);
  ldp::wire::chunk_writer w(buffer);
  for (const bytes& b : payloads) REQUIRE(w.add(b) == status::ok);
  const auto c = w.finish();
  return bytes(c.begin(), c.end());
}

// A chunk with a given (possibly broken) body and a correct CRC.
bytes raw_chunk(uint32_t records, const bytes& body) {
  bytes out(8 + body.size() + 4);
  ldp::store_le32(out.data(), records);
  ldp::store_le32(out.data() + 4, static_cast<uint32_t>(body.size()));
  std::copy(body.begin(), body.end(), out.begin() + 8);
  ldp::store_le32(out.data() + 8 + body.size(), ldp::wire::crc32c(span<const unsigned char>(out.data(), 8 + body.size())));
  return out;
}

void append(bytes& to, const bytes& b) { to.insert(to.end(), b.begin(), b.end()); }

}  // namespace

TEST_CASE("add_batch: a corrupted chunk is counted as one damaged chunk, the others count") {
  const params p = block(mechanism::grr);
  const std::vector<bytes> reports = random_reports(p, "batch", 15);
  std::vector<bytes> payloads;
  for (const bytes& r : reports) payloads.push_back(payload_of(r));
  const std::vector<bytes> c1(payloads.begin(), payloads.begin() + 5), c2(payloads.begin() + 5, payloads.begin() + 10),
      c3(payloads.begin() + 10, payloads.end());

  bytes batch = batch_header(p);
  append(batch, chunk(c1));
  const std::size_t second = batch.size();
  append(batch, chunk(c2));
  append(batch, chunk(c3));
  append(batch, chunk({}));  // terminator

  aggregator all = make(p);
  CHECK(all->add_batch(batch) == status::ok);
  CHECK(all->reports() == 15);

  bytes damaged = batch;
  damaged[second + 9] ^= 0x10;  // inside the second chunk's body
  aggregator a = make(p), expected_agg = make(p);
  CHECK(a->add_batch(damaged) == status::ok);
  CHECK(a->reports() == 10);
  CHECK(a->damaged_chunks() == 1);  // its record count is not trusted: counted nowhere
  CHECK(a->rejected_total() == 0);
  for (const auto* c : {&c1, &c3}) {
    for (const bytes& b : *c) REQUIRE(expected_agg->add_payload(b) == status::ok);
  }
  CHECK(same_estimates(a->estimate_all(), expected_agg->estimate_all()));

  // A header for other parameters: nothing counts.
  bytes foreign = batch_header(block(mechanism::grr, 2.0));
  append(foreign, chunk(c1));
  append(foreign, chunk({}));
  aggregator f = make(p);
  CHECK(f->add_batch(foreign) == status::parameter_mismatch);
  CHECK(f->reports() == 0);
  for (uint64_t c : f->rejected()) CHECK(c == 0);

  // A truncated batch: the chunks before the cut count, the reading ends with wrong_length.
  aggregator t = make(p);
  CHECK(t->add_batch(span<const unsigned char>(batch.data(), batch.size() - 3)) == status::wrong_length);
  CHECK(t->reports() == 15);
}

TEST_CASE("add_batch: bad records inside a chunk with a good CRC") {
  const params p = block(mechanism::grr);
  const std::vector<bytes> reports = random_reports(p, "records", 4);
  bytes bad_payload = payload_of(reports[0]);
  bad_payload[0] = 10;  // index out of range

  bytes batch = batch_header(p);
  append(batch, chunk({payload_of(reports[0]), bad_payload, payload_of(reports[1])}));
  // Broken framing: one good record, then a length prefix running past the body (2 more claimed).
  bytes body = {1, payload_of(reports[2])[0], 5, 0, 0};
  append(batch, raw_chunk(3, body));
  // Bytes after the claimed records.
  bytes extra = {1, payload_of(reports[3])[0], 0x42};
  append(batch, raw_chunk(1, extra));
  append(batch, chunk({}));

  aggregator a = make(p);
  CHECK(a->add_batch(batch) == status::ok);
  CHECK(a->reports() == 4);
  CHECK(rejected(*a, status::out_of_range) == 1);
  CHECK(rejected(*a, status::malformed_report) == 2);
  CHECK(rejected(*a, status::wrong_length) == 1);
}

TEST_CASE("post-processing: non-negative, sums to n, idempotent projections (A.9)") {
  // Hand-checked: c = (5, 3, -2), n = 6.
  std::vector<estimate> raw(3);
  const double values[3] = {5, 3, -2};
  for (uint32_t i = 0; i < 3; ++i) raw[i] = estimate{i, values[i], 1.0, 0.0, 0.0};
  using ldp::server::postprocess;
  const auto ns = ldp::server::apply_postprocess(raw, 6, postprocess::norm_sub);
  REQUIRE(ns.size() == 3);
  CHECK(ns[0].value == doctest::Approx(4));
  CHECK(ns[1].value == doctest::Approx(2));
  CHECK(ns[2].value == 0);
  CHECK(std::isnan(ns[0].variance));
  CHECK(std::isnan(ns[0].ci_low));
  const auto cr = ldp::server::apply_postprocess(raw, 6, postprocess::clip_renormalize);
  CHECK(cr[0].value == doctest::Approx(3.75));
  CHECK(cr[1].value == doctest::Approx(2.25));
  CHECK(cr[2].value == 0);
  const auto none = ldp::server::apply_postprocess(raw, 6, postprocess::none);
  CHECK(none[2].value == -2);
  CHECK(none[2].variance == 1.0);

  // Real estimates with negatives: few reports, many items.
  const params p = block(mechanism::grr, 1.0, 40);
  aggregator a = make(p);
  for (const bytes& b : random_reports(p, "post", 60)) REQUIRE(a->add_report(b) == status::ok);
  const std::vector<estimate> est = a->estimate_all();
  CHECK(std::any_of(est.begin(), est.end(), [](const estimate& e) { return e.value < 0; }));
  for (postprocess how : {postprocess::clip_renormalize, postprocess::norm_sub, postprocess::simplex}) {
    const auto out = ldp::server::apply_postprocess(est, 60, how);
    REQUIRE(out.size() == est.size());
    double sum = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      CHECK(out[i].item == est[i].item);
      CHECK(out[i].value >= 0);
      CHECK(std::isnan(out[i].variance));
      sum += out[i].value;
    }
    CHECK(sum == doctest::Approx(60).epsilon(1e-12));
    const auto again = ldp::server::apply_postprocess(out, 60, how);
    for (std::size_t i = 0; i < out.size(); ++i) {
      CHECK(again[i].value == doctest::Approx(out[i].value).epsilon(1e-12));
    }
  }
  // Norm-Sub is the Euclidean projection onto {x >= 0, sum x = n}: it agrees with simplex.
  const auto ns2 = ldp::server::apply_postprocess(est, 60, postprocess::norm_sub);
  const auto sp = ldp::server::apply_postprocess(est, 60, postprocess::simplex);
  for (std::size_t i = 0; i < est.size(); ++i) CHECK(sp[i].value == doctest::Approx(ns2[i].value).epsilon(1e-12));

  // Degenerate inputs: all negative (clip leaves zeros), n = 0, empty.
  std::vector<estimate> negative(4);
  for (uint32_t i = 0; i < 4; ++i) negative[i] = estimate{i, -1.0 - i, 1.0, 0.0, 0.0};
  for (const estimate& e : ldp::server::apply_postprocess(negative, 10, postprocess::clip_renormalize)) {
    CHECK(e.value == 0);
  }
  const auto projected = ldp::server::apply_postprocess(negative, 10, postprocess::norm_sub);
  double total = 0;
  for (const estimate& e : projected) total += e.value;
  CHECK(total == doctest::Approx(10));
  for (postprocess how : {postprocess::norm_sub, postprocess::simplex}) {
    for (const estimate& e : ldp::server::apply_postprocess(raw, 0, how)) CHECK(e.value == 0);
  }
  CHECK(ldp::server::apply_postprocess(span<const estimate>(), 5, postprocess::simplex).empty());
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
  REQUIRE(large.size() == 8);
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

// ---- Kernel-backed ingestion and decode (PERFORMANCE.md 5, 7, 8) --------------------------------

namespace {

// The counts section of a state (after the block, n and the 16 rejection counters), as u64.
std::vector<uint64_t> state_counts(const bytes& state) {
  const bytes body = body_of(state);
  const std::size_t at = 2 + block_size(body) + 8 + 128;
  std::vector<uint64_t> out;
  for (std::size_t i = at; i + 8 <= body.size(); i += 8) {
    uint64_t v = 0;
    for (int b = 0; b < 8; ++b) v |= uint64_t{body[i + static_cast<std::size_t>(b)]} << (8 * b);
    out.push_back(v);
  }
  return out;
}

// Column sums of the first `count` unary reports, bit by bit.
std::vector<uint64_t> column_sums(const params& p, const std::vector<ldp::wire::report>& rs,
                                  std::size_t count) {
  std::vector<uint64_t> out(static_cast<std::size_t>(p.get(field::domain)), 0);
  for (std::size_t i = 0; i < count; ++i) {
    for (std::size_t v = 0; v < out.size(); ++v) out[v] += bit_of(rs[i].bits, v) ? 1 : 0;
  }
  return out;
}

// A state for `p` with n reports and the given counts section (the header recomputed).
bytes crafted_state(const params& p, uint64_t n, const std::vector<uint64_t>& counts) {
  aggregator empty = make(p);
  bytes body = body_of(empty->serialize());
  const std::size_t at = 2 + block_size(body);
  put_le(body, at, n);
  body.resize(at + 8 + 128);
  for (uint64_t c : counts) {
    for (int b = 0; b < 8; ++b) body.push_back(static_cast<unsigned char>(c >> (8 * b)));
  }
  return with_body(p.mech, empty->fingerprint(), body);
}

}  // namespace

namespace {

// With 700 reports: the first 300 merged with the last 400 (both sides with reports still queued)
// serialize and estimate like `whole`; an aggregator of the first 50 merged into itself has twice
// `counts50` as its counts section. Returns the merged aggregator.
aggregator check_merges_with_queued_reports(const params& p, const std::vector<bytes>& reports,
                                            const frequency_aggregator& whole,
                                            std::vector<uint64_t> counts50) {
  aggregator left = make(p), right = make(p);
  for (std::size_t i = 0; i < 300; ++i) REQUIRE(left->add_report(reports[i]) == status::ok);
  for (std::size_t i = 300; i < 700; ++i) REQUIRE(right->add_report(reports[i]) == status::ok);
  REQUIRE(left->merge(*right) == status::ok);
  CHECK(left->serialize() == whole.serialize());
  CHECK(same_estimates(left->estimate_all(), whole.estimate_all()));
  aggregator twice = make(p);
  for (std::size_t i = 0; i < 50; ++i) REQUIRE(twice->add_report(reports[i]) == status::ok);
  REQUIRE(twice->merge(*twice) == status::ok);
  for (uint64_t& c : counts50) c *= 2;
  CHECK(state_counts(twice->serialize()) == counts50);
  return left;
}

}  // namespace

TEST_CASE("SUE/OUE: reports still in the ingestion block count in serialize, estimate and merge") {
  // d = 100000 is 12500 bytes per report: the block holds 167 reports (2 MiB), not 256.
  for (uint32_t d : {10u, 300u, 100000u}) {
    for (mechanism m : {mechanism::sue, mechanism::oue}) {
      CAPTURE(d);
      const std::string oracle_name = ldp::wire::mechanism_name(m);
      CAPTURE(oracle_name);
      const params p = block(m, 1.0, d);
      const std::vector<bytes> reports = random_reports(p, "unary block", 700);
      const std::vector<ldp::wire::report> decoded = decode_all(p, reports);
      aggregator whole = make(p);
      std::size_t added = 0;
      for (std::size_t upto : {std::size_t{1}, std::size_t{166}, std::size_t{167}, std::size_t{168},
                               std::size_t{255}, std::size_t{256}, std::size_t{257}, std::size_t{700}}) {
        CAPTURE(upto);
        for (; added < upto; ++added) REQUIRE(whole->add_report(reports[added]) == status::ok);
        CHECK(state_counts(whole->serialize()) == column_sums(p, decoded, upto));
      }
      const auto all = column_sums(p, decoded, 700);
      if (d <= 300) check_all(whole->estimate_all(), reference_pure(p, decoded));
      const std::vector<uint32_t> some = {0, d - 1, d / 2, 3, 0};
      const std::vector<estimate> picked = whole->estimate_items(some);
      REQUIRE(picked.size() == some.size());
      for (std::size_t i = 0; i < some.size(); ++i) {
        const double pk = prob(p, field::threshold_keep), q = prob(p, field::threshold_other);
        CHECK(picked[i].value == doctest::Approx((static_cast<double>(all[some[i]]) - 700 * q) / (pk - q)));
      }

      const aggregator left = check_merges_with_queued_reports(p, reports, *whole, column_sums(p, decoded, 50));

      // A round trip, then more reports on top of the restored counts.
      aggregator restored;
      REQUIRE(frequency_aggregator::deserialize(view(left->serialize()), &restored) == status::ok);
      CHECK(same_estimates(restored->estimate_all(), whole->estimate_all()));
      for (std::size_t i = 0; i < 10; ++i) REQUIRE(restored->add_report(reports[i]) == status::ok);
      std::vector<uint64_t> more = column_sums(p, decoded, 10);
      for (std::size_t v = 0; v < more.size(); ++v) more[v] += all[v];
      CHECK(state_counts(restored->serialize()) == more);
    }
  }
}

TEST_CASE("OLH: the support kernel equals the naive hash loop over many reports and candidates") {
  for (double eps : {0.5, 2.0, 4.0}) {
    CAPTURE(eps);
    const ldp::wire::derived_params r = ldp::wire::make_olh(eps, 150);
    REQUIRE(r.code == status::ok);
    const params p = r.block;
    const std::vector<bytes> reports = random_reports(p, "olh kernel", 2100);  // two report blocks
    const std::vector<ldp::wire::report> decoded = decode_all(p, reports);
    aggregator a = make(p);
    for (const bytes& b : reports) REQUIRE(a->add_report(b) == status::ok);
    check_all(a->estimate_all(), reference_pure(p, decoded));
    // Candidates in any order, repeated, fewer than a register group.
    const std::vector<uint32_t> some = {149, 0, 7, 7, 100};
    const std::vector<estimate> all = a->estimate_all();
    const std::vector<estimate> picked = a->estimate_items(some);
    REQUIRE(picked.size() == some.size());
    for (std::size_t i = 0; i < some.size(); ++i) {
      CHECK(picked[i].item == some[i]);
      CHECK(picked[i].value == all[some[i]].value);
    }
    aggregator restored;
    REQUIRE(frequency_aggregator::deserialize(view(a->serialize()), &restored) == status::ok);
    CHECK(same_estimates(restored->estimate_all(), all));
    CHECK(restored->serialize() == a->serialize());
  }
}

TEST_CASE("HR: a larger transform against the dense sum") {
  const params p = block(mechanism::hr, 1.0, 1000);
  REQUIRE(p.get(field::hadamard_dim) == 1024);
  const std::vector<bytes> reports = random_reports(p, "hr large", 3000);
  aggregator a = make(p);
  for (const bytes& b : reports) REQUIRE(a->add_report(b) == status::ok);
  check_all(a->estimate_all(), reference_pure(p, decode_all(p, reports)));
}

TEST_CASE("HR and HCMS: counts past int32 take the int64 transform") {
  // All n reports on y = 0 (HR) or on cell (0, 0) with bit 1 (HCMS): every transformed entry is n,
  // which the int32 kernel would wrap to -2^31 at n = 2^31.
  for (uint64_t n : {(uint64_t{1} << 31) - 1, uint64_t{1} << 31, uint64_t{3} << 31}) {
    CAPTURE(n);
    const double nd = static_cast<double>(n);
    {
      const params p = block(mechanism::hr, 1.0, 10);
      std::vector<uint64_t> hist(static_cast<std::size_t>(p.get(field::hadamard_dim)), 0);
      hist[0] = n;
      aggregator a;
      REQUIRE(frequency_aggregator::deserialize(view(crafted_state(p, n, hist)), &a) == status::ok);
      const double pk = prob(p, field::threshold_keep);
      const std::vector<estimate> e = a->estimate_all();
      REQUIRE(e.size() == 10);
      for (const estimate& x : e) CHECK(x.value == doctest::Approx(nd / (2 * pk - 1)).epsilon(1e-12));
    }
    {
      const params p = block(mechanism::hcms, 1.0, 10);
      const uint32_t k = 4, m = 16;
      std::vector<uint64_t> cells(k + std::size_t{k} * m, 0);
      cells[0] = n;  // n_0
      cells[k] = n;  // sum[0][0]
      aggregator a;
      REQUIRE(frequency_aggregator::deserialize(view(crafted_state(p, n, cells)), &a) == status::ok);
      const double c = 1 / (1 - 2 * prob(p, field::threshold_other));
      // Row 0 of M is k c n everywhere, the other rows 0: f = (m/(m-1)) (c n - n/m).
      const double want = (16.0 / 15.0) * (c * nd - nd / 16);
      const std::vector<estimate> e = a->estimate_all();
      REQUIRE(e.size() == 10);
      for (const estimate& x : e) CHECK(x.value == doctest::Approx(want).epsilon(1e-12));
    }
  }
}

TEST_CASE("add_batch: unary chunks counted in one pass equal the record-by-record path") {
  for (mechanism m : {mechanism::sue, mechanism::oue}) {
    for (uint32_t d : {10u, 64u, 200u}) {
      CAPTURE(ldp::wire::mechanism_name(m));
      CAPTURE(d);
      const params p = block(m, 1.0, d);
      std::vector<bytes> payloads;
      for (const bytes& r : random_reports(p, "unary run", 300)) payloads.push_back(payload_of(r));
      // A long run (the kernel counts it in place) and short ones (gathered into the block).
      const std::vector<bytes> first(payloads.begin(), payloads.begin() + 150),
          second(payloads.begin() + 150, payloads.begin() + 180), third(payloads.begin() + 180, payloads.end());
      bytes batch = batch_header(p);
      append(batch, chunk(first));
      append(batch, chunk(second));
      append(batch, chunk(third));
      append(batch, chunk({}));

      aggregator by_batch = make(p), by_record = make(p);
      CHECK(by_batch->add_batch(batch) == status::ok);
      for (const bytes& b : payloads) REQUIRE(by_record->add_payload(b) == status::ok);
      CHECK(by_batch->reports() == 300);
      CHECK(by_batch->serialize() == by_record->serialize());

      // One bad record in a chunk: the chunk is taken record by record, so the bad one is rejected
      // with its own status and its neighbours still count.
      std::vector<bytes> damaged = first;
      if (d % 8 != 0) {
        damaged[7].back() = static_cast<unsigned char>(damaged[7].back() | 0x80);  // a padding bit
      } else {
        damaged[7].pop_back();  // a record of another length
      }
      bytes bad = batch_header(p);
      append(bad, chunk(damaged));
      append(bad, chunk({}));
      aggregator a = make(p), expected = make(p);
      CHECK(a->add_batch(bad) == status::ok);
      CHECK(a->reports() == 149);
      CHECK(rejected(*a, d % 8 != 0 ? status::reserved_bits_set : status::wrong_length) == 1);
      for (std::size_t i = 0; i < first.size(); ++i) {
        if (i != 7) REQUIRE(expected->add_payload(first[i]) == status::ok);
      }
      CHECK(a->estimate_all().size() == d);
      CHECK(same_estimates(a->estimate_all(), expected->estimate_all()));
    }
  }
}

TEST_CASE("CMS: reports still in a row's ingestion block count in serialize, estimate and merge") {
  constexpr uint32_t m = 16;
  for (uint32_t k : {1u, 3u}) {  // one row: 700 reports cross its 256-report blocks
    CAPTURE(k);
    const auto derived = ldp::wire::make_cms(1.0, 50, k, m, sketch_seed);
    REQUIRE(derived.code == status::ok);
    const params p = derived.block;
    const std::vector<bytes> reports = random_reports(p, "cms block", 700);
    const std::vector<ldp::wire::report> decoded = decode_all(p, reports);
    // The counts section of the state, bit by bit: n_j, then ones[j][l].
    const auto expected = [&](std::size_t count) {
      std::vector<uint64_t> out(k + std::size_t{k} * m, 0);
      for (std::size_t i = 0; i < count; ++i) {
        ++out[decoded[i].index];
        for (uint32_t l = 0; l < m; ++l) out[k + std::size_t{decoded[i].index} * m + l] += bit_of(decoded[i].bits, l) ? 1 : 0;
      }
      return out;
    };
    aggregator whole = make(p);
    std::size_t added = 0;
    for (std::size_t upto : {std::size_t{1}, std::size_t{255}, std::size_t{256}, std::size_t{257},
                             std::size_t{600}, std::size_t{700}}) {
      CAPTURE(upto);
      for (; added < upto; ++added) REQUIRE(whole->add_report(reports[added]) == status::ok);
      CHECK(state_counts(whole->serialize()) == expected(upto));
    }
    check_merges_with_queued_reports(p, reports, *whole, expected(50));
  }
}

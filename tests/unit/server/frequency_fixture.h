// Shared by the server tests of the frequency oracles (tests/unit/server/test_frequency_*.cpp):
// the blocks they use, reports built by hand with wire::encode_report (so these tests do not
// depend on the device randomizers), naive references for the estimates (docs/mechanisms.md
// A.0-A.6), state files around a chosen body, and batches built chunk by chunk. A test file brings
// these names in with `using namespace ldp::test::frequency`.
#ifndef LDP_TESTS_UNIT_SERVER_FREQUENCY_FIXTURE_H
#define LDP_TESTS_UNIT_SERVER_FREQUENCY_FIXTURE_H

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "ldp/server.h"
#include "ldp/wire.h"
#include "tables.h"
#include "wire_examples.h"

namespace ldp::test::frequency {

using ldp::span;
using ldp::status;
using ldp::server::estimate;
using ldp::server::frequency_aggregator;
using ldp::wire::field;
using ldp::wire::frequency_oracle;
using ldp::wire::mechanism;
using ldp::wire::params;

using bytes = std::vector<unsigned char>;
using aggregator = std::unique_ptr<frequency_aggregator>;

inline const unsigned char sketch_seed[32] = {0x42, 1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                              16,   17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};

inline const std::vector<mechanism> oracles = ldp::test::mechanisms_of(ldp::wire::mechanism_family::frequency_oracle);

inline constexpr double z95 = 1.959963984540054;  // two-sided 95% normal quantile

// Blocks used throughout: small domains, epsilon 1 (1.5 for OLH: e^1.5 + 1 = 5.48 is not an
// integer), sketches of k = 4 rows by m = 16 columns, FLH with k = 4 functions.
inline params block(mechanism m, double eps = 1.0, uint32_t d = 10) {
  ldp::wire::derived_params r;
  switch (ldp::wire::oracle_of(m)) {  // the REQUIRE below rejects an m of another family
    case frequency_oracle::grr: r = ldp::wire::make_grr(eps, d); break;
    case frequency_oracle::sue: r = ldp::wire::make_sue(eps, d); break;
    case frequency_oracle::oue: r = ldp::wire::make_oue(eps, d); break;
    case frequency_oracle::blh: r = ldp::wire::make_blh(eps, d); break;
    case frequency_oracle::olh: r = ldp::wire::make_olh(eps + 0.5, d); break;
    case frequency_oracle::hr: r = ldp::wire::make_hr(eps, d); break;
    case frequency_oracle::cms: r = ldp::wire::make_cms(eps, d, 4, 16, sketch_seed); break;
    case frequency_oracle::hcms: r = ldp::wire::make_hcms(eps, d, 4, 16, sketch_seed); break;
    case frequency_oracle::flh: r = ldp::wire::make_flh(eps, d, 4, sketch_seed); break;
    case frequency_oracle::dbitflip: r = ldp::wire::make_dbitflip(eps, d, 3); break;
  }
  REQUIRE(r.code == status::ok);
  REQUIRE(r.block.mech == m);
  return r.block;
}

inline aggregator make(const params& p) {
  aggregator a;
  REQUIRE(frequency_aggregator::create(p, &a) == status::ok);
  REQUIRE(a != nullptr);
  return a;
}

inline bytes encode(const params& p, const ldp::wire::report& r) {
  bytes out(ldp::wire::max_report_size(p));
  std::size_t n = 0;
  REQUIRE(ldp::wire::encode_report(p, ldp::wire::fingerprint(p), r, out, &n) == status::ok);
  out.resize(n);
  return out;
}

inline span<const unsigned char> view(const bytes& b) { return {b.data(), b.size()}; }

inline bytes payload_of(const bytes& report) { return bytes(report.begin() + 10, report.end()); }

inline double prob(const params& p, field f) {
  return std::ldexp(static_cast<double>(p.get(f)), -static_cast<int>(p.get(field::threshold_bits)));
}

inline double clip(double c, double n) { return c < 0 ? 0 : c > n ? n : c; }

inline bytes random_bits(ldp::random::drbg& rng, uint64_t nbits) {
  bytes b(static_cast<std::size_t>((nbits + 7) / 8));
  rng.fill(b);
  if (nbits % 8 != 0) b.back() = static_cast<unsigned char>(b.back() & ((1u << (nbits % 8)) - 1));
  return b;
}

// A valid report with random fields.
inline bytes random_report(const params& p, ldp::random::drbg& rng) {
  ldp::wire::report r;
  bytes bits;
  const uint64_t d = p.get(field::domain);
  switch (ldp::wire::oracle_of(p.mech)) {  // a kent-vote report is a SUE report
    case frequency_oracle::grr: r.index = static_cast<uint32_t>(rng.next_u32() % d); break;
    case frequency_oracle::hr: r.index = static_cast<uint32_t>(rng.next_u32() % p.get(field::hadamard_dim)); break;
    case frequency_oracle::sue:
    case frequency_oracle::oue:
      bits = random_bits(rng, d);
      r.bits = bits;
      break;
    case frequency_oracle::blh:
    case frequency_oracle::olh:
    case frequency_oracle::dbitflip:
      r.seed = rng.next_u64();
      r.index = static_cast<uint32_t>(rng.next_u32() % ldp::wire::hash_bucket_bound(p));
      break;
    case frequency_oracle::cms:
      r.index = static_cast<uint32_t>(rng.next_u32() % p.get(field::sketch_rows));
      bits = random_bits(rng, p.get(field::sketch_columns));
      r.bits = bits;
      break;
    case frequency_oracle::flh:
      r.index = static_cast<uint32_t>(rng.next_u32() % ldp::wire::index_payload_bound(p));
      break;
    case frequency_oracle::hcms:
      r.index = static_cast<uint32_t>(rng.next_u32() % p.get(field::sketch_rows));
      r.column = static_cast<uint32_t>(rng.next_u32() % p.get(field::sketch_columns));
      r.bit = static_cast<uint8_t>(rng.next_u32() & 1);
      break;
  }
  return encode(p, r);
}

inline std::vector<bytes> random_reports(const params& p, const char* name, int count) {
  auto rng = ldp::test::seeded_drbg(name);
  std::vector<bytes> out;
  for (int i = 0; i < count; ++i) out.push_back(random_report(p, rng));
  return out;
}

inline std::vector<ldp::wire::report> decode_all(const params& p, const std::vector<bytes>& reports) {
  std::vector<ldp::wire::report> out;
  for (const bytes& b : reports) {
    ldp::wire::report r;
    REQUIRE(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), b, &r) == status::ok);
    out.push_back(r);
  }
  return out;
}

inline int hadamard(uint64_t r, uint64_t y) {
  uint64_t x = r & y;
  int parity = 0;
  while (x != 0) {
    parity ^= static_cast<int>(x & 1);
    x >>= 1;
  }
  return parity == 0 ? 1 : -1;
}

inline bool bit_of(span<const unsigned char> bits, uint64_t j) {
  return ((bits[static_cast<std::size_t>(j / 8)] >> (j % 8)) & 1) != 0;
}

struct expected {
  double count;
  double variance;
};

// Naive reference for the pure oracles: C_v by testing every report's support, then the A.0
// template written out (HR: the dense O(n K) sum; q = 1/2).
inline std::vector<expected> reference_pure(const params& p, const std::vector<ldp::wire::report>& rs) {
  const uint64_t d = p.get(field::domain);
  const auto n = static_cast<double>(rs.size());
  const double pk = prob(p, field::threshold_keep);
  double q = 0;
  switch (ldp::wire::oracle_of(p.mech)) {
    case frequency_oracle::grr: q = (1 - pk) / static_cast<double>(d - 1); break;
    case frequency_oracle::sue:
    case frequency_oracle::oue: q = prob(p, field::threshold_other); break;
    case frequency_oracle::blh:
    case frequency_oracle::olh:
    case frequency_oracle::flh: q = 1.0 / static_cast<double>(p.get(field::hash_range)); break;
    case frequency_oracle::hr: q = 0.5; break;
    case frequency_oracle::cms:
    case frequency_oracle::hcms: FAIL("not a pure oracle: the sketches' reference is reference_sketch"); break;
    case frequency_oracle::dbitflip: FAIL("not a pure oracle: dBitFlip's reference is reference_dbitflip"); break;
  }
  std::vector<expected> out;
  for (uint32_t v = 0; v < d; ++v) {
    double support = 0;
    for (const auto& r : rs) {
      bool s = false;
      switch (ldp::wire::oracle_of(p.mech)) {
        case frequency_oracle::grr: s = r.index == v; break;
        case frequency_oracle::sue:
        case frequency_oracle::oue: s = bit_of(r.bits, v); break;
        case frequency_oracle::blh:
        case frequency_oracle::olh:
          s = ldp::wire::hash_to_range(ldp::wire::report_hash_key(r.seed), v,
                                       static_cast<uint32_t>(p.get(field::hash_range))) == r.index;
          break;
        case frequency_oracle::flh: {  // function j = index / g, bucket index % g, by Horner's rule
          const auto g = static_cast<uint32_t>(p.get(field::hash_range));
          const auto key = ldp::wire::flh_function(p.hash_seed, r.index / g);
          s = ldp::wire::flh_bucket(ldp::wire::flh_value(key, v), g) == r.index % g;
          break;
        }
        case frequency_oracle::hr: s = hadamard(v + 1, r.index) == 1; break;
        case frequency_oracle::cms:
        case frequency_oracle::hcms:
        case frequency_oracle::dbitflip: break;  // failed above
      }
      support += s ? 1 : 0;
    }
    const double c = (support - n * q) / (pk - q);
    const double var = n * q * (1 - q) / ((pk - q) * (pk - q)) + clip(c, n) * (1 - pk - q) / (pk - q);
    out.push_back({c, var});
  }
  return out;
}

// Naive reference for dBitFlip (docs/mechanisms.md E.3): each report's sampled buckets from its seed,
// then DKY's sum over the reports that sampled v of (b - q) / (p - q), times k / s, and the closed
// form (k / s) n q (1 - q) / (p - q)^2 + c ((k / s)(1 - 2 q) / (p - q) - 1) written out.
inline std::vector<expected> reference_dbitflip(const params& p, const std::vector<ldp::wire::report>& rs) {
  const auto k = static_cast<uint32_t>(p.get(field::domain));
  const auto s = static_cast<uint32_t>(p.get(field::sampled_buckets));
  const double pk = prob(p, field::threshold_keep), q = prob(p, field::threshold_other);
  const double n = static_cast<double>(rs.size()), ratio = static_cast<double>(k) / s;
  std::vector<double> sum(k, 0.0);
  for (const auto& r : rs) {
    std::vector<uint32_t> buckets(s);
    ldp::wire::dbitflip_buckets(r.seed, k, s, buckets.data());
    for (uint32_t i = 0; i < s; ++i) sum[buckets[i]] += (static_cast<double>((r.index >> i) & 1) - q) / (pk - q);
  }
  std::vector<expected> out;
  for (uint32_t v = 0; v < k; ++v) {
    const double c = ratio * sum[v];
    out.push_back(
        {c, ratio * n * q * (1 - q) / ((pk - q) * (pk - q)) + clip(c, n) * (ratio * (1 - 2 * q) / (pk - q) - 1)});
  }
  return out;
}

// Naive reference for FLH over the items `items` (all d when empty): reference_pure's counts, and the
// variance plus the plug-in shared-hash term of docs/mechanisms.md A.4 written out, with K = k (g - 1):
// u(y) = c(y)(c(y) - 1) - V(y) (V the template variance), T = (sum of u over the D distinct items) /
// (1 + (D - 1)/K), t(x) = (u(x) - T/K)/(1 - 1/K), term (T - t(x))/K, at least 0.
inline std::vector<expected> reference_flh(const params& p, const std::vector<ldp::wire::report>& rs,
                                           std::vector<uint32_t> items = {}) {
  const std::vector<expected> pure = reference_pure(p, rs);
  if (items.empty()) {
    for (uint32_t v = 0; v < pure.size(); ++v) items.push_back(v);
  }
  const double shared =
      static_cast<double>(p.get(field::sketch_rows)) * static_cast<double>(p.get(field::hash_range) - 1);
  std::vector<uint32_t> distinct = items;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  const auto u = [&](uint32_t y) { return pure[y].count * (pure[y].count - 1) - pure[y].variance; };
  double total = 0;
  for (uint32_t y : distinct) total += u(y);
  total /= 1 + (static_cast<double>(distinct.size()) - 1) / shared;
  std::vector<expected> out;
  for (uint32_t x : items) {
    const double own = (u(x) - total / shared) / (1 - 1 / shared);
    out.push_back({pure[x].count, pure[x].variance + std::max(total - own, 0.0) / shared});
  }
  return out;
}

// Naive reference for CMS/HCMS: the integer state rebuilt from the reports, the finalized sketch
// by definition (HCMS: the dense O(m^2) Hadamard product per row), f-hat and the A.6 variance with
// the collision term over all d items.
inline std::vector<expected> reference_sketch(const params& p, const std::vector<ldp::wire::report>& rs) {
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
    const double var = p.mech == mechanism::cms ? r2 * n * (c * c - 1) / 4 + (n - fx) / (mm - 1) + collisions
                                                : r2 * (n * c * c - fx - (n - fx) / (mm * mm)) + collisions;
    out.push_back({f[x], var});
  }
  return out;
}

inline void check(const estimate& e, double count, double variance) {
  CHECK(e.value == doctest::Approx(count).epsilon(1e-9));
  CHECK(e.variance == doctest::Approx(variance).epsilon(1e-9));
  const double half = z95 * std::sqrt(variance);
  CHECK(e.ci_low == doctest::Approx(count - half).epsilon(1e-9));
  CHECK(e.ci_high == doctest::Approx(count + half).epsilon(1e-9));
}

inline void check_all(const std::vector<estimate>& got, const std::vector<expected>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i].item == i);
    check(got[i], want[i].count, want[i].variance);
  }
}

inline bool same_estimates(const std::vector<estimate>& a, const std::vector<estimate>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].item != b[i].item || a[i].value != b[i].value || a[i].variance != b[i].variance) return false;
  }
  return true;
}

// A state file around a given body (the header recomputed, so the body checks are reached).
inline bytes with_body(mechanism m, uint64_t fp, const bytes& body) {
  bytes out(ldp::wire::state_header_size);
  REQUIRE(ldp::wire::encode_state_header(m, fp, body, out) == status::ok);
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

inline bytes body_of(const bytes& state) { return bytes(state.begin() + 32, state.end()); }

inline void put_le(bytes& b, std::size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<unsigned char>(v >> (8 * i));
}

inline std::size_t block_size(const bytes& body) { return std::size_t{body[0]} | std::size_t{body[1]} << 8; }

inline uint64_t rejected(const frequency_aggregator& a, status s) { return a.rejected()[static_cast<std::size_t>(s)]; }

// Batches (docs/wire_format.md 6), chunk by chunk.

inline bytes batch_header(const params& p) {
  bytes out(1024);
  std::size_t n = 0;
  REQUIRE(ldp::wire::encode_batch_header(p, out, &n) == status::ok);
  out.resize(n);
  return out;
}

inline bytes chunk(const std::vector<bytes>& payloads) {
  bytes buffer(1 << 16);
  ldp::wire::chunk_writer w(buffer);
  for (const bytes& b : payloads) REQUIRE(w.add(b) == status::ok);
  const auto c = w.finish();
  return bytes(c.begin(), c.end());
}

// A chunk with a given (possibly broken) body and a correct CRC.
inline bytes raw_chunk(uint32_t records, const bytes& body) {
  bytes out(8 + body.size() + 4);
  ldp::store_le32(out.data(), records);
  ldp::store_le32(out.data() + 4, static_cast<uint32_t>(body.size()));
  std::copy(body.begin(), body.end(), out.begin() + 8);
  ldp::store_le32(out.data() + 8 + body.size(),
                  ldp::wire::crc32c(span<const unsigned char>(out.data(), 8 + body.size())));
  return out;
}

inline void append(bytes& to, const bytes& b) { to.insert(to.end(), b.begin(), b.end()); }

}  // namespace ldp::test::frequency

#endif  // LDP_TESTS_UNIT_SERVER_FREQUENCY_FIXTURE_H

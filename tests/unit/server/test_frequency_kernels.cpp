// Server side of the frequency oracles, kernel-backed ingestion and decode (docs/performance.md 5,
// 7, 8): reports still in an ingestion block count in serialize, estimate and merge; the OLH
// support kernel, the HR transform (int32 and int64) and the unary batch path against the naive
// paths.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "frequency_fixture.h"

using namespace ldp::test::frequency;

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
std::vector<uint64_t> column_sums(const params& p, const std::vector<ldp::wire::report>& rs, std::size_t count) {
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

// With 700 reports: the first 300 merged with the last 400 (both sides with reports still queued)
// serialize and estimate like `whole`; an aggregator of the first 50 merged into itself has twice
// `counts50` as its counts section. Returns the merged aggregator.
aggregator check_merges_with_queued_reports(const params& p, const std::vector<bytes>& reports,
                                            const frequency_aggregator& whole, std::vector<uint64_t> counts50) {
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
      for (std::size_t upto : {std::size_t{1}, std::size_t{166}, std::size_t{167}, std::size_t{168}, std::size_t{255},
                               std::size_t{256}, std::size_t{257}, std::size_t{700}}) {
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
        for (uint32_t l = 0; l < m; ++l)
          out[k + std::size_t{decoded[i].index} * m + l] += bit_of(decoded[i].bits, l) ? 1 : 0;
      }
      return out;
    };
    aggregator whole = make(p);
    std::size_t added = 0;
    for (std::size_t upto :
         {std::size_t{1}, std::size_t{255}, std::size_t{256}, std::size_t{257}, std::size_t{600}, std::size_t{700}}) {
      CAPTURE(upto);
      for (; added < upto; ++added) REQUIRE(whole->add_report(reports[added]) == status::ok);
      CHECK(state_counts(whole->serialize()) == expected(upto));
    }
    check_merges_with_queued_reports(p, reports, *whole, expected(50));
  }
}

// Server side of the frequency oracles, ingestion: which blocks an aggregator accepts, the generic
// entry points, bad reports rejected by status and counted without disturbing the estimate, and
// batches with corrupted chunks or bad records (docs/wire_format.md 6).
#include <doctest/doctest.h>

#include <memory>
#include <utility>
#include <vector>

#include "frequency_fixture.h"

using namespace ldp::test::frequency;

TEST_CASE("create accepts the eight oracles and rejects other blocks") {
  for (mechanism m : oracles) {
    const params p = block(m);
    aggregator a = make(p);
    CHECK(a->parameters().mech == m);
    CHECK(a->fingerprint() == ldp::wire::fingerprint(p));
    CHECK(a->reports() == 0);
  }
  aggregator a;
  CHECK(frequency_aggregator::create(ldp::test::example_params(mechanism::laplace), &a) == status::invalid_parameters);
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
      {truncated, status::wrong_length},     {longer, status::wrong_length},
      {bytes{}, status::wrong_length},       {version, status::unsupported_version},
      {unknown, status::unknown_mechanism},  {out_of_range, status::out_of_range},
      {foreign, status::parameter_mismatch}, {oue_report, status::parameter_mismatch},
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

  // A record count forged under a valid CRC (2^31 records in a 3-byte body) counts no more
  // rejections than the body has bytes: the counters stay bounded by the input.
  bytes forged = batch_header(p);
  append(forged, raw_chunk(0x80000000u, {9, 1, 2}));
  append(forged, chunk({payload_of(reports[0])}));
  append(forged, chunk({}));
  aggregator f = make(p);
  CHECK(f->add_batch(forged) == status::ok);
  CHECK(f->reports() == 1);
  CHECK(rejected(*f, status::malformed_report) == 3);
}

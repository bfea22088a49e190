// The dBitFlip aggregator (docs/mechanisms.md E.3; wire_format.md 7.3) against the naive reference of
// the fixture (each report's buckets expanded from its seed, DKY's sum and the closed-form variance
// written out), and its saved state's invariants. Merge orders and round trips are
// test_frequency_state's, which covers every oracle.
#include "frequency_fixture.h"

using namespace ldp::test::frequency;

TEST_CASE("dBitFlip estimates are DKY's sum with the closed-form variance, for s = 1, 3 and k") {
  for (uint32_t s : {1u, 3u, 10u}) {
    CAPTURE(s);
    const params p = ldp::wire::make_dbitflip(1.0, 10, s).block;
    const std::vector<bytes> reports = random_reports(p, "dbitflip reference", 400);
    aggregator a = make(p);
    for (const bytes& b : reports) REQUIRE(a->add_report(b) == status::ok);
    check_all(a->estimate_all(), reference_dbitflip(p, decode_all(p, reports)));
  }
}

TEST_CASE("a dBitFlip state whose counts no reports produce is refused") {
  const params p = ldp::wire::make_dbitflip(1.0, 10, 3).block;
  aggregator a = make(p);
  for (const bytes& b : random_reports(p, "dbitflip state", 50)) REQUIRE(a->add_report(b) == status::ok);
  const bytes good = a->serialize();
  aggregator back;
  REQUIRE(frequency_aggregator::deserialize(view(good), &back) == status::ok);
  CHECK(back->serialize() == good);
  // The body ends with sampled[0..9] then ones[0..9] (u64 each); the readers check the header's two
  // CRC32Cs first (body at offset 24, header at 28, wire_format.md 7), so each damaged state gets
  // fresh ones to reach the body's checks.
  const auto damaged = [&](std::size_t from_end, uint64_t value) {
    bytes b = good;
    const std::size_t at = b.size() - from_end;
    for (int i = 0; i < 8; ++i) b[at + i] = static_cast<unsigned char>(value >> (8 * i));
    const uint32_t body = ldp::wire::crc32c(ldp::span<const unsigned char>(b.data() + 32, b.size() - 32));
    for (int i = 0; i < 4; ++i) b[24 + i] = static_cast<unsigned char>(body >> (8 * i));
    const uint32_t header = ldp::wire::crc32c(ldp::span<const unsigned char>(b.data(), 28));
    for (int i = 0; i < 4; ++i) b[28 + i] = static_cast<unsigned char>(header >> (8 * i));
    aggregator out;
    return frequency_aggregator::deserialize(view(b), &out);
  };
  CHECK(damaged(8, 0) == status::ok);                      // the helper itself keeps a state readable (ones[9] = 0)
  CHECK(damaged(8, 51) == status::malformed_report);       // ones[9] above sampled[9] (<= n = 50)
  CHECK(damaged(8 * 11, 51) == status::malformed_report);  // sampled[9] above n
  CHECK(damaged(8 * 11, 0) == status::malformed_report);   // the sampled counts no longer sum to n s
}

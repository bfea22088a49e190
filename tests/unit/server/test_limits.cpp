// The memory contract of the server (docs/security_model.md "Memory contract", issue 21): a block
// whose aggregator passes the caller's ceiling is refused with limit_exceeded before anything is
// allocated, whatever its domain; saved state keeps its 16 rejection counters whatever
// status_count is; damaged batch chunks are counted in counter 0, never as trusted record counts.
#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ldp/server.h"
#include "ldp/wire.h"
#include "wire_examples.h"

namespace {

using ldp::status;
using ldp::server::aggregator;
using ldp::wire::field;
using ldp::wire::mechanism;
using ldp::wire::params;
using bytes = std::vector<unsigned char>;

params grr(uint32_t d) {
  const ldp::wire::derived_params r = ldp::wire::make_grr(2.0, d);
  REQUIRE(r.code == status::ok);
  return r.block;
}

// A block of `m` from the examples with its domain replaced (the hostile header of issue 21).
params with_domain(mechanism m, uint64_t d) {
  params p = ldp::test::example_params(m);
  p.set(field::domain, d);
  return p;
}

}  // namespace

TEST_CASE("a block whose aggregator passes the ceiling is refused before allocation, whatever its domain") {
  std::unique_ptr<aggregator> a;
  // GRR d = 2^28: 2 GiB of counters; laplace-vector d = 2^28 and OLH d = 2^31 (an empty state of a
  // few bytes, but 40 bytes of estimates per item): all above the default 1 GiB.
  for (const params& p : {grr(uint32_t{1} << 28), with_domain(mechanism::laplace_vector, uint64_t{1} << 28),
                          with_domain(mechanism::olh, uint64_t{1} << 31)}) {
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    REQUIRE(ldp::wire::validate(p) == status::ok);
    uint64_t need = 0;
    REQUIRE(ldp::server::aggregator_bytes(p, &need) == status::ok);
    CHECK(need > ldp::server::limits{}.max_state_bytes);
    CHECK(aggregator::create(p, &a) == status::limit_exceeded);
    CHECK(a == nullptr);
    CHECK(aggregator::create(p, ldp::server::limits{need - 1}, &a) == status::limit_exceeded);
    if (ldp::server::frequency_aggregator::handles(p.mech)) {  // the family's own entry point too
      std::unique_ptr<ldp::server::frequency_aggregator> f;
      CHECK(ldp::server::frequency_aggregator::create(p, &f) == status::limit_exceeded);
      CHECK(f == nullptr);
    }
  }
  // The ceiling is the caller's, and create() with it accepts exactly what fits.
  const params small = grr(1000);
  uint64_t need = 0;
  REQUIRE(ldp::server::aggregator_bytes(small, &need) == status::ok);
  CHECK(need == 1000 * sizeof(ldp::server::estimate));  // the estimates outweigh 8 kB of counters
  CHECK(aggregator::create(small, ldp::server::limits{need - 1}, &a) == status::limit_exceeded);
  REQUIRE(aggregator::create(small, ldp::server::limits{need}, &a) == status::ok);
  // A state is refused by its length, and by its block, under a smaller ceiling.
  const bytes state = a->serialize();
  std::unique_ptr<aggregator> back;
  CHECK(aggregator::deserialize(state, ldp::server::limits{state.size() - 1}, &back) == status::limit_exceeded);
  CHECK(aggregator::deserialize(state, ldp::server::limits{state.size()}, &back) == status::limit_exceeded);
  REQUIRE(aggregator::deserialize(state, ldp::server::limits{need}, &back) == status::ok);
  CHECK(back->serialize() == state);
}

TEST_CASE("limit_exceeded is a status with a name, past the 16 saved rejection counters") {
  CHECK(static_cast<int>(status::limit_exceeded) == 16);
  CHECK(std::string(ldp::status_name(status::limit_exceeded)) == "limit_exceeded");
  CHECK(ldp::server::rejection_counter_count == 16);
  CHECK(ldp::server::rejection_counter_count < static_cast<std::size_t>(ldp::status_count));
  uint64_t bytes_of_state = 0;
  const params p = grr(10);
  REQUIRE(ldp::server::state_bytes(p, 0, &bytes_of_state) == status::ok);
  std::unique_ptr<aggregator> a;
  REQUIRE(aggregator::create(p, &a) == status::ok);
  CHECK(a->serialize().size() == bytes_of_state);  // 16 counters, as before the new status
}

TEST_CASE("a damaged chunk is one damaged chunk: its claimed records are counted nowhere") {
  const params p = grr(10);
  std::unique_ptr<aggregator> a;
  REQUIRE(aggregator::create(p, &a) == status::ok);
  bytes batch(ldp::wire::batch_header_size(ldp::wire::params_max_size));
  std::size_t header = 0;
  REQUIRE(ldp::wire::encode_batch_header(p, batch, &header) == status::ok);
  batch.resize(header);
  for (int c = 0; c < 2; ++c) {
    bytes chunk(64);
    ldp::wire::chunk_writer writer(chunk);
    const unsigned char payload[1] = {3};
    for (int i = 0; i < 4; ++i) REQUIRE(writer.add(payload) == status::ok);
    const ldp::span<const unsigned char> done = writer.finish();
    batch.insert(batch.end(), done.begin(), done.end());
  }
  bytes end(12);
  ldp::wire::chunk_writer terminator(end);
  const ldp::span<const unsigned char> t = terminator.finish();
  batch.insert(batch.end(), t.begin(), t.end());
  batch[header + 3] ^= 0x80;  // bit 31 of the first chunk's record count
  REQUIRE(a->add_batch(batch) == status::ok);
  CHECK(a->reports() == 4);
  CHECK(a->damaged_chunks() == 1);
  CHECK(a->rejected_total() == 0);
  // Merging adds the damaged chunks; the state keeps them (counter 0) byte for byte.
  std::unique_ptr<aggregator> b;
  const bytes saved = a->serialize();
  REQUIRE(aggregator::deserialize(saved, &b) == status::ok);
  REQUIRE(b->merge(*a) == status::ok);
  CHECK(b->damaged_chunks() == 2);
}

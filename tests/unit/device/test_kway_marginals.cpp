// Device side of kway-marginals (docs/mechanisms.md H.5): the conjunction indicators of a record in
// the order of docs/wire_format.md 3.14, the refusals, the exact L1 sensitivity N' (hi - lo) that
// the scale assumes (attained by the empty and the full record), and one report end to end.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "ldp/device.h"
#include "ldp/wire.h"
#include "tables.h"

using ldp::status;
using ldp::wire::field;

namespace {

std::vector<int64_t> features(const ldp::wire::params& p, uint64_t record, bool* ok) {
  std::vector<int64_t> out(static_cast<std::size_t>(p.get(field::domain)), -7);
  *ok = ldp::device::conjunction_features(p, record, out);
  return out;
}

}  // namespace

TEST_CASE("conjunction_features: 2^f exactly where the set lies inside the record, in coordinate order") {
  const auto p = ldp::wire::make_kway_marginals(5, 3, 4, 1.0).block;  // N' = 5 + 10 + 10, one = 16
  for (uint64_t record = 0; record < 32; ++record) {
    bool ok = false;
    const std::vector<int64_t> f = features(p, record, &ok);
    REQUIRE(ok);
    for (uint64_t set = 1; set < 32; ++set) {
      uint32_t size = 0;
      for (uint64_t v = set; v != 0; v &= v - 1) ++size;
      if (size > 3) continue;
      CAPTURE(record);
      CAPTURE(set);
      CHECK(f[ldp::wire::conjunction_index(5, set)] == ((record & set) == set ? 16 : 0));
    }
  }
  bool ok = true;
  const std::vector<int64_t> untouched = features(p, 0b100000, &ok);  // attribute 5 of p = 5
  CHECK_FALSE(ok);
  CHECK(untouched[0] == -7);
  std::vector<int64_t> wrong(24);
  CHECK_FALSE(ldp::device::conjunction_features(p, 1, wrong));
  // p = 64: every bit is an attribute.
  const auto wide = ldp::wire::make_kway_marginals(64, 1, 0, 1.0).block;
  std::vector<int64_t> all(64);
  REQUIRE(ldp::device::conjunction_features(wide, ~uint64_t{0}, all));
  for (int64_t v : all) CHECK(v == 1);
}

TEST_CASE("the indicators' L1 sensitivity is N' (hi - lo), attained by the empty and the full record") {
  // The scale N' Q / eps (make_kway_marginals) is right only if no two records' feature vectors are
  // farther apart in L1 than N' Q, and it is not loose if some pair is that far.
  const auto p = ldp::wire::make_kway_marginals(4, 3, 2, 1.0).block;  // N' = 14, Q = 4
  const int64_t bound = 14 * 4;
  int64_t widest = 0;
  for (uint64_t x = 0; x < 16; ++x) {
    for (uint64_t y = 0; y < 16; ++y) {
      bool ok = false;
      const auto fx = features(p, x, &ok), fy = features(p, y, &ok);
      int64_t l1 = 0;
      for (std::size_t j = 0; j < fx.size(); ++j) l1 += fx[j] > fy[j] ? fx[j] - fy[j] : fy[j] - fx[j];
      widest = l1 > widest ? l1 : widest;
    }
  }
  CHECK(widest == bound);
  CHECK(ldp::wire::sensitivity(p) == static_cast<uint64_t>(bound));
}

TEST_CASE("randomize_kway_marginals: a report of N' coordinates; other blocks and wide records refused") {
  const auto p = ldp::wire::make_kway_marginals(6, 2, 0, 2.0).block;  // N' = 21
  std::vector<std::byte> workspace(ldp::device::vector_mean_context::workspace_size(p));
  ldp::device::vector_mean_context c;
  REQUIRE(ldp::device::vector_mean_context::init(workspace, p, &c) == status::ok);
  auto rng = ldp::test::seeded_drbg("kway-marginals device report");
  std::vector<unsigned char> out(ldp::device::max_output_size(p, ldp::device::framing::report));
  std::size_t written = 0;
  REQUIRE(ldp::device::randomize_kway_marginals(c, 0b101101, rng, out, ldp::device::framing::report, &written) ==
          status::ok);
  ldp::wire::report r;
  REQUIRE(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), {out.data(), written}, &r) == status::ok);
  CHECK(r.count == 21);
  CHECK(ldp::device::randomize_kway_marginals(c, 0b1000000, rng, out, ldp::device::framing::report, &written) ==
        status::invalid_argument);
  CHECK(written == 0);
  // The generic vector entry point takes no record: a kway-marginals block reports indicators only.
  const std::vector<int64_t> direct(21, 1);
  CHECK(c.randomize(direct, rng, out, ldp::device::framing::report, &written) == status::invalid_argument);
  // A laplace-vector context is not a kway-marginals one.
  const auto other = ldp::wire::make_laplace_vector(21, 0.0, 1.0, 0, 2.0).block;
  ldp::device::vector_mean_context v;
  REQUIRE(ldp::device::vector_mean_context::init(workspace, other, &v) == status::ok);
  CHECK(ldp::device::randomize_kway_marginals(v, 1, rng, out, ldp::device::framing::report, &written) ==
        status::invalid_argument);
}

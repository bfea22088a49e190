// Const reads of one server aggregator from two threads at once (aggregator.h: serialize and
// estimate_all are const, and the unary and sketch families keep their pending ingestion block out
// of the state they read, src/unary.cpp). Both threads must get the single-threaded bytes and
// estimates. The tsan preset (scripts/test.sh tsan) runs this test under ThreadSanitizer, which
// is what turns a data race here into a failure rather than a rare wrong number.
#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ldp/server.h"
#include "ldp/wire.h"
#include "wire_examples.h"

using ldp::status;
using ldp::server::aggregator;
using ldp::server::estimate;

namespace {

// 300 reports: past one 256-report unary block, so some are counted and some still pending.
constexpr unsigned n_reports = 300;
constexpr int rounds = 3;         // reads per thread
constexpr unsigned variants = 4;  // make_report's values stay in range for small variants

struct reading {
  std::vector<unsigned char> state;
  std::vector<estimate> estimates;
};

reading read_once(const aggregator& a) { return {a.serialize(), a.estimate_all()}; }

// Bit for bit, NaN bounds included.
bool same_doubles(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

bool same(const reading& x, const reading& y) {
  if (x.state != y.state || x.estimates.size() != y.estimates.size()) return false;
  for (std::size_t i = 0; i < x.estimates.size(); ++i) {
    const estimate& a = x.estimates[i];
    const estimate& b = y.estimates[i];
    if (a.item != b.item || !same_doubles(a.value, b.value) || !same_doubles(a.variance, b.variance) ||
        !same_doubles(a.ci_low, b.ci_low) || !same_doubles(a.ci_high, b.ci_high)) {
      return false;
    }
  }
  return true;
}

}  // namespace

TEST_CASE("two threads reading one aggregator get the single-threaded state and estimates") {
  int served = 0;  // mechanisms that accepted reports
  for (ldp::wire::mechanism m : ldp::test::all_mechanisms()) {
    const ldp::wire::params p = ldp::test::example_params(m);
    std::unique_ptr<aggregator> agg;
    if (aggregator::create(p, &agg) != status::ok) continue;  // no server side (e.g. a vote)
    const std::string name = ldp::wire::mechanism_name(m);
    CAPTURE(name);
    // A report the example does not fit (out of a mechanism's range; every one for winsorized-sums,
    // whose windows come from round 1) is rejected and counted: the rejection counters are read too.
    unsigned accepted = 0;
    for (unsigned i = 0; i < n_reports; ++i) {
      const ldp::test::example_report r = ldp::test::make_report(p, i % variants);
      std::vector<unsigned char> bytes(ldp::wire::max_report_size(p));
      std::size_t size = 0;
      REQUIRE(ldp::wire::encode_report(p, agg->fingerprint(), r.fields, bytes, &size) == status::ok);
      if (agg->add_report({bytes.data(), size}) == status::ok) ++accepted;
    }
    if (accepted > 0) ++served;
    const aggregator& shared = *agg;
    const reading expected = read_once(shared);
    REQUIRE(!expected.state.empty());

    // Assertions stay on this thread; the workers only record what they read.
    std::vector<reading> seen[2];
    const auto reader = [&shared](std::vector<reading>* out) {
      for (int k = 0; k < rounds; ++k) out->push_back(read_once(shared));
    };
    std::thread other(reader, &seen[1]);
    reader(&seen[0]);
    other.join();
    for (const std::vector<reading>& thread_reads : seen) {
      REQUIRE(thread_reads.size() == rounds);
      for (const reading& r : thread_reads) CHECK(same(r, expected));
    }
  }
  CHECK(served > 10);
}

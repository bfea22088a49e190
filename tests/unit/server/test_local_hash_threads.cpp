// BLH/OLH support counting and FLH's decode over threads, and the BLH/OLH batch path
// (lib/server/src/local_hashing.cpp, fast_local_hashing.cpp, ldp/server/threads.h; issue 19): the
// saved counts and every estimate are the same to the bit for any thread limit and equal C_v written out from its definition; a batch chunk appended in one pass
// holds what the reports added one by one hold, and a chunk with a bucket >= g falls back to the
// per-record path with nothing counted twice. The tsan preset runs this test under ThreadSanitizer.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "frequency_fixture.h"
#include "ldp/server/threads.h"

using namespace ldp::test::frequency;

namespace {

const mechanism local_hashing[] = {mechanism::blh, mechanism::olh};

// Past one 4096-report segment, 5 key blocks of 1024 (the last one partial) and 5 M report-item
// pairs at d = 1024: up to 4 threads of at least 2^20 pairs each.
constexpr int n_reports = 5000;
constexpr uint32_t domain = 1024;

// The family part of a counts-form state: C_v by testing every report against every item.
bytes counts_by_definition(const params& p, const std::vector<bytes>& reports) {
  const std::vector<ldp::wire::report> rs = decode_all(p, reports);
  const auto g = static_cast<uint32_t>(p.get(field::hash_range));
  bytes out;
  for (uint32_t v = 0; v < p.get(field::domain); ++v) {
    uint64_t c = 0;
    for (const auto& r : rs) c += ldp::wire::hash_to_range(ldp::wire::report_hash_key(r.seed), v, g) == r.index;
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<unsigned char>(c >> (8 * i)));
  }
  return out;
}

// Bit for bit, NaN bounds included.
bool same_double(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }
bool identical(const std::vector<estimate>& a, const std::vector<estimate>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].item != b[i].item || !same_double(a[i].value, b[i].value) || !same_double(a[i].variance, b[i].variance) ||
        !same_double(a[i].ci_low, b[i].ci_low) || !same_double(a[i].ci_high, b[i].ci_high)) {
      return false;
    }
  }
  return true;
}

// The thread limit for one scope, restored to the default after it.
struct thread_limit_scope {
  explicit thread_limit_scope(unsigned n) { ldp::server::set_thread_limit(n); }
  ~thread_limit_scope() { ldp::server::set_thread_limit(0); }
  thread_limit_scope(const thread_limit_scope&) = delete;
  thread_limit_scope& operator=(const thread_limit_scope&) = delete;
};

bytes batch_of(const params& p, const std::vector<bytes>& payloads, std::size_t per_chunk) {
  bytes out = batch_header(p);
  for (std::size_t i = 0; i < payloads.size(); i += per_chunk) {
    const auto last = std::min(payloads.size(), i + per_chunk);
    append(out, chunk(std::vector<bytes>(payloads.begin() + static_cast<std::ptrdiff_t>(i),
                                         payloads.begin() + static_cast<std::ptrdiff_t>(last))));
  }
  append(out, chunk({}));  // the terminator
  return out;
}

}  // namespace

TEST_CASE("supports and estimates are the same for every thread limit, and equal C_v by definition") {
  for (mechanism m : local_hashing) {
    const params p = block(m, 1.0, domain);
    const std::vector<bytes> reports = random_reports(p, "local hash threads", n_reports);
    CAPTURE(ldp::wire::mechanism_name(m));
    aggregator all = make(p);
    for (const bytes& r : reports) REQUIRE(all->add_report(r) == status::ok);
    // Held counts plus pending reports: a counts-form state of the first 3000, then the rest merged
    // in as a list-form state.
    aggregator mixed;
    {
      aggregator head = make(p), tail = make(p);
      for (int i = 0; i < 3000; ++i) REQUIRE(head->add_report(reports[i]) == status::ok);
      for (int i = 3000; i < n_reports; ++i) REQUIRE(tail->add_report(reports[i]) == status::ok);
      REQUIRE(frequency_aggregator::deserialize(view(head->serialize()), &mixed) == status::ok);
      REQUIRE(mixed->merge(*tail) == status::ok);
    }
    const bytes expected = counts_by_definition(p, reports);
    // Some candidates out of order, repeated, and one past d (NaN).
    const std::vector<uint32_t> items = {1023, 0, 517, 517, 3, domain, 64};

    std::vector<estimate> estimates_one, items_one;
    for (unsigned threads : {1u, 2u, 3u, 4u, 7u}) {
      CAPTURE(threads);
      const thread_limit_scope scope(threads);
      REQUIRE(ldp::server::thread_limit() == threads);
      const bytes state = all->serialize();
      REQUIRE(state.size() > expected.size());
      CHECK(bytes(state.end() - static_cast<std::ptrdiff_t>(expected.size()), state.end()) == expected);
      CHECK(mixed->serialize() == state);
      const std::vector<estimate> estimates = all->estimate_all();
      const std::vector<estimate> some = all->estimate_items(items);
      REQUIRE(estimates.size() == domain);
      CHECK(identical(mixed->estimate_all(), estimates));
      if (threads == 1) {
        estimates_one = estimates;
        items_one = some;
      }
      CHECK(identical(estimates, estimates_one));
      CHECK(identical(some, items_one));
    }
    // The estimates of the candidates are those of estimate_all.
    REQUIRE(items_one.size() == items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (items[i] < domain) CHECK(identical({items_one[i]}, {estimates_one[items[i]]}));
    }
  }
}

TEST_CASE("a batch chunk is appended in one pass; a bucket >= g sends it to the per-record path") {
  for (mechanism m : local_hashing) {
    const params p = block(m, 1.0, domain);
    CAPTURE(ldp::wire::mechanism_name(m));
    // 600 reports keep the list form (12 n < 8 d), 5000 reach the counts form.
    for (std::size_t n : {std::size_t{600}, std::size_t{n_reports}}) {
      CAPTURE(n);
      std::vector<bytes> payloads;
      for (const bytes& r : random_reports(p, "local hash batch", static_cast<int>(n)))
        payloads.push_back(payload_of(r));
      aggregator one_by_one = make(p);
      for (const bytes& pl : payloads) REQUIRE(one_by_one->add_payload(pl) == status::ok);

      aggregator batched = make(p);
      REQUIRE(batched->add_batch(view(batch_of(p, payloads, 250))) == status::ok);
      CHECK(batched->reports() == static_cast<uint64_t>(n));
      CHECK(batched->serialize() == one_by_one->serialize());

      // One payload of the second chunk gets bucket 255 >= g: that chunk is counted record by record.
      std::vector<bytes> damaged = payloads;
      REQUIRE(damaged[300].size() == 9);  // seed, then a one-byte bucket
      damaged[300][8] = 0xff;
      aggregator expected = make(p);
      for (std::size_t i = 0; i < payloads.size(); ++i) {
        if (i != 300) REQUIRE(expected->add_payload(payloads[i]) == status::ok);
      }
      aggregator fallback = make(p);
      REQUIRE(fallback->add_batch(view(batch_of(p, damaged, 250))) == status::ok);
      CHECK(fallback->reports() == static_cast<uint64_t>(n - 1));
      CHECK(rejected(*fallback, status::out_of_range) == 1);
      const bytes got = fallback->serialize(), want = expected->serialize();
      // The states differ only in their rejection counters (the expected one rejected nothing).
      REQUIRE(got.size() == want.size());
      const std::size_t family = got.size() - (12 * n < 8 * domain ? 12 * (n - 1) : 8 * domain);
      CHECK(bytes(got.begin() + static_cast<std::ptrdiff_t>(family), got.end()) ==
            bytes(want.begin() + static_cast<std::ptrdiff_t>(family), want.end()));
      CHECK(identical(fallback->estimate_all(), expected->estimate_all()));
    }
  }
}

// FLH's decode over threads (lib/server/src/fast_local_hashing.cpp, docs/mechanisms.md A.4): the
// blocks of 4096 items both decodes are cut into. d = 70000 and k = 256: the all-items walk has 18
// blocks, each starting its functions at h_j(first), and 18 M function-item pairs (up to 17 parts);
// 8500 candidates (below d/8: Horner's rule) make 3 blocks and 2.2 M pairs (2 parts).
TEST_CASE("FLH: supports and estimates are the same for every thread limit, and equal C_v by definition") {
  constexpr uint32_t d = 70000, k = 256, candidates = 8500;
  const auto made = ldp::wire::make_flh(1.0, d, k, sketch_seed);
  REQUIRE(made.code == status::ok);
  const params& p = made.block;
  const std::vector<bytes> reports = random_reports(p, "flh threads", n_reports);
  aggregator all = make(p);
  for (const bytes& r : reports) REQUIRE(all->add_report(r) == status::ok);

  // C_v by definition: the reports' counts per function and bucket, looked up at H_j(v).
  const auto g = static_cast<uint32_t>(p.get(field::hash_range));
  std::vector<uint64_t> cells(std::size_t{k} * g, 0);
  for (const ldp::wire::report& r : decode_all(p, reports)) ++cells[r.index];
  const double n = n_reports, q = 1.0 / g, pk = prob(p, field::threshold_keep);
  auto count_of = [&](uint32_t v) {
    uint64_t support = 0;
    for (uint32_t j = 0; j < k; ++j) {
      support += cells[std::size_t{j} * g +
                       ldp::wire::flh_bucket(ldp::wire::flh_value(ldp::wire::flh_function(p.hash_seed, j), v), g)];
    }
    return (static_cast<double>(support) - n * q) / (pk - q);
  };
  // Every 8th item and a few past d/2, unordered and repeated.
  std::vector<uint32_t> items;
  for (uint32_t i = 0; i < candidates; ++i) items.push_back((i * 8 + (i % 5)) % d);
  items.push_back(items[17]);
  REQUIRE(uint64_t{items.size()} * 8 < d);

  std::vector<estimate> estimates_one, items_one;
  for (unsigned threads : {1u, 2u, 3u, 4u, 7u}) {
    CAPTURE(threads);
    const thread_limit_scope scope(threads);
    const std::vector<estimate> estimates = all->estimate_all();
    const std::vector<estimate> some = all->estimate_items(items);
    REQUIRE(estimates.size() == d);
    REQUIRE(some.size() == items.size());
    if (threads == 1) {
      estimates_one = estimates;
      items_one = some;
    }
    CHECK(identical(estimates, estimates_one));
    CHECK(identical(some, items_one));
  }
  // Both decodes give C_v: every 97th item of the domain (the walk's blocks start at multiples of
  // 4096) and every candidate (Horner's rule). The variances differ: the shared-hash term's plug-in
  // runs over the items asked for.
  int wrong = 0;
  for (uint32_t v = 0; v < d; v += 97) wrong += estimates_one[v].value != doctest::Approx(count_of(v)).epsilon(1e-12);
  for (uint32_t v : {4095u, 4096u, 4097u, 65535u, 65536u, d - 1}) {
    wrong += estimates_one[v].value != doctest::Approx(count_of(v)).epsilon(1e-12);
  }
  for (std::size_t i = 0; i < items.size(); ++i)
    wrong += !same_double(items_one[i].value, estimates_one[items[i]].value);
  CHECK(wrong == 0);
}

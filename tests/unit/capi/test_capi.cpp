// The C API (ldp.h, ldp_server.h; docs/c_api.md) against the C++ API it wraps: the same blocks,
// fingerprints, report bytes, saved state and estimates; the statuses of bad arguments, bad input,
// short buffers and contexts that were never initialized, for the frequency oracles and the numeric
// and vector mechanisms; the context sizes and the numbering
// that must match ldp::status and the wire mechanism ids. The strict C99 compile of both headers
// is the C examples' build (examples/CMakeLists.txt).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "device_context.h"
#include "example_params.h"
#include "ldp.h"
#include "ldp/device.h"
#include "ldp/device/mean.h"
#include "ldp/device/unit_vector.h"
#include "ldp/device/user_level.h"
#include "ldp/device/vector_mean.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire.h"
#include "ldp_server.h"
#include "wire_examples.h"

using ldp::status;
using ldp::wire::mechanism;

namespace {

using bytes = std::vector<unsigned char>;

const uint8_t sketch_seed[LDP_SEED_SIZE] = {7, 1, 2, 3};
const uint8_t rng_seed[LDP_SEED_SIZE] = {0xc4, 0x91, 0x5e};

// The oracles ldp_randomize_item serves: dBitFlip's reports need the device secret
// (ldp_randomize_item_memoized, test_capi_memo_mean.cpp).
const std::vector<mechanism> oracles = [] {
  std::vector<mechanism> out = ldp::test::mechanisms_of(ldp::wire::mechanism_family::frequency_oracle);
  out.erase(std::remove(out.begin(), out.end(), mechanism::dbitflip), out.end());
  return out;
}();

constexpr uint32_t domain = 40;
constexpr double epsilon = 1.5;

ldp::wire::derived_params cxx_block(mechanism m) {
  return ldp::wire::make_frequency_oracle(m, epsilon, domain, 4, 64, sketch_seed);
}

ldp_params c_block(mechanism m) {
  ldp_params p;
  REQUIRE(ldp_params_frequency(&p, static_cast<ldp_mechanism>(m), domain, epsilon, 4, 64, sketch_seed) == LDP_OK);
  return p;
}

bytes encode(const ldp_params& p) {
  bytes out(LDP_PARAMS_MAX_ENCODED_SIZE);
  size_t n = 0;
  REQUIRE(ldp_params_encode(&p, out.data(), out.size(), &n) == LDP_OK);
  out.resize(n);
  return out;
}

// `count` reports of items i * 7 mod d, from the C API and from the C++ API with the same seed.
std::vector<bytes> c_reports(const ldp_params& p, int count) {
  ldp_rng rng;
  REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
  std::vector<uint64_t> workspace(ldp_workspace_size(&p) / 8);
  std::vector<bytes> out;
  for (int i = 0; i < count; ++i) {
    bytes report(ldp_report_max_size(&p));
    size_t n = 0;
    REQUIRE(ldp_randomize_item(&p, &rng, static_cast<uint32_t>(i * 7) % domain, workspace.data(), workspace.size() * 8,
                               report.data(), report.size(), &n) == LDP_OK);
    report.resize(n);
    out.push_back(report);
  }
  ldp_rng_wipe(&rng);
  return out;
}

std::vector<bytes> cxx_reports(const ldp::wire::params& p, int count) {
  ldp::random::drbg rng(rng_seed);
  ldp::test::owned_context<ldp::device::frequency_context> oracle(p);
  REQUIRE(oracle.code == status::ok);
  std::vector<bytes> out;
  for (int i = 0; i < count; ++i) {
    bytes report(ldp::wire::max_report_size(p));
    size_t n = 0;
    REQUIRE(oracle->randomize(static_cast<uint32_t>(i * 7) % domain, rng, report, ldp::device::framing::report, &n) ==
            status::ok);
    report.resize(n);
    out.push_back(report);
  }
  return out;
}

// Owns a C aggregator.
struct c_aggregator {
  ldp_aggregator* a = nullptr;
  c_aggregator() = default;
  c_aggregator(const c_aggregator&) = delete;
  c_aggregator& operator=(const c_aggregator&) = delete;
  ~c_aggregator() { ldp_aggregator_free(a); }
};

bytes serialize(const ldp_aggregator* a) {
  size_t size = 0;
  REQUIRE(ldp_aggregator_serialize(a, nullptr, 0, &size) == LDP_BUFFER_TOO_SMALL);
  bytes out(size);
  REQUIRE(ldp_aggregator_serialize(a, out.data(), out.size(), &size) == LDP_OK);
  CHECK(size == out.size());
  return out;
}

std::vector<ldp_estimate> estimates(const ldp_aggregator* a) {
  size_t n = 0;
  REQUIRE(ldp_aggregator_estimate_all(a, 0.9, nullptr, 0, &n) == LDP_BUFFER_TOO_SMALL);
  std::vector<ldp_estimate> out(n);
  REQUIRE(ldp_aggregator_estimate_all(a, 0.9, out.data(), out.size(), &n) == LDP_OK);
  CHECK(n == out.size());
  return out;
}

// Bitwise equality, so that NaN bounds compare equal to themselves.
bool same(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_CASE("status codes, mechanism ids and names match the C++ API") {
  CHECK(LDP_STATUS_COUNT == ldp::status_count);
  for (int32_t s = 0; s < LDP_STATUS_COUNT; ++s) {
    CHECK(std::string(ldp_status_name(s)) == ldp::status_name(static_cast<status>(s)));
  }
  CHECK(std::string(ldp_status_name(LDP_OK)) == "ok");
  CHECK(std::string(ldp_status_name(LDP_INVALID_PARAMETERS)) == "invalid_parameters");
  CHECK(std::string(ldp_status_name(LDP_STATUS_COUNT)).empty());
  CHECK(std::string(ldp_status_name(-1)).empty());

  // lib/capi/src/mechanism_ids.cpp checks at compile time that each LDP_MECH_* is its row's id.
  for (const ldp::wire::mechanism_row& row : ldp::wire::mechanism_table) {
    CHECK(std::string(ldp_mechanism_name(static_cast<ldp_mechanism>(row.id))) == row.wire_name);
  }
  CHECK(LDP_MECH_SPARSE_VECTOR == LDP_MECH_SPARSE_PROJECTION);
  CHECK(std::string(ldp_mechanism_name(0)).empty());
  CHECK(std::string(ldp_mechanism_name(256 + LDP_MECH_GRR)).empty());
}

TEST_CASE("context sizes: the ABI check accepts the header's structs and refuses smaller ones") {
  CHECK(ldp_check_abi(sizeof(ldp_rng), sizeof(ldp_params)) == LDP_OK);
  CHECK(ldp_check_abi(sizeof(ldp::random::drbg), sizeof(ldp_params)) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_check_abi(sizeof(ldp_rng), sizeof(ldp::wire::params)) == LDP_INVALID_ARGUMENT);
  CHECK(alignof(ldp_rng) >= alignof(uint64_t));
  CHECK(alignof(ldp_params) >= alignof(uint64_t));
  CHECK(LDP_PARAMS_MAX_ENCODED_SIZE >= ldp::wire::params_max_size);
}

TEST_CASE("blocks built through the C API are the C++ blocks") {
  for (const mechanism m : oracles) {
    const std::string name = ldp::wire::mechanism_name(m);
    CAPTURE(name);
    const auto cxx = cxx_block(m);
    REQUIRE(cxx.code == status::ok);
    const ldp_params c = c_block(m);
    bytes expected(ldp::wire::params_max_size);
    size_t n = 0;
    REQUIRE(ldp::wire::encode_params(cxx.block, expected, &n) == status::ok);
    expected.resize(n);
    CHECK(encode(c) == expected);
    CHECK(ldp_params_mechanism(&c) == static_cast<ldp_mechanism>(m));
    CHECK(ldp_params_fingerprint(&c) == ldp::wire::fingerprint(cxx.block));
    CHECK(ldp_params_epsilon(&c) == cxx.epsilon_impl);
    CHECK(ldp_params_epsilon(&c) <= epsilon);
    CHECK(ldp_report_max_size(&c) == ldp::wire::max_report_size(cxx.block));
    CHECK(ldp_workspace_size(&c) == ldp::device::frequency_context::workspace_size(cxx.block));

    // Decoding the encoding gives the same context.
    ldp_params decoded;
    REQUIRE(ldp_params_decode(&decoded, expected.data(), expected.size()) == LDP_OK);
    CHECK(encode(decoded) == expected);
    CHECK(ldp_params_fingerprint(&decoded) == ldp_params_fingerprint(&c));
  }
}

TEST_CASE("the C randomizer writes the C++ randomizer's bytes for the same seed") {
  for (const mechanism m : oracles) {
    const std::string name = ldp::wire::mechanism_name(m);
    CAPTURE(name);
    const std::vector<bytes> c = c_reports(c_block(m), 60), cxx = cxx_reports(cxx_block(m).block, 60);
    CHECK(c == cxx);
    // A different seed gives different reports (the seed is used, not ignored).
    ldp_rng other;
    const uint8_t other_seed[LDP_SEED_SIZE] = {1};
    REQUIRE(ldp_rng_init(&other, other_seed) == LDP_OK);
    const ldp_params p = c_block(m);
    std::vector<uint64_t> workspace(ldp_workspace_size(&p) / 8 + 1);
    int differ = 0;
    for (int i = 0; i < 60; ++i) {
      bytes report(ldp_report_max_size(&p));
      size_t n = 0;
      REQUIRE(ldp_randomize_item(&p, &other, static_cast<uint32_t>(i * 7) % domain, workspace.data(),
                                 workspace.size() * 8, report.data(), report.size(), &n) == LDP_OK);
      report.resize(n);
      differ += report != c[static_cast<size_t>(i)] ? 1 : 0;
    }
    CHECK(differ > 0);
  }
}

TEST_CASE("the examples' block is the documented OUE block") {
  ldp_params built, example;
  REQUIRE(ldp_params_frequency(&built, LDP_MECH_OUE, 16, 2.0, 0, 0, nullptr) == LDP_OK);
  REQUIRE(ldp_params_decode(&example, example_params_block, sizeof example_params_block) == LDP_OK);
  CHECK(encode(example) == encode(built));
  // firmware_example.c sizes its buffers for it.
  CHECK(ldp_report_max_size(&example) <= 64);
  CHECK(ldp_workspace_size(&example) <= 4 * 8);
}

TEST_CASE("bad blocks and builder arguments are refused with their status") {
  const ldp_params oue = c_block(mechanism::oue);
  const bytes good = encode(oue);
  ldp_params p;
  CHECK(ldp_params_decode(&p, good.data(), good.size() - 1) == LDP_WRONG_LENGTH);
  CHECK(ldp_params_fingerprint(&p) == 0);  // a failed decode leaves no usable context
  bytes longer = good;
  longer.push_back(0);
  CHECK(ldp_params_decode(&p, longer.data(), longer.size()) == LDP_WRONG_LENGTH);
  bytes version = good;
  version[0] = 2;
  CHECK(ldp_params_decode(&p, version.data(), version.size()) == LDP_UNSUPPORTED_VERSION);
  bytes unknown = good;
  unknown[1] = 99;
  CHECK(ldp_params_decode(&p, unknown.data(), unknown.size()) == LDP_UNKNOWN_MECHANISM);
  bytes sue = good;
  sue[1] = LDP_MECH_GRR;  // OUE fields under GRR's id: fields GRR does not have
  CHECK(ldp_params_decode(&p, sue.data(), sue.size()) == LDP_INVALID_PARAMETERS);
  CHECK(ldp_params_decode(&p, nullptr, 0) == LDP_WRONG_LENGTH);
  CHECK(ldp_params_decode(&p, nullptr, 5) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_decode(nullptr, good.data(), good.size()) == LDP_INVALID_ARGUMENT);

  CHECK(ldp_params_frequency(&p, LDP_MECH_CMS, domain, epsilon, 4, 64, nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_frequency(&p, LDP_MECH_LAPLACE, domain, epsilon, 0, 0, nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_frequency(&p, 256 + LDP_MECH_GRR, domain, epsilon, 0, 0, nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_frequency(&p, LDP_MECH_GRR, domain, 0.0, 0, 0, nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_frequency(&p, LDP_MECH_GRR, domain, std::nan(""), 0, 0, nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_frequency(&p, LDP_MECH_GRR, 1, epsilon, 0, 0, nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_mechanism(&p) == 0);
  CHECK(ldp_params_frequency(nullptr, LDP_MECH_GRR, domain, epsilon, 0, 0, nullptr) == LDP_INVALID_ARGUMENT);

  bytes small(good.size() - 1);
  size_t n = 99;
  CHECK(ldp_params_encode(&oue, small.data(), small.size(), &n) == LDP_BUFFER_TOO_SMALL);
  CHECK(n == 0);
  CHECK(ldp_params_encode(&oue, nullptr, 4, &n) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_encode(&oue, small.data(), small.size(), nullptr) == LDP_INVALID_ARGUMENT);
}

TEST_CASE("contexts that were never initialized, or were wiped, are refused") {
  ldp_params zero_params;
  std::memset(&zero_params, 0, sizeof zero_params);
  ldp_rng zero_rng;
  std::memset(&zero_rng, 0, sizeof zero_rng);
  CHECK(ldp_params_mechanism(&zero_params) == 0);
  CHECK(ldp_params_fingerprint(&zero_params) == 0);
  CHECK(std::isnan(ldp_params_epsilon(&zero_params)));
  CHECK(ldp_report_max_size(&zero_params) == 0);
  CHECK(ldp_workspace_size(&zero_params) == 0);
  CHECK(ldp_params_fingerprint(nullptr) == 0);
  size_t n = 0;
  uint8_t block[LDP_PARAMS_MAX_ENCODED_SIZE];
  CHECK(ldp_params_encode(&zero_params, block, sizeof block, &n) == LDP_INVALID_ARGUMENT);

  const ldp_params grr = c_block(mechanism::grr);
  uint8_t out[64];
  CHECK(ldp_randomize_item(&grr, &zero_rng, 1, nullptr, 0, out, sizeof out, &n) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_randomize_item(&zero_params, &zero_rng, 1, nullptr, 0, out, sizeof out, &n) == LDP_INVALID_ARGUMENT);

  ldp_rng rng;
  REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
  CHECK(ldp_randomize_item(&grr, &rng, 1, nullptr, 0, out, sizeof out, &n) == LDP_OK);
  CHECK(ldp_randomize_item(&zero_params, &rng, 1, nullptr, 0, out, sizeof out, &n) == LDP_INVALID_ARGUMENT);
  ldp_rng_wipe(&rng);
  CHECK(std::memcmp(&rng, &zero_rng, sizeof rng) == 0);  // key and buffered output erased
  CHECK(ldp_randomize_item(&grr, &rng, 1, nullptr, 0, out, sizeof out, &n) == LDP_INVALID_ARGUMENT);
  ldp_rng_wipe(&rng);  // harmless twice
  ldp_rng_wipe(nullptr);
  CHECK(ldp_rng_init(nullptr, rng_seed) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_rng_init(&rng, nullptr) == LDP_INVALID_ARGUMENT);
}

TEST_CASE("the randomizer checks items, buffers and workspaces") {
  const ldp_params oue = c_block(mechanism::oue), grr = c_block(mechanism::grr);
  ldp_rng rng;
  REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
  const size_t max = ldp_report_max_size(&oue), ws = ldp_workspace_size(&oue);
  REQUIRE(ws == 8);  // 40 bits
  std::vector<uint64_t> workspace(2);
  bytes out(max);
  size_t n = 99;
  CHECK(ldp_randomize_item(&oue, &rng, domain, workspace.data(), ws, out.data(), max, &n) == LDP_OUT_OF_RANGE);
  CHECK(ldp_randomize_item(&oue, &rng, 1, workspace.data(), ws, out.data(), max - 1, &n) == LDP_BUFFER_TOO_SMALL);
  CHECK(ldp_randomize_item(&oue, &rng, 1, workspace.data(), ws - 1, out.data(), max, &n) == LDP_WORKSPACE_TOO_SMALL);
  CHECK(ldp_randomize_item(&oue, &rng, 1, nullptr, 0, out.data(), max, &n) == LDP_WORKSPACE_TOO_SMALL);
  auto* misaligned = reinterpret_cast<unsigned char*>(workspace.data()) + 1;
  CHECK(ldp_randomize_item(&oue, &rng, 1, misaligned, ws, out.data(), max, &n) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_randomize_item(&oue, &rng, 1, nullptr, ws, out.data(), max, &n) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_randomize_item(&oue, &rng, 1, workspace.data(), ws, nullptr, max, &n) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_randomize_item(&oue, &rng, 1, workspace.data(), ws, out.data(), max, nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_randomize_item(&oue, nullptr, 1, workspace.data(), ws, out.data(), max, &n) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_randomize_item(nullptr, &rng, 1, workspace.data(), ws, out.data(), max, &n) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_randomize_item(&oue, &rng, 1, workspace.data(), ws, out.data(), max, &n) == LDP_OK);
  CHECK(n == max);
  // GRR needs no workspace; an unused workspace is fine.
  CHECK(ldp_randomize_item(&grr, &rng, 1, nullptr, 0, out.data(), max, &n) == LDP_OK);
  CHECK(ldp_randomize_item(&grr, &rng, 1, workspace.data(), 16, out.data(), max, &n) == LDP_OK);
  ldp_rng_wipe(&rng);
}

TEST_CASE("a C aggregator counts, saves and estimates exactly like the C++ aggregator") {
  for (const mechanism m : oracles) {
    const std::string name = ldp::wire::mechanism_name(m);
    CAPTURE(name);
    const ldp_params p = c_block(m);
    const std::vector<bytes> reports = c_reports(p, 300);

    c_aggregator c;
    REQUIRE(ldp_aggregator_create(&p, &c.a) == LDP_OK);
    REQUIRE(c.a != nullptr);
    std::unique_ptr<ldp::server::aggregator> cxx;
    REQUIRE(ldp::server::aggregator::create(cxx_block(m).block, &cxx) == status::ok);
    for (const bytes& r : reports) {
      CHECK(ldp_aggregator_add_report(c.a, r.data(), r.size()) == LDP_OK);
      CHECK(cxx->add_report(r) == status::ok);
    }
    // A truncated report is rejected under its status by both, and counted.
    const bytes& first = reports.front();
    CHECK(ldp_aggregator_add_report(c.a, first.data(), 5) == LDP_WRONG_LENGTH);
    CHECK(cxx->add_report(ldp::span<const unsigned char>(first.data(), 5)) == status::wrong_length);
    CHECK(ldp_aggregator_reports(c.a) == 300);
    CHECK(ldp_aggregator_rejected(c.a, LDP_WRONG_LENGTH) == 1);
    CHECK(ldp_aggregator_rejected(c.a, LDP_OK) == 0);
    CHECK(ldp_aggregator_rejected(c.a, LDP_STATUS_COUNT) == 0);
    CHECK(ldp_aggregator_rejected(c.a, -1) == 0);

    const bytes state = serialize(c.a);
    CHECK(state == cxx->serialize());
    const std::vector<ldp_estimate> ce = estimates(c.a);
    const auto xe = cxx->estimate_all(0.9);
    REQUIRE(ce.size() == xe.size());
    CHECK(ce.size() == domain);
    for (size_t i = 0; i < ce.size(); ++i) {
      CHECK(ce[i].item == xe[i].item);
      CHECK(same(ce[i].value, xe[i].value));
      CHECK(same(ce[i].variance, xe[i].variance));
      CHECK(same(ce[i].ci_low, xe[i].ci_low));
      CHECK(same(ce[i].ci_high, xe[i].ci_high));
    }

    // Saved state reloads to the same state and parameters.
    c_aggregator reloaded;
    REQUIRE(ldp_aggregator_deserialize(state.data(), state.size(), &reloaded.a) == LDP_OK);
    CHECK(serialize(reloaded.a) == state);
    ldp_params back;
    REQUIRE(ldp_aggregator_params(reloaded.a, &back) == LDP_OK);
    CHECK(encode(back) == encode(p));
    CHECK(ldp_params_fingerprint(&back) == ldp_params_fingerprint(&p));

    // Merging the reloaded copy doubles every count, as in C++.
    REQUIRE(ldp_aggregator_merge(c.a, reloaded.a) == LDP_OK);
    std::unique_ptr<ldp::server::aggregator> copy;
    REQUIRE(ldp::server::aggregator::deserialize(state, &copy) == status::ok);
    REQUIRE(cxx->merge(*copy) == status::ok);
    CHECK(ldp_aggregator_reports(c.a) == 600);
    CHECK(serialize(c.a) == cxx->serialize());
  }
}

TEST_CASE("C aggregator: batches and payloads") {
  const ldp_params p = c_block(mechanism::olh);
  const ldp::wire::params block = cxx_block(mechanism::olh).block;
  const std::vector<bytes> reports = c_reports(p, 50);
  bytes batch(4096);
  size_t n = 0;
  REQUIRE(ldp::wire::encode_batch_header(block, batch, &n) == status::ok);
  ldp::wire::chunk_writer writer(ldp::span<unsigned char>(batch.data() + n, batch.size() - n));
  for (const bytes& r : reports) {
    REQUIRE(writer.add(ldp::span<const unsigned char>(r.data() + ldp::wire::report_header_size,
                                                      r.size() - ldp::wire::report_header_size)) == status::ok);
  }
  n += writer.finish().size();
  ldp::wire::chunk_writer end(ldp::span<unsigned char>(batch.data() + n, batch.size() - n));
  n += end.finish().size();
  batch.resize(n);

  c_aggregator from_batch, from_payloads, from_reports;
  REQUIRE(ldp_aggregator_create(&p, &from_batch.a) == LDP_OK);
  REQUIRE(ldp_aggregator_create(&p, &from_payloads.a) == LDP_OK);
  REQUIRE(ldp_aggregator_create(&p, &from_reports.a) == LDP_OK);
  CHECK(ldp_aggregator_add_batch(from_batch.a, batch.data(), batch.size()) == LDP_OK);
  for (const bytes& r : reports) {
    CHECK(ldp_aggregator_add_report(from_reports.a, r.data(), r.size()) == LDP_OK);
    CHECK(ldp_aggregator_add_payload(from_payloads.a, r.data() + ldp::wire::report_header_size,
                                     r.size() - ldp::wire::report_header_size) == LDP_OK);
  }
  CHECK(ldp_aggregator_reports(from_batch.a) == 50);
  CHECK(serialize(from_batch.a) == serialize(from_reports.a));
  CHECK(serialize(from_payloads.a) == serialize(from_reports.a));

  // A batch for other parameters counts nothing.
  const ldp_params grr = c_block(mechanism::grr);
  c_aggregator other;
  REQUIRE(ldp_aggregator_create(&grr, &other.a) == LDP_OK);
  CHECK(ldp_aggregator_add_batch(other.a, batch.data(), batch.size()) == LDP_PARAMETER_MISMATCH);
  CHECK(ldp_aggregator_reports(other.a) == 0);
}

TEST_CASE("C aggregator: bad arguments, bad state and short buffers") {
  const ldp_params oue = c_block(mechanism::oue), grr = c_block(mechanism::grr);
  ldp_params zero;
  std::memset(&zero, 0, sizeof zero);
  c_aggregator a, b;
  CHECK(ldp_aggregator_create(&zero, &a.a) == LDP_INVALID_ARGUMENT);
  CHECK(a.a == nullptr);
  CHECK(ldp_aggregator_create(&oue, nullptr) == LDP_INVALID_ARGUMENT);
  REQUIRE(ldp_aggregator_create(&oue, &a.a) == LDP_OK);
  REQUIRE(ldp_aggregator_create(&grr, &b.a) == LDP_OK);

  // Reports of another block are rejected and counted as such.
  const std::vector<bytes> grr_reports = c_reports(grr, 3);
  CHECK(ldp_aggregator_add_report(a.a, grr_reports[0].data(), grr_reports[0].size()) == LDP_PARAMETER_MISMATCH);
  CHECK(ldp_aggregator_rejected(a.a, LDP_PARAMETER_MISMATCH) == 1);
  CHECK(ldp_aggregator_add_report(a.a, nullptr, 3) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_aggregator_add_report(nullptr, grr_reports[0].data(), grr_reports[0].size()) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_aggregator_add_payload(a.a, nullptr, 1) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_aggregator_add_batch(a.a, nullptr, 1) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_aggregator_reports(nullptr) == 0);
  CHECK(ldp_aggregator_rejected(nullptr, LDP_WRONG_LENGTH) == 0);

  CHECK(ldp_aggregator_merge(a.a, b.a) == LDP_PARAMETER_MISMATCH);
  CHECK(ldp_aggregator_merge(a.a, a.a) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_aggregator_merge(a.a, nullptr) == LDP_INVALID_ARGUMENT);

  // Short buffers report the size needed and write nothing.
  const bytes state = serialize(a.a);
  bytes small(state.size() - 1, 0xee);
  size_t size = 0;
  CHECK(ldp_aggregator_serialize(a.a, small.data(), small.size(), &size) == LDP_BUFFER_TOO_SMALL);
  CHECK(size == state.size());
  CHECK(small == bytes(state.size() - 1, 0xee));
  CHECK(ldp_aggregator_serialize(a.a, nullptr, 1, &size) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_aggregator_serialize(a.a, small.data(), small.size(), nullptr) == LDP_INVALID_ARGUMENT);
  std::vector<ldp_estimate> few(domain - 1);
  size_t count = 0;
  CHECK(ldp_aggregator_estimate_all(a.a, 0.95, few.data(), few.size(), &count) == LDP_BUFFER_TOO_SMALL);
  CHECK(count == domain);
  CHECK(ldp_aggregator_estimate_all(a.a, 0.95, few.data(), few.size(), nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_aggregator_params(a.a, nullptr) == LDP_INVALID_ARGUMENT);

  // Corrupted or truncated state is refused with a status; no aggregator comes back.
  ldp_aggregator* bad = reinterpret_cast<ldp_aggregator*>(&size);
  CHECK(ldp_aggregator_deserialize(state.data(), state.size() - 1, &bad) != LDP_OK);
  CHECK(bad == nullptr);
  bytes flipped = state;
  flipped.back() ^= 1;
  CHECK(ldp_aggregator_deserialize(flipped.data(), flipped.size(), &bad) == LDP_CHECKSUM_MISMATCH);
  CHECK(bad == nullptr);
  CHECK(ldp_aggregator_deserialize(nullptr, 0, &bad) == LDP_WRONG_LENGTH);
  CHECK(ldp_aggregator_deserialize(nullptr, 3, &bad) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_aggregator_deserialize(state.data(), state.size(), nullptr) == LDP_INVALID_ARGUMENT);
  ldp_aggregator_free(nullptr);
}

TEST_CASE("numeric and vector blocks built through the C API are the C++ blocks") {
  const uint8_t rotation_seed[LDP_SEED_SIZE] = {9, 8, 7};
  const struct {
    const char* name;
    ldp::wire::derived_params cxx;
  } cases[] = {
      {"laplace", ldp::wire::make_laplace(-2.0, 3.0, 12, 0.5)},
      {"duchi", ldp::wire::make_duchi(-1.0, 1.0, 16, 1.0)},
      {"laplace-vector", ldp::wire::make_laplace_vector(5, 0.0, 1.0, 10, 2.0)},
      {"vector-duchi", ldp::wire::make_vector_duchi(6, 1.5, 12, 1.0, 1e-6, rotation_seed)},
      {"vector-laplace", ldp::wire::make_vector_laplace(6, 1.5, 12, 1.0, 1e-6, rotation_seed)},
  };
  ldp_params built[5];  // the same five, in order
  CHECK(ldp_params_numeric(&built[0], LDP_MECH_LAPLACE, -2.0, 3.0, 12, 0.5) == LDP_OK);
  CHECK(ldp_params_numeric(&built[1], LDP_MECH_DUCHI, -1.0, 1.0, 16, 1.0) == LDP_OK);
  CHECK(ldp_params_laplace_vector(&built[2], 5, 0.0, 1.0, 10, 2.0) == LDP_OK);
  CHECK(ldp_params_vector_mean(&built[3], LDP_MECH_VECTOR_DUCHI, 6, 1.5, 12, 1.0, 1e-6, rotation_seed) == LDP_OK);
  CHECK(ldp_params_vector_mean(&built[4], LDP_MECH_VECTOR_LAPLACE, 6, 1.5, 12, 1.0, 1e-6, rotation_seed) == LDP_OK);
  for (size_t i = 0; i < 5; ++i) {
    const std::string name = cases[i].name;
    CAPTURE(name);
    REQUIRE(cases[i].cxx.code == status::ok);
    bytes expected(ldp::wire::params_max_size);
    size_t n = 0;
    REQUIRE(ldp::wire::encode_params(cases[i].cxx.block, expected, &n) == status::ok);
    expected.resize(n);
    CHECK(encode(built[i]) == expected);
    CHECK(std::string(ldp_mechanism_name(ldp_params_mechanism(&built[i]))) == name);
    CHECK(ldp_params_epsilon(&built[i]) == cases[i].cxx.epsilon_impl);
    CHECK(ldp_report_max_size(&built[i]) == ldp::wire::max_report_size(cases[i].cxx.block));
  }

  // The grid of a block: x * 2^f rounded half to even.
  int64_t fixed = 0;
  CHECK(ldp_params_to_fixed(&built[0], 1.25, &fixed) == LDP_OK);
  CHECK(fixed == 5120);  // 1.25 * 2^12
  CHECK(ldp_params_to_fixed(&built[1], 0.5 + 1.0 / 131072, &fixed) == LDP_OK);
  CHECK(fixed == 32768);  // 32768.5 rounds to even
  CHECK(ldp_params_to_fixed(&built[0], std::nan(""), &fixed) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_to_fixed(&built[0], 1e300, &fixed) == LDP_OVERFLOW);
  CHECK(ldp_params_to_fixed(&built[0], 1.0, nullptr) == LDP_INVALID_ARGUMENT);
  const ldp_params grr = c_block(mechanism::grr);
  CHECK(ldp_params_to_fixed(&grr, 1.0, &fixed) == LDP_INVALID_ARGUMENT);  // no grid

  // Wrong mechanisms and out-of-range arguments leave no usable context.
  ldp_params p;
  CHECK(ldp_params_numeric(&p, LDP_MECH_GRR, -1.0, 1.0, 16, 1.0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_numeric(&p, LDP_MECH_DUCHI, 1.0, -1.0, 16, 1.0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_numeric(&p, LDP_MECH_LAPLACE, -1.0, 1.0, 63, 1.0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_numeric(&p, LDP_MECH_LAPLACE, -1.0, 1.0, 16, 0.0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_mechanism(&p) == 0);
  CHECK(ldp_params_laplace_vector(&p, 0, 0.0, 1.0, 10, 1.0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_vector_mean(&p, LDP_MECH_LAPLACE, 6, 1.5, 12, 1.0, 1e-6, rotation_seed) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_vector_mean(&p, LDP_MECH_VECTOR_DUCHI, 6, 1.5, 12, 1.0, 1e-6, nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_vector_mean(&p, LDP_MECH_VECTOR_DUCHI, 6, 1.5, 12, 1.0, 1.5, rotation_seed) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_mechanism(&p) == 0);
  CHECK(ldp_params_unit_vector(&p, LDP_MECH_VECTOR_DUCHI, 6, 1.0, 16, 1.0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_unit_vector(&p, LDP_MECH_L2_BALL, 0, 1.0, 16, 1.0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_unit_vector(nullptr, LDP_MECH_L2_BALL, 6, 1.0, 16, 1.0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_unit_vector(&p, LDP_MECH_L2_BALL, 6, 1.0, 16, 1.0) == LDP_OK);
  CHECK(ldp_params_mechanism(&p) == LDP_MECH_L2_BALL);
  CHECK(ldp_params_unit_vector(&p, LDP_MECH_PRIVUNITG, 6, 1.0, 16, 0.0005) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_unit_vector(&p, LDP_MECH_PRIVUNITG, 6, 1.0, 16, 1.0) == LDP_OK);
  CHECK(ldp_params_mechanism(&p) == LDP_MECH_PRIVUNITG);
  CHECK(ldp_params_numeric(nullptr, LDP_MECH_LAPLACE, -1.0, 1.0, 16, 1.0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_laplace_vector(nullptr, 5, 0.0, 1.0, 10, 1.0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_vector_mean(nullptr, LDP_MECH_VECTOR_DUCHI, 6, 1.5, 12, 1.0, 1e-6, rotation_seed) ==
        LDP_INVALID_ARGUMENT);
}

namespace {

const uint8_t vector_seed[LDP_SEED_SIZE] = {0x33, 0x44};

// 40 reports of a varying value or vector through the C API, and through the C++ API with the
// same seed; the C workspace is exactly ldp_workspace_size() bytes.
std::vector<bytes> c_numeric_reports(const ldp_params& p, uint32_t d) {
  ldp_rng rng;
  REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
  std::vector<uint64_t> workspace(ldp_workspace_size(&p) / 8);
  std::vector<bytes> out;
  for (int i = 0; i < 40; ++i) {
    bytes report(ldp_report_max_size(&p));
    size_t n = 0;
    if (d == 0) {
      REQUIRE(ldp_randomize_value(&p, &rng, (i - 20) * 977, report.data(), report.size(), &n) == LDP_OK);
    } else {
      std::vector<int64_t> x(d);
      for (uint32_t j = 0; j < d; ++j) x[j] = (i - 20) * 311 + static_cast<int64_t>(j) * 97;
      REQUIRE(ldp_randomize_vector(&p, &rng, x.data(), d, workspace.data(), workspace.size() * 8, report.data(),
                                   report.size(), &n) == LDP_OK);
    }
    report.resize(n);
    out.push_back(report);
  }
  ldp_rng_wipe(&rng);
  return out;
}

std::vector<bytes> cxx_numeric_reports(const ldp::wire::params& p, uint32_t d) {
  ldp::random::drbg rng(rng_seed);
  ldp::test::owned_context<ldp::device::mean_context> scalar(p);
  ldp::test::owned_context<ldp::device::vector_mean_context> vector(p);
  ldp::test::owned_context<ldp::device::unit_vector_context> unit(p);
  const bool is_unit = ldp::wire::in_family(p.mech, ldp::wire::mechanism_family::unit_vector);
  REQUIRE((d == 0 ? scalar.code : is_unit ? unit.code : vector.code) == status::ok);
  std::vector<bytes> out;
  for (int i = 0; i < 40; ++i) {
    bytes report(ldp::wire::max_report_size(p));
    size_t n = 0;
    std::vector<int64_t> x(d);
    for (uint32_t j = 0; j < d; ++j) x[j] = (i - 20) * 311 + static_cast<int64_t>(j) * 97;
    const status s = d == 0    ? scalar->randomize((i - 20) * 977, rng, report, ldp::device::framing::report, &n)
                     : is_unit ? unit->randomize(x, rng, report, ldp::device::framing::report, &n)
                               : vector->randomize(x, rng, report, ldp::device::framing::report, &n);
    REQUIRE(s == status::ok);
    report.resize(n);
    out.push_back(report);
  }
  return out;
}

}  // namespace

TEST_CASE("the C value and vector randomizers write the C++ randomizers' bytes for the same seed") {
  const struct {
    const char* name;
    ldp::wire::derived_params cxx;
    uint32_t d;  // 0: a scalar value
    size_t workspace;
  } cases[] = {
      {"laplace", ldp::wire::make_laplace(-2.0, 3.0, 12, 0.5), 0, 0},
      {"duchi", ldp::wire::make_duchi(-1.0, 1.0, 16, 1.0), 0, 0},
      {"laplace-vector", ldp::wire::make_laplace_vector(5, 0.0, 1.0, 10, 2.0), 5, 40},
      // d~ = 8: 8 rotated values and one sign word, 36 bytes, rounded up to 40.
      {"vector-duchi", ldp::wire::make_vector_duchi(6, 1.5, 12, 1.0, 1e-6, vector_seed), 6, 40},
      {"vector-laplace", ldp::wire::make_vector_laplace(6, 1.5, 12, 1.0, 1e-6, vector_seed), 6, 40},
      // d~ = 64: 64 values and 2 sign words.
      {"vector-laplace 50", ldp::wire::make_vector_laplace(50, 4.0, 8, 2.0, 1e-3, vector_seed), 50, 264},
      // d = 6, d~ = 8: 8 clipped int32 values and 6 int64 coordinates, 80 bytes.
      {"l2-ball", ldp::wire::make_l2_ball(6, 1.5, 12, 1.0), 6, 80},
      {"privunitg", ldp::wire::make_privunitg(6, 1.5, 12, 1.0), 6, 80},
  };
  for (const auto& c : cases) {
    const std::string name = c.name;
    CAPTURE(name);
    REQUIRE(c.cxx.code == status::ok);
    bytes block(ldp::wire::params_max_size);
    size_t n = 0;
    REQUIRE(ldp::wire::encode_params(c.cxx.block, block, &n) == status::ok);
    ldp_params p;
    REQUIRE(ldp_params_decode(&p, block.data(), n) == LDP_OK);
    CHECK(ldp_workspace_size(&p) == c.workspace);
    const std::vector<bytes> from_c = c_numeric_reports(p, c.d);
    CHECK(from_c == cxx_numeric_reports(c.cxx.block, c.d));
    // The server accepts them all.
    c_aggregator a;
    REQUIRE(ldp_aggregator_create(&p, &a.a) == LDP_OK);
    for (const bytes& r : from_c) CHECK(ldp_aggregator_add_report(a.a, r.data(), r.size()) == LDP_OK);
    CHECK(ldp_aggregator_reports(a.a) == from_c.size());
    CHECK(estimates(a.a).size() == (c.d == 0 ? 1 : c.d));
  }
}

TEST_CASE("value and vector randomizers: wrong mechanisms, dimensions and workspaces") {
  ldp_params laplace, vector, rotated;
  REQUIRE(ldp_params_numeric(&laplace, LDP_MECH_LAPLACE, -1.0, 1.0, 16, 1.0) == LDP_OK);
  REQUIRE(ldp_params_laplace_vector(&vector, 4, -1.0, 1.0, 16, 1.0) == LDP_OK);
  REQUIRE(ldp_params_vector_mean(&rotated, LDP_MECH_VECTOR_DUCHI, 4, 1.0, 16, 1.0, 1e-3, vector_seed) == LDP_OK);
  const ldp_params grr = c_block(mechanism::grr);
  ldp_rng rng;
  REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
  uint8_t out[128];
  uint64_t workspace[8];
  const int64_t x[5] = {1, -2, 3, -4, 5};
  size_t n = 0;

  // Each randomizer serves its own mechanisms only.
  CHECK(ldp_randomize_value(&grr, &rng, 1, out, sizeof out, &n) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_randomize_value(&vector, &rng, 1, out, sizeof out, &n) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_randomize_item(&laplace, &rng, 1, nullptr, 0, out, sizeof out, &n) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_randomize_vector(&laplace, &rng, x, 1, workspace, sizeof workspace, out, sizeof out, &n) ==
        LDP_INVALID_ARGUMENT);
  CHECK(ldp_randomize_vector(&grr, &rng, x, 1, workspace, sizeof workspace, out, sizeof out, &n) ==
        LDP_INVALID_ARGUMENT);

  for (const ldp_params* p : {&vector, &rotated}) {
    const size_t ws = ldp_workspace_size(p);
    REQUIRE(ws > 0);
    REQUIRE(ws <= sizeof workspace);
    CHECK(ldp_randomize_vector(p, &rng, x, 4, workspace, ws, out, sizeof out, &n) == LDP_OK);
    CHECK(ldp_randomize_vector(p, &rng, x, 5, workspace, ws, out, sizeof out, &n) == LDP_INVALID_ARGUMENT);
    CHECK(ldp_randomize_vector(p, &rng, x, 3, workspace, ws, out, sizeof out, &n) == LDP_INVALID_ARGUMENT);
    CHECK(ldp_randomize_vector(p, &rng, nullptr, 4, workspace, ws, out, sizeof out, &n) == LDP_INVALID_ARGUMENT);
    CHECK(ldp_randomize_vector(p, &rng, x, 4, workspace, ws - 8, out, sizeof out, &n) == LDP_WORKSPACE_TOO_SMALL);
    CHECK(ldp_randomize_vector(p, &rng, x, 4, reinterpret_cast<uint8_t*>(workspace) + 4, ws, out, sizeof out, &n) ==
          LDP_INVALID_ARGUMENT);
    CHECK(ldp_randomize_vector(p, &rng, x, 4, workspace, ws, out, 10, &n) == LDP_BUFFER_TOO_SMALL);
    CHECK(ldp_randomize_vector(p, nullptr, x, 4, workspace, ws, out, sizeof out, &n) == LDP_INVALID_ARGUMENT);
  }
  CHECK(ldp_randomize_value(&laplace, &rng, 1, out, ldp_report_max_size(&laplace), &n) == LDP_OK);
  CHECK(ldp_randomize_value(&laplace, &rng, 1, out, 10, &n) == LDP_BUFFER_TOO_SMALL);
  CHECK(ldp_randomize_value(&laplace, &rng, 1, nullptr, 10, &n) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_randomize_value(&laplace, &rng, 1, out, sizeof out, nullptr) == LDP_INVALID_ARGUMENT);
  // Far outside the range: clamped, not refused.
  CHECK(ldp_randomize_value(&laplace, &rng, INT64_MAX, out, sizeof out, &n) == LDP_OK);
  ldp_rng_wipe(&rng);
  CHECK(ldp_randomize_value(&laplace, &rng, 1, out, sizeof out, &n) == LDP_INVALID_ARGUMENT);
}

TEST_CASE("the C user-level randomizer writes the C++ bytes, and checks its arguments") {
  const uint8_t seed[LDP_SEED_SIZE] = {0x5e};
  const int64_t one = int64_t{1} << 16;
  ldp::wire::kent_shape scalar, rotated;
  scalar.clip_lo = rotated.clip_lo = -one;
  scalar.clip_hi = rotated.clip_hi = one;
  scalar.observations = 6;
  rotated.observations = 3;
  rotated.vector_dim = 3;
  rotated.fold_coordinate = 1;
  rotated.hadamard_dim = 4;
  rotated.rotation_seed = seed;
  const ldp::wire::params blocks[] = {
      ldp::wire::make_kent_vote(1.0, 70, scalar).block,  // 70 cells: two vote words
      ldp::wire::make_kent_refine(1.0, -one / 2, one / 3, scalar).block,
      ldp::wire::make_kent_vote(1.0, 9, rotated).block,
      ldp::wire::make_kent_refine(1.0, -one / 4, one / 4, rotated).block,
  };
  // 8 bytes per 64 cells of a vote, then 4 (sign words + d~) with a rotation, rounded up to 8:
  // 70 cells; none; 9 cells + 4 (1 + 4); 4 (1 + 4).
  const size_t workspace_sizes[] = {16, 0, 32, 24};
  // 4 scalar observations (below the cap of 6), or 3 vectors of 3 coordinates (the cap).
  const std::vector<int64_t> scalar_data = {one / 3, -one / 5, one, 7};
  const std::vector<int64_t> vector_data = {one / 3, -one / 5, one / 7, 1, 2, 3, -one / 2, 0, one / 9};
  for (size_t b = 0; b < 4; ++b) {
    const ldp::wire::params& block = blocks[b];
    CAPTURE(b);
    REQUIRE(ldp::wire::validate(block) == status::ok);
    bytes encoded(ldp::wire::params_max_size);
    size_t n = 0;
    REQUIRE(ldp::wire::encode_params(block, encoded, &n) == status::ok);
    ldp_params p;
    REQUIRE(ldp_params_decode(&p, encoded.data(), n) == LDP_OK);
    const size_t ws = ldp_workspace_size(&p);
    CHECK(ws == workspace_sizes[b]);
    const std::vector<int64_t>& data = b < 2 ? scalar_data : vector_data;

    // C++: the context on the workspace size user_level.h asks for.
    ldp::random::drbg cxx_rng(rng_seed);
    CHECK(ws == ldp::device::user_level_context::workspace_size(block));
    ldp::test::owned_context<ldp::device::user_level_context> device(block);
    REQUIRE(device.code == status::ok);
    ldp_rng rng;
    REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
    std::vector<uint64_t> workspace(ws / 8);
    for (int i = 0; i < 20; ++i) {
      bytes expected(ldp::wire::max_report_size(block)), got(ldp_report_max_size(&p));
      size_t expected_size = 0, got_size = 0;
      REQUIRE(device->randomize(data, cxx_rng, expected, ldp::device::framing::report, &expected_size) == status::ok);
      REQUIRE(ldp_randomize_observations(&p, &rng, data.data(), data.size(), workspace.data(), ws, got.data(),
                                         got.size(), &got_size) == LDP_OK);
      expected.resize(expected_size);
      got.resize(got_size);
      CHECK(got == expected);
    }
    uint8_t out[64];
    if (ws > 0) {
      CHECK(ldp_randomize_observations(&p, &rng, data.data(), data.size(), workspace.data(), ws - 8, out, sizeof out,
                                       &n) == LDP_WORKSPACE_TOO_SMALL);
    }
    CHECK(ldp_randomize_observations(&p, &rng, data.data(), 0, workspace.data(), ws, out, sizeof out, &n) ==
          LDP_INVALID_ARGUMENT);  // no observation
    CHECK(ldp_randomize_observations(&p, &rng, nullptr, 3, workspace.data(), ws, out, sizeof out, &n) ==
          LDP_INVALID_ARGUMENT);
    CHECK(ldp_randomize_observations(&p, &rng, data.data(), data.size(), workspace.data(), ws, out, 10, &n) ==
          LDP_BUFFER_TOO_SMALL);
    ldp_rng_wipe(&rng);
  }
  // Other mechanisms are refused.
  const ldp_params grr = c_block(mechanism::grr);
  ldp_rng rng;
  REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
  uint8_t out[64];
  size_t n = 0;
  CHECK(ldp_randomize_observations(&grr, &rng, scalar_data.data(), scalar_data.size(), nullptr, 0, out, sizeof out,
                                   &n) == LDP_INVALID_ARGUMENT);
}

// The C block's fields, decoded by the C++ wire code.
ldp::wire::params fields_of(const ldp_params& p) {
  const bytes encoded = encode(p);
  ldp::wire::params out;
  REQUIRE(ldp::wire::decode_params(encoded, &out) == status::ok);
  return out;
}

TEST_CASE("FLH through the C API: rows are the k functions, columns the hash range g; bad sizes refused") {
  using ldp::wire::field;
  ldp_params p;
  // columns = 0: OLH's hash range for the same epsilon (docs/mechanisms.md A.4).
  REQUIRE(ldp_params_frequency(&p, LDP_MECH_FLH, domain, epsilon, 64, 0, sketch_seed) == LDP_OK);
  ldp_params olh;
  REQUIRE(ldp_params_frequency(&olh, LDP_MECH_OLH, domain, epsilon, 0, 0, nullptr) == LDP_OK);
  CHECK(ldp_params_mechanism(&p) == LDP_MECH_FLH);
  CHECK(fields_of(p).get(field::sketch_rows) == 64);
  CHECK(fields_of(p).get(field::hash_range) == fields_of(olh).get(field::hash_range));
  CHECK(ldp_params_epsilon(&p) == ldp_params_epsilon(&olh));
  // Explicit g; k g = 2^32 is the largest index space (a u32 index j g + y).
  REQUIRE(ldp_params_frequency(&p, LDP_MECH_FLH, domain, epsilon, 8, 5, sketch_seed) == LDP_OK);
  CHECK(fields_of(p).get(field::sketch_rows) == 8);
  CHECK(fields_of(p).get(field::hash_range) == 5);
  CHECK(ldp_params_frequency(&p, LDP_MECH_FLH, domain, epsilon, 65536, 65536, sketch_seed) == LDP_OK);
  CHECK(ldp_report_max_size(&p) == ldp::wire::report_header_size + 4);

  // Sizes the block's rules refuse (docs/wire_format.md 3): k g > 2^32, k = 0, k > 65536.
  CHECK(ldp_params_frequency(&p, LDP_MECH_FLH, domain, epsilon, 65536, 65537, sketch_seed) == LDP_INVALID_PARAMETERS);
  CHECK(ldp_params_frequency(&p, LDP_MECH_FLH, domain, epsilon, 0, 0, sketch_seed) == LDP_INVALID_PARAMETERS);
  CHECK(ldp_params_frequency(&p, LDP_MECH_FLH, domain, epsilon, 65537, 0, sketch_seed) == LDP_INVALID_PARAMETERS);
  // Arguments no block can be built from.
  CHECK(ldp_params_frequency(&p, LDP_MECH_FLH, domain, epsilon, 16, 1, sketch_seed) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_frequency(&p, LDP_MECH_FLH, domain, epsilon, 16, 0, nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_frequency(&p, LDP_MECH_FLH, 1, epsilon, 16, 0, sketch_seed) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_frequency(&p, LDP_MECH_FLH, domain, 0.0, 16, 0, sketch_seed) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_mechanism(&p) == 0);  // a refused builder leaves no usable context
}

namespace {

// Users i < n = 8000 hold item i mod 8 (1000 each of items 0-7, none of the rest): reports through
// the C device, two servers of which the second travels as bytes and is merged into the first, and
// each estimate within 5.7 of its own standard deviations of the truth (a false failure has
// probability below 1e-6 over the 40 items, normal tails).
void end_to_end(const ldp_params& p) {
  constexpr int n = 8000;
  ldp_rng rng;
  REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
  std::vector<uint64_t> workspace(ldp_workspace_size(&p) / 8 + 1);
  c_aggregator first, second;
  REQUIRE(ldp_aggregator_create(&p, &first.a) == LDP_OK);
  REQUIRE(ldp_aggregator_create(&p, &second.a) == LDP_OK);
  for (int i = 0; i < n; ++i) {
    bytes report(ldp_report_max_size(&p));
    size_t size = 0;
    REQUIRE(ldp_randomize_item(&p, &rng, static_cast<uint32_t>(i % 8), workspace.data(), workspace.size() * 8,
                               report.data(), report.size(), &size) == LDP_OK);
    REQUIRE(ldp_aggregator_add_report(i < n / 2 ? first.a : second.a, report.data(), size) == LDP_OK);
  }
  ldp_rng_wipe(&rng);
  // An item past d is refused by the device.
  bytes report(ldp_report_max_size(&p));
  size_t size = 0;
  CHECK(ldp_randomize_item(&p, &rng, domain, workspace.data(), workspace.size() * 8, report.data(), report.size(),
                           &size) != LDP_OK);

  // The second server's state travels as bytes and is merged into the first.
  const bytes state = serialize(second.a);
  c_aggregator reloaded;
  REQUIRE(ldp_aggregator_deserialize(state.data(), state.size(), &reloaded.a) == LDP_OK);
  REQUIRE(ldp_aggregator_merge(first.a, reloaded.a) == LDP_OK);
  REQUIRE(ldp_aggregator_reports(first.a) == n);
  const std::vector<ldp_estimate> got = estimates(first.a);
  REQUIRE(got.size() == domain);
  int outside = 0;
  for (const ldp_estimate& e : got) {
    const double truth = e.item < 8 ? n / 8.0 : 0.0;
    outside += std::fabs(e.value - truth) > 5.7 * std::sqrt(e.variance) ? 1 : 0;
    CHECK(e.ci_low <= e.value);
    CHECK(e.value <= e.ci_high);
  }
  CHECK(outside == 0);
}

}  // namespace

TEST_CASE("FLH end to end through the C API: device reports, two servers merged, estimates near the truth") {
  // 16 functions, OLH's g; the variance includes the shared-hash term.
  ldp_params p;
  REQUIRE(ldp_params_frequency(&p, LDP_MECH_FLH, domain, epsilon, 16, 0, sketch_seed) == LDP_OK);
  end_to_end(p);
}

TEST_CASE("block HR end to end through the C API (docs/mechanisms.md A.5)") {
  // epsilon 4 over the 40 items: make_hr's blocks (K = 2, B = 40), the variance with its c_J term.
  ldp_params p;
  REQUIRE(ldp_params_frequency(&p, LDP_MECH_HR, domain, 4.0, 0, 0, nullptr) == LDP_OK);
  const auto cxx = ldp::wire::make_hr(4.0, domain);
  REQUIRE(ldp::wire::hr_blocks(cxx.block) == 40);
  CHECK(ldp_params_fingerprint(&p) == ldp::wire::fingerprint(cxx.block));
  end_to_end(p);
}

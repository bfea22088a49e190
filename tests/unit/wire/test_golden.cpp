// Golden report files (tests/golden, written by golden/generate_golden.cpp): fixed bytes that must
// decode to the same fields, or fail with the same status, on every target. They pin the format
// itself, so a change that keeps encoder and decoder consistent with each other but moves a byte
// (or a big-endian target that reads a field in host order) fails here.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "ldp/wire.h"
#include "wire_examples.h"

#ifndef LDP_GOLDEN_DIR
#error "LDP_GOLDEN_DIR must name the tests/golden directory"
#endif

using ldp::status;
using ldp::wire::payload_kind;

namespace {

struct golden_file {
  std::string name;
  std::vector<unsigned char> params;
  std::vector<unsigned char> report;
  std::string expect;  // valid files
  std::string status;  // invalid files
  int fields = 0;      // params, report, expect/status lines seen
};

golden_file parse(const std::filesystem::path& path) {
  golden_file g;
  g.name = path.filename().string();
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in, "cannot open " << path.string());
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a checkout with CRLF line ends
    if (line.empty() || line[0] == '#') continue;
    const std::size_t space = line.find(' ');
    const std::string key = line.substr(0, space);
    const std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    ++g.fields;
    if (key == "params") {
      g.params = ldp::test::from_hex(value);
    } else if (key == "report") {
      g.report = ldp::test::from_hex(value);
    } else if (key == "expect") {
      g.expect = value;
    } else if (key == "status") {
      g.status = value;
    } else {
      FAIL("unknown line in " << g.name << ": " << line);
    }
  }
  return g;
}

std::vector<std::filesystem::path> files_in(const std::string& sub) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(LDP_GOLDEN_DIR) + "/" + sub)) {
    if (entry.is_regular_file() && entry.path().extension() == ".txt") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());  // a stable order for the failure messages
  return out;
}

// Counts files per payload kind, from the mechanism byte of the parameter block.
void count_kind(const golden_file& g, std::map<int, int>& counts) {
  REQUIRE_MESSAGE(g.params.size() >= 2, g.name);
  const auto m = static_cast<ldp::wire::mechanism>(g.params[1]);
  REQUIRE_MESSAGE(ldp::wire::is_known(m), g.name);
  ++counts[static_cast<int>(ldp::wire::kind_of(m))];
}

constexpr int kind_count = static_cast<int>(payload_kind::projected_unit) + 1;

}  // namespace

TEST_CASE("valid golden reports decode to the recorded fields") {
  std::map<int, int> per_kind;
  const auto files = files_in("valid");
  for (const auto& path : files) {
    const golden_file g = parse(path);
    INFO(g.name);
    REQUIRE(g.fields == 3);
    REQUIRE(!g.expect.empty());
    ldp::wire::params p;
    REQUIRE(ldp::wire::decode_params(g.params, &p) == status::ok);
    ldp::wire::report r;
    const status s = ldp::wire::decode_report(p, ldp::wire::fingerprint(p), g.report, &r);
    CHECK(std::string(ldp::status_name(s)) == "ok");
    if (s == status::ok) {
      CHECK(ldp::test::describe(p, r) == g.expect);
      CHECK(r.fingerprint == ldp::wire::fingerprint(p));
      // Canonical encoding: the decoded fields encode back to the same bytes (vector and sparse
      // reports carry their entries as bytes, so re-encoding them needs read_vector/read_sparse).
      std::vector<int64_t> values(r.count);
      std::vector<uint32_t> indices(r.count);
      const payload_kind kind = ldp::wire::kind_of(p.mech);
      if (ldp::wire::is_vector_payload(kind)) {
        REQUIRE(ldp::wire::read_vector(r, values) == status::ok);
        r.values = values;
      } else if (kind == payload_kind::sparse_pairs) {
        REQUIRE(ldp::wire::read_sparse(p, r, indices, values) == status::ok);
        r.values = values;
        r.indices = indices;
      }
      std::vector<unsigned char> again(ldp::wire::max_report_size(p));
      std::size_t size = 0;
      REQUIRE(ldp::wire::encode_report(p, ldp::wire::fingerprint(p), r, again, &size) == status::ok);
      again.resize(size);
      CHECK(again == g.report);
    }
    count_kind(g, per_kind);
  }
  for (int k = 0; k < kind_count; ++k) {
    INFO("payload kind " << k);
    CHECK(per_kind[k] >= 1);
  }
}

TEST_CASE("invalid golden reports fail with the recorded status") {
  std::map<int, int> per_kind;
  const auto files = files_in("invalid");
  for (const auto& path : files) {
    const golden_file g = parse(path);
    INFO(g.name);
    REQUIRE(g.fields == 3);
    REQUIRE(!g.status.empty());
    REQUIRE(g.status != "ok");
    ldp::wire::params p;
    REQUIRE(ldp::wire::decode_params(g.params, &p) == status::ok);  // only the report is broken
    ldp::wire::report r;
    const status s = ldp::wire::decode_report(p, ldp::wire::fingerprint(p), g.report, &r);
    CHECK(std::string(ldp::status_name(s)) == g.status);
    // A failed decode leaves no half-filled report behind.
    CHECK(r.mech == ldp::wire::mechanism::none);
    CHECK(r.count == 0);
    CHECK(r.entries.empty());
    count_kind(g, per_kind);
  }
  for (int k = 0; k < kind_count; ++k) {
    INFO("payload kind " << k);
    CHECK(per_kind[k] >= 3);
  }
}

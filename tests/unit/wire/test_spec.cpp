// Every example in docs/wire_format.md decodes as the document says: the specification and the
// code cannot drift apart silently.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ldp/wire.h"
#include "wire_examples.h"

namespace {

struct example {
  std::string params, report, expect, status;
};

std::vector<example> spec_examples() {
  std::ifstream in(LDP_SOURCE_DIR "/docs/wire_format.md");
  REQUIRE(in.good());
  std::vector<example> out;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line == "```ldp-example") {
      inside = true;
      out.emplace_back();
      continue;
    }
    if (inside && line == "```") {
      inside = false;
      continue;
    }
    if (!inside) continue;
    const std::size_t space = line.find(' ');
    const std::string key = line.substr(0, space), value = line.substr(space + 1);
    if (key == "params")
      out.back().params = value;
    else if (key == "report")
      out.back().report = value;
    else if (key == "expect")
      out.back().expect = value;
    else if (key == "status")
      out.back().status = value;
    else
      FAIL("unknown key in an ldp-example block: " << key);
  }
  return out;
}

}  // namespace

TEST_CASE("the examples of docs/wire_format.md decode as stated") {
  const auto examples = spec_examples();
  CHECK(examples.size() >= 10);
  for (const auto& e : examples) {
    CAPTURE(e.report);
    ldp::wire::params p;
    const auto block = ldp::test::from_hex(e.params);
    REQUIRE(ldp::wire::decode_params(block, &p) == ldp::status::ok);
    const auto bytes = ldp::test::from_hex(e.report);
    ldp::wire::report r;
    const ldp::status s = ldp::wire::decode_report(p, ldp::wire::fingerprint(p), bytes, &r);
    REQUIRE((e.expect.empty() != e.status.empty()));
    if (!e.expect.empty()) {
      REQUIRE(s == ldp::status::ok);
      CHECK(ldp::test::describe(p, r) == e.expect);
    } else {
      CHECK(std::string(ldp::status_name(s)) == e.status);
    }
  }
}

// Shared by the wire tests, the golden files and the fuzz seeds: a valid parameter block and a
// report for every mechanism, and a canonical text form of decoded fields ("index=3 bit=1").
#ifndef LDP_TESTS_SUPPORT_WIRE_EXAMPLES_H
#define LDP_TESTS_SUPPORT_WIRE_EXAMPLES_H

#include <cstdint>
#include <string>
#include <vector>

#include "ldp/wire.h"

namespace ldp::test {

// Every mechanism the format knows, in id order.
std::vector<wire::mechanism> all_mechanisms();

// The mechanism table's rows of family f, in id order.
std::vector<wire::mechanism> mechanisms_of(wire::mechanism_family f);

// The oracles with a memoized form (wire::memo_fields, docs/mechanisms.md E.1), in id order: sue,
// oue, blh, olh.
std::vector<wire::mechanism> memoized_oracles();

// A valid block for m with typical parameters: epsilon = 1 with w = 32 thresholds rounded toward
// privacy (docs/mechanisms.md D.1), d = 10 items (1000 for sketches and sparse vectors), values in
// [-1, 1] with 16 fraction bits, discrete Laplace scale 3 grid units.
wire::params example_params(wire::mechanism m);

// Owns the arrays a report points into.
struct example_report {
  wire::report fields;
  std::vector<unsigned char> bits;
  std::vector<int64_t> values;
  std::vector<uint32_t> indices;
};

// A valid report for p; `variant` picks different field values.
example_report make_report(const wire::params& p, unsigned variant);

// The int16 coordinates of a unit_vector (d) or projected_unit (k) payload.
uint64_t unit_payload_count(const wire::params& p);

// "index=3", "seed=0x... index=1", "bits=0512", "vector=1,-2,3", "sparse=2:5,7:-1", ...
std::string describe(const wire::params& p, const wire::report& r);

std::string to_hex(const unsigned char* data, std::size_t size);
// The bytes as hex pairs separated by spaces ("0a ff 01"): the golden files' text form.
std::string spaced_hex(const std::vector<unsigned char>& b);
std::vector<unsigned char> from_hex(const std::string& hex);  // ignores spaces

}  // namespace ldp::test

#endif

// The model broadcast (ldp/wire/model_broadcast.h, docs/wire_format.md 10): the layout byte by byte,
// round trips in both weight formats into float and double, every refusal with its status (checked
// before the weights are read), the digest, and the golden files of tests/golden/model.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "ldp/base/bits.h"
#include "ldp/wire/checksum.h"
#include "ldp/wire/model_broadcast.h"
#include "model_describe.h"
#include "wire_examples.h"

using ldp::span;
using ldp::status;
using ldp::wire::model_header;
using ldp::wire::model_kind;
using ldp::wire::weight_format;
using bytes = std::vector<unsigned char>;

namespace {

bytes encode(const model_header& h, const std::vector<double>& theta) {
  bytes out(ldp::wire::model_broadcast_size(h));
  std::size_t written = 0;
  REQUIRE(ldp::wire::encode_model_broadcast(h, theta, out, &written) == status::ok);
  REQUIRE(written == out.size());
  return out;
}

// Rewrites the CRC32C after a change, so that a test reaches the check behind it.
void reseal(bytes& b) {
  ldp::store_le32(b.data() + b.size() - 4, ldp::wire::crc32c(span<const unsigned char>(b.data(), b.size() - 4)));
}

status peek(const bytes& b) {
  model_header h;
  return ldp::wire::peek_model_broadcast(b, &h);
}

const model_header softmax_header{{model_kind::softmax, 2, 3}, weight_format::f64, 7};
const std::vector<double> softmax_theta{0.5, -1.0, 0.25, 2.0, 0.0, -0.125, 1e-3, 3.5, -7.0};

}  // namespace

TEST_CASE("the layout of wire_format.md 10") {
  const model_header h{{model_kind::logistic, 1, 1}, weight_format::f32, 0x0102030405060708};
  const bytes b = encode(h, {1.0, -2.0});
  REQUIRE(b.size() == 24 + 2 * 4 + 4);
  const bytes head{'L', 'D', 'P', 'M', 1, 2, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1};
  CHECK(bytes(b.begin(), b.begin() + 24) == head);
  CHECK(ldp::test::to_hex(b.data() + 24, 8) == "0000803f000000c0");  // 1.0f, -2.0f little-endian
  CHECK(ldp::load_le32(b.data() + 32) == ldp::wire::crc32c(span<const unsigned char>(b.data(), 32)));
}

TEST_CASE("round trips in both formats") {
  const bytes b = encode(softmax_header, softmax_theta);
  CHECK(b.size() == 24 + 9 * 8 + 4);
  model_header h;
  std::vector<double> back(9);
  REQUIRE(ldp::wire::decode_model_broadcast(b, &h, span<double>(back.data(), back.size())) == status::ok);
  CHECK(back == softmax_theta);
  CHECK(h.shape.kind == model_kind::softmax);
  CHECK(h.shape.features == 2);
  CHECK(h.shape.classes == 3);
  CHECK(h.format == weight_format::f64);
  CHECK(h.round == 7);
  std::vector<float> narrow(10, 99.0f);  // longer than d: the tail is left alone
  REQUIRE(ldp::wire::decode_model_broadcast(b, &h, span<float>(narrow.data(), narrow.size())) == status::ok);
  for (std::size_t i = 0; i < 9; ++i) CHECK(narrow[i] == static_cast<float>(softmax_theta[i]));
  CHECK(narrow[9] == 99.0f);

  model_header f32 = softmax_header;
  f32.format = weight_format::f32;
  const std::vector<double> third{1.0 / 3, -1.0 / 3, 0.1, 0, 0, 0, 0, 0, 1e30};
  const bytes c = encode(f32, third);
  CHECK(c.size() == 24 + 9 * 4 + 4);
  REQUIRE(ldp::wire::decode_model_broadcast(c, &h, span<double>(back.data(), back.size())) == status::ok);
  for (std::size_t i = 0; i < 9; ++i) CHECK(back[i] == static_cast<double>(static_cast<float>(third[i])));
}

TEST_CASE("the encoder refuses what it cannot write") {
  std::size_t written = 1;
  bytes out(1000);
  CHECK(ldp::wire::encode_model_broadcast(softmax_header, span<const double>(softmax_theta.data(), 8), out, &written) ==
        status::invalid_argument);
  CHECK(written == 0);
  auto nan = softmax_theta;
  nan[3] = std::numeric_limits<double>::quiet_NaN();
  CHECK(ldp::wire::encode_model_broadcast(softmax_header, nan, out, &written) == status::invalid_argument);
  model_header f32 = softmax_header;
  f32.format = weight_format::f32;
  auto big = softmax_theta;
  big[0] = 1e39;  // finite as a double, not as a float
  CHECK(ldp::wire::encode_model_broadcast(f32, big, out, &written) == status::invalid_argument);
  model_header bad = softmax_header;
  bad.shape.classes = 1;  // softmax needs two classes
  CHECK(ldp::wire::encode_model_broadcast(bad, softmax_theta, out, &written) == status::invalid_argument);
  CHECK(ldp::wire::encode_model_broadcast(softmax_header, softmax_theta, span<unsigned char>(out.data(), 99),
                                          &written) == status::buffer_too_small);
}

TEST_CASE("shape limits") {
  using ldp::wire::model_shape;
  using ldp::wire::model_shape_valid;
  CHECK(model_shape_valid(model_shape{model_kind::linear, 1, 1}));
  CHECK_FALSE(model_shape_valid(model_shape{model_kind::linear, 0, 1}));
  CHECK_FALSE(model_shape_valid(model_shape{model_kind::linear, 3, 2}));
  CHECK_FALSE(model_shape_valid(model_shape{model_kind::logistic, 3, 0}));
  CHECK(model_shape_valid(model_shape{model_kind::linear, uint32_t{1} << 24, 1}));
  CHECK_FALSE(model_shape_valid(model_shape{model_kind::linear, (uint32_t{1} << 24) + 1, 1}));
  CHECK(model_shape_valid(model_shape{model_kind::softmax, 1023, 65536}));  // d = 2^26
  CHECK_FALSE(model_shape_valid(model_shape{model_kind::softmax, 1024, 65536}));
  CHECK_FALSE(model_shape_valid(model_shape{model_kind::softmax, 1, 65537}));
  CHECK_FALSE(model_shape_valid(model_shape{static_cast<model_kind>(4), 1, 1}));
}

TEST_CASE("every refusal has its status") {
  const bytes good = encode(softmax_header, softmax_theta);
  CHECK(peek(good) == status::ok);
  CHECK(peek(bytes(good.begin(), good.begin() + 27)) == status::wrong_length);
  CHECK(peek(bytes(good.begin(), good.end() - 1)) == status::wrong_length);  // truncated
  bytes longer = good;
  longer.push_back(0);
  CHECK(peek(longer) == status::wrong_length);
  bytes b = good;
  b[3] = 'B';
  CHECK(peek(b) == status::malformed_report);
  b = good;
  b[4] = 2;
  CHECK(peek(b) == status::unsupported_version);
  b = good;
  b[7] = 1;
  CHECK(peek(b) == status::reserved_bits_set);
  b = good;
  b[5] = 4;
  CHECK(peek(b) == status::invalid_parameters);
  b = good;
  b[6] = 3;
  CHECK(peek(b) == status::invalid_parameters);
  // A claimed shape of 2^26 + rows entries is refused before its size is compared with the bytes held.
  b = good;
  ldp::store_le32(b.data() + 8, 1024);
  ldp::store_le32(b.data() + 12, 65536);
  CHECK(peek(b) == status::invalid_parameters);
  // A valid shape that does not match the length held.
  b = good;
  ldp::store_le32(b.data() + 12, 4);
  reseal(b);
  CHECK(peek(b) == status::wrong_length);
  for (std::size_t at : {std::size_t{0x10}, std::size_t{30}, good.size() - 1}) {
    b = good;
    b[at] ^= 0x20;
    CHECK(peek(b) == status::checksum_mismatch);
  }
  // Weights that are not finite, behind a valid CRC.
  b = good;
  ldp::store_le64(b.data() + 24 + 8, 0x7ff0000000000000);  // +inf
  reseal(b);
  CHECK(peek(b) == status::ok);
  model_header h;
  std::vector<double> theta(9);
  CHECK(ldp::wire::decode_model_broadcast(b, &h, span<double>(theta.data(), 9)) == status::out_of_range);
  b = good;
  ldp::store_le64(b.data() + 24, 0x47f0000000000000);  // 2^128: finite, past the float range
  reseal(b);
  CHECK(ldp::wire::decode_model_broadcast(b, &h, span<double>(theta.data(), 9)) == status::ok);
  std::vector<float> narrow(9);
  CHECK(ldp::wire::decode_model_broadcast(b, &h, span<float>(narrow.data(), 9)) == status::out_of_range);
  CHECK(ldp::wire::decode_model_broadcast(good, &h, span<double>(theta.data(), 8)) == status::buffer_too_small);
}

TEST_CASE("the digest names one broadcast") {
  const bytes a = encode(softmax_header, softmax_theta);
  static const unsigned char key[16] = {'l', 'd', 'p', 'k', 'i', 't', ' ', 'm', 'o', 'd', 'e', 'l', ' ', 'v', '0', '1'};
  CHECK(ldp::wire::model_broadcast_digest(a) == ldp::wire::siphash24(key, a));
  model_header next = softmax_header;
  next.round = 8;
  const bytes b = encode(next, softmax_theta);
  CHECK(ldp::wire::model_broadcast_digest(b) != ldp::wire::model_broadcast_digest(a));
  auto moved = softmax_theta;
  moved[4] = 1e-300;
  const bytes c = encode(softmax_header, moved);
  CHECK(ldp::wire::model_broadcast_digest(c) != ldp::wire::model_broadcast_digest(a));
}

TEST_CASE("golden files") {
  const std::filesystem::path dir = std::filesystem::path(LDP_SOURCE_DIR) / "tests" / "golden" / "model";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::string line, expect, fields;
    bytes b;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();  // a checkout with CRLF line ends
      if (line.rfind("broadcast ", 0) == 0) b = ldp::test::from_hex(line.substr(10));
      if (line.rfind("status ", 0) == 0) expect = line.substr(7);
      if (line.rfind("expect ", 0) == 0) fields = line.substr(7);
    }
    INFO(entry.path().filename().string());
    model_header h;
    std::vector<double> theta(64);
    const status s = ldp::wire::decode_model_broadcast(b, &h, span<double>(theta.data(), theta.size()));
    CHECK(std::string(ldp::status_name(s)) == expect);
    CHECK(fields == (s == status::ok ? ldp::test::describe_model(h, theta.data()) : ""));
    ++files;
  }
  CHECK(files >= 10);
}

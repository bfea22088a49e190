// Writes the golden model broadcasts (docs/wire_format.md 10): `generate_model_golden DIR` fills
// DIR/model with one <name>.txt per case: a `#` comment, `broadcast <hex>`, `status <status_name>`
// and, for the valid ones, `expect <describe_model()>`. Each case states the status it is meant to
// produce and is decoded before it is written, so a decoder change fails here instead of rewriting
// the expectations. unit.golden_model_up_to_date compares the output with tests/golden/model;
// unit.wire.test_model_broadcast decodes the checked-in files on every target.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ldp/base/bits.h"
#include "ldp/wire/checksum.h"
#include "ldp/wire/model_broadcast.h"
#include "model_describe.h"
#include "wire_examples.h"

namespace {

using ldp::span;
using ldp::status;
using ldp::wire::model_header;
using ldp::wire::model_kind;
using ldp::wire::weight_format;
using bytes = std::vector<unsigned char>;

struct golden_case {
  std::string name;
  std::string comment;
  bytes broadcast;
  status expected;
};

bytes encode(const model_header& h, const std::vector<double>& theta) {
  bytes out(ldp::wire::model_broadcast_size(h));
  std::size_t written = 0;
  if (ldp::wire::encode_model_broadcast(h, theta, out, &written) != status::ok) out.clear();
  return out;
}

void reseal(bytes& b) {
  ldp::store_le32(b.data() + b.size() - 4, ldp::wire::crc32c(span<const unsigned char>(b.data(), b.size() - 4)));
}

std::vector<golden_case> all_cases() {
  const model_header lin{{model_kind::linear, 3, 1}, weight_format::f64, 1};
  const std::vector<double> lin_theta{0.5, -0.25, 2.0, -1.0};
  const model_header logi{{model_kind::logistic, 2, 1}, weight_format::f32, 12};
  const std::vector<double> logi_theta{1.5, -3.0, 0.125};
  const model_header soft{{model_kind::softmax, 2, 3}, weight_format::f64, 0xfedcba9876543210};
  const std::vector<double> soft_theta{0.5, -1.0, 0.25, 2.0, 0.0, -0.125, 1e-3, 3.5, -7.0};
  const bytes good = encode(soft, soft_theta);
  std::vector<golden_case> cases{
      {"linear_f64", "linear regression, p = 3, round 1, binary64 weights", encode(lin, lin_theta), status::ok},
      {"logistic_f32", "logistic regression, p = 2, round 12, binary32 weights", encode(logi, logi_theta), status::ok},
      {"softmax_f64", "softmax, p = 2, C = 3 (rows w1 w2 b), round 0xfedcba9876543210", good, status::ok},
  };
  auto changed = [&](const char* name, const char* comment, std::size_t at, unsigned char v, bool seal, status s) {
    bytes b = good;
    b[at] = v;
    if (seal) reseal(b);
    cases.push_back({name, comment, b, s});
  };
  cases.push_back({"truncated_header", "27 bytes: shorter than header and CRC", bytes(good.begin(), good.begin() + 27),
                   status::wrong_length});
  cases.push_back({"truncated", "the softmax broadcast without its last byte", bytes(good.begin(), good.end() - 1),
                   status::wrong_length});
  bytes extra = good;
  extra.push_back(0);
  cases.push_back({"extra_byte", "the softmax broadcast and one byte more", extra, status::wrong_length});
  changed("bad_magic", "magic LDPB (a batch's)", 3, 'B', false, status::malformed_report);
  changed("unknown_version", "version 2", 4, 2, false, status::unsupported_version);
  changed("reserved_set", "reserved byte 1", 7, 1, false, status::reserved_bits_set);
  changed("unknown_kind", "model kind 4", 5, 4, true, status::invalid_parameters);
  changed("unknown_format", "weight format 3", 6, 3, true, status::invalid_parameters);
  changed("softmax_one_class", "softmax with C = 1", 12, 1, true, status::invalid_parameters);
  changed("zero_features", "p = 0", 8, 0, true, status::invalid_parameters);
  changed("wrong_classes", "C = 4 claimed, the weights of C = 3 held", 12, 4, true, status::wrong_length);
  changed("corrupt_weight", "a weight's bit flipped, CRC not updated", 30, good[30] ^ 0x20, false,
          status::checksum_mismatch);
  changed("corrupt_round", "the round's bit flipped, CRC not updated", 16, good[16] ^ 0x01, false,
          status::checksum_mismatch);
  bytes inf = good;
  ldp::store_le64(inf.data() + 24 + 8, 0x7ff0000000000000);
  reseal(inf);
  cases.push_back({"infinite_weight", "weight 1 is +inf, CRC valid", inf, status::out_of_range});
  bytes nan = good;
  ldp::store_le64(nan.data() + 24, 0x7ff8000000000000);
  reseal(nan);
  cases.push_back({"nan_weight", "weight 0 is NaN, CRC valid", nan, status::out_of_range});
  return cases;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: generate_model_golden DIR\n");
    return 2;
  }
  const std::filesystem::path dir = std::filesystem::path(argv[1]) / "model";
  std::filesystem::create_directories(dir);
  int failures = 0;
  for (const golden_case& c : all_cases()) {
    model_header h;
    std::vector<double> theta(64);
    const status s = c.broadcast.empty()
                         ? status::invalid_argument
                         : ldp::wire::decode_model_broadcast(c.broadcast, &h, span<double>(theta.data(), theta.size()));
    if (s != c.expected) {
      std::fprintf(stderr, "%s: decodes to %s, expected %s\n", c.name.c_str(), ldp::status_name(s),
                   ldp::status_name(c.expected));
      ++failures;
      continue;
    }
    std::ofstream out(dir / (c.name + ".txt"), std::ios::binary);
    out << "# " << c.comment << "\n"
        << "broadcast " << ldp::test::spaced_hex(c.broadcast) << "\n"
        << "status " << ldp::status_name(s) << "\n";
    if (s == status::ok) out << "expect " << ldp::test::describe_model(h, theta.data()) << "\n";
    if (!out) ++failures;
  }
  return failures == 0 ? 0 : 1;
}

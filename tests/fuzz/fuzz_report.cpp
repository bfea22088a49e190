// libFuzzer target for the report decoder. Input: [u16 LE block length][parameter block][report].
// Besides "never crash", it checks that decoding is strict: whatever decodes must be the one
// canonical encoding of its fields, so encode(decode(x)) == x.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ldp/wire.h"

namespace {

using ldp::status;
using ldp::wire::payload_kind;

void require(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const std::size_t block_size = data[0] | std::size_t{data[1]} << 8;
  if (size - 2 < block_size) return 0;
  // Copies, so that AddressSanitizer sees a read past either part (the fuzzer's buffer is one).
  const std::vector<unsigned char> block(data + 2, data + 2 + block_size);
  const std::vector<unsigned char> bytes(data + 2 + block_size, data + size);

  ldp::wire::params p;
  if (ldp::wire::decode_params(block, &p) != status::ok) return 0;
  const uint64_t fp = ldp::wire::fingerprint(p);
  require(fp != 0);

  ldp::wire::report r;
  const status s = ldp::wire::decode_report(p, fp, bytes, &r);
  if (s != status::ok) {
    require(r.mech == ldp::wire::mechanism::none && r.entries.empty());
    return 0;
  }
  require(r.mech == p.mech && r.fingerprint == fp);

  // r.count is bounded by the input: decoding succeeded only if every entry was present.
  std::vector<int64_t> values(r.count);
  std::vector<uint32_t> indices(r.count);
  const payload_kind kind = ldp::wire::kind_of(p.mech);
  if (ldp::wire::is_vector_payload(kind)) {
    require(ldp::wire::read_vector(r, values) == status::ok);
    r.values = values;
  } else if (kind == payload_kind::sparse_pairs) {
    require(ldp::wire::read_sparse(p, r, indices, values) == status::ok);
    r.values = values;
    r.indices = indices;
  }

  std::vector<unsigned char> again(ldp::wire::max_report_size(p));
  std::size_t written = 0;
  require(ldp::wire::encode_report(p, fp, r, again, &written) == status::ok);
  require(written == bytes.size() && std::memcmp(again.data(), bytes.data(), written) == 0);
  return 0;
}

// libFuzzer target for the model broadcast decoder (docs/wire_format.md 10). Input: the broadcast's
// bytes. Besides "never crash", it checks that decoding is strict: whatever decodes re-encodes to the
// same bytes (binary64 weights are copied bit for bit; binary32 ones widen to double and back exactly),
// and that the header alone fixes the length (peek and decode agree).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ldp/wire/model_broadcast.h"

namespace {

void require(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<unsigned char> bytes(data, data + size);  // a copy: ASan sees reads past its end
  ldp::wire::model_header peeked;
  const ldp::status peek = ldp::wire::peek_model_broadcast(bytes, &peeked);
  if (peek != ldp::status::ok) return 0;
  // The length was matched against the header before this allocation: at most about the input's size.
  std::vector<double> theta(static_cast<std::size_t>(ldp::wire::model_dim(peeked.shape)));
  ldp::wire::model_header h;
  if (ldp::wire::decode_model_broadcast(bytes, &h, ldp::span<double>(theta.data(), theta.size())) != ldp::status::ok) {
    return 0;
  }
  require(h.round == peeked.round && h.shape.features == peeked.shape.features);
  std::vector<unsigned char> again(ldp::wire::model_broadcast_size(h));
  std::size_t written = 0;
  require(ldp::wire::encode_model_broadcast(h, theta, again, &written) == ldp::status::ok);
  require(again == bytes);
  return 0;
}

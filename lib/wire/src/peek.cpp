#include "ldp/wire/peek.h"

#include "codec.h"
#include "framing.h"
#include "ldp/wire/batch.h"
#include "ldp/wire/report.h"
#include "ldp/wire/state.h"

namespace ldp::wire {
namespace {

status peek_batch(span<const unsigned char> bytes, header_info* out) {
  if (bytes.size() < batch_prefix_size) return status::wrong_length;
  out->version = bytes[4];
  const status s = detail::read_batch_prefix(bytes, &out->header_size);
  if (s != status::ok) return s;
  out->body_size = out->header_size - batch_header_size(0);
  if (bytes.size() < out->header_size) return status::wrong_length;
  params p;
  const status h = detail::read_batch_header(bytes.first(out->header_size), &p, &out->fingerprint);
  out->mech = p.mech;
  return h;
}

status peek_state(span<const unsigned char> bytes, header_info* out) {
  out->header_size = state_header_size;
  if (bytes.size() < state_header_size) return status::wrong_length;
  out->version = bytes[4];
  state_header h;
  const status s = detail::read_state_header(bytes, &h);
  out->mech = h.mech;
  out->fingerprint = h.fingerprint;
  out->body_size = h.body_size;
  return s;
}

status peek_report(span<const unsigned char> bytes, header_info* out) {
  out->version = report_version;
  out->header_size = report_header_size;
  return detail::read_report_header(bytes, &out->mech, &out->fingerprint);
}

}  // namespace

status peek_header(span<const unsigned char> bytes, header_info* out) noexcept {
  *out = header_info{};
  const span<const unsigned char> magic = bytes.size() >= 4 ? bytes.first(4) : span<const unsigned char>();
  if (detail::is_magic(magic, batch_magic)) {
    out->kind = file_kind::batch;
    return peek_batch(bytes, out);
  }
  if (detail::is_magic(magic, state_magic)) {
    out->kind = file_kind::state;
    return peek_state(bytes, out);
  }
  if (!bytes.empty() && bytes[0] == report_version) {
    out->kind = file_kind::report;
    return peek_report(bytes, out);
  }
  return status::malformed_report;
}

}  // namespace ldp::wire

#include "ldp/device/mean.h"

#include "ldp/wire/report.h"

namespace ldp::device {
namespace {

// The report fields of one value; the block is checked before any randomness is drawn.
status value_fields(const wire::params& p, int64_t x, random::drbg& rng, wire::report* r) noexcept {
  *r = wire::report{};
  r->mech = p.mech;
  const wire::payload_kind kind = wire::kind_of(p.mech);
  if (kind != wire::payload_kind::fixed_value && kind != wire::payload_kind::bit) {
    return status::invalid_argument;
  }
  const status valid = wire::validate(p);
  if (valid != status::ok) return valid;
  if (kind == wire::payload_kind::bit) {
    r->bit = duchi_bit(p, x, rng);
  } else {
    r->value = laplace_noisy(p, x, rng);
  }
  return status::ok;
}

// Noisy coordinates of a laplace-vector report in `workspace`, which r->values then views.
status vector_fields(const wire::params& p, span<const int64_t> x, random::drbg& rng,
                     span<int64_t> workspace, wire::report* r) noexcept {
  *r = wire::report{};
  r->mech = p.mech;
  if (p.mech != wire::mechanism::laplace_vector) return status::invalid_argument;
  const status valid = wire::validate(p);
  if (valid != status::ok) return valid;
  const std::size_t d = vector_workspace_values(p);
  if (x.size() != d) return status::invalid_argument;
  if (workspace.size() < d) return status::workspace_too_small;
  for (std::size_t i = 0; i < d; ++i) workspace[i] = laplace_noisy(p, x[i], rng);
  r->values = span<const int64_t>(workspace.data(), d);
  return status::ok;
}

}  // namespace

status randomize_value(const wire::params& p, uint64_t fingerprint, int64_t x, random::drbg& rng,
                       span<unsigned char> out, std::size_t* written) noexcept {
  *written = 0;
  wire::report r;
  const status s = value_fields(p, x, rng, &r);
  return s != status::ok ? s : wire::encode_report(p, fingerprint, r, out, written);
}

status randomize_value_payload(const wire::params& p, int64_t x, random::drbg& rng,
                               span<unsigned char> out, std::size_t* written) noexcept {
  *written = 0;
  wire::report r;
  const status s = value_fields(p, x, rng, &r);
  return s != status::ok ? s : wire::encode_payload(p, r, out, written);
}

status randomize_vector(const wire::params& p, uint64_t fingerprint, span<const int64_t> x,
                        random::drbg& rng, span<int64_t> workspace, span<unsigned char> out,
                        std::size_t* written) noexcept {
  *written = 0;
  wire::report r;
  const status s = vector_fields(p, x, rng, workspace, &r);
  return s != status::ok ? s : wire::encode_report(p, fingerprint, r, out, written);
}

status randomize_vector_payload(const wire::params& p, span<const int64_t> x, random::drbg& rng,
                                span<int64_t> workspace, span<unsigned char> out,
                                std::size_t* written) noexcept {
  *written = 0;
  wire::report r;
  const status s = vector_fields(p, x, rng, workspace, &r);
  return s != status::ok ? s : wire::encode_payload(p, r, out, written);
}

}  // namespace ldp::device

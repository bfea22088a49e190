// The server half of training rounds in the C API (ldp_central.h "Training rounds"): the model
// broadcast's encoder (wire/model_broadcast.h) and DP-SGD's accountant (server/central/dp_sgd.h,
// accountant.h). Nothing here throws or allocates.
#include <cstddef>
#include <cstdint>

#include "context.h"
#include "ldp/server/central/accountant.h"
#include "ldp/server/central/dp_sgd.h"
#include "ldp/wire/model_broadcast.h"
#include "ldp_central.h"

using ldp::span;
using ldp::status;
using ldp::capi::code;
namespace wire = ldp::wire;
namespace server = ldp::server;

namespace {

// The C header as wire's; false for a kind or format the wire does not define (a wider C value
// must not wrap into a valid byte).
bool cxx_header(const ldp_model_header& c, wire::model_header* out) noexcept {
  if (!wire::is_model_kind(c.kind) || (c.format != LDP_WEIGHTS_F32 && c.format != LDP_WEIGHTS_F64)) return false;
  out->shape = wire::model_shape{static_cast<wire::model_kind>(c.kind), c.features, c.classes};
  out->format = static_cast<wire::weight_format>(c.format);
  out->round = c.round;
  return true;
}

}  // namespace

extern "C" {

size_t ldp_model_broadcast_size(const ldp_model_header* header) noexcept {
  wire::model_header h;
  if (header == nullptr || !cxx_header(*header, &h)) return 0;
  return wire::model_broadcast_size(h);
}

ldp_status ldp_model_broadcast_encode(const ldp_model_header* header, const double* theta, size_t dim, uint8_t* out,
                                      size_t capacity, size_t* written) noexcept {
  if (written == nullptr) return code(status::invalid_argument);
  *written = 0;
  wire::model_header h;
  if (header == nullptr || theta == nullptr || (out == nullptr && capacity != 0) || !cxx_header(*header, &h)) {
    return code(status::invalid_argument);
  }
  return code(
      wire::encode_model_broadcast(h, span<const double>(theta, dim), span<unsigned char>(out, capacity), written));
}

uint64_t ldp_dp_sgd_clip_units(double clip, uint32_t frac_bits) noexcept {
  return server::dp_sgd_clip_units(clip, frac_bits);
}

uint64_t ldp_dp_sgd_sigma2_for(double epsilon, double delta, uint64_t steps, double clip, uint32_t frac_bits) noexcept {
  return server::dp_sgd_sigma2_for(epsilon, delta, steps, clip, frac_bits);
}

double ldp_discrete_gaussian_rho(double sensitivity, double sigma2, uint64_t steps) noexcept {
  return server::discrete_gaussian_rho(sensitivity, sigma2, steps);
}

double ldp_zcdp_to_epsilon(double rho, double delta) noexcept { return server::zcdp_to_epsilon(rho, delta); }

}  // extern "C"

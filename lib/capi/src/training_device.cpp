// The device half of training rounds in the C API (ldp.h "Training rounds"): the broadcast's header
// and the user's contribution, over wire::peek_model_broadcast and device::user_gradient. The C
// pointers are checked here; every other rule is the C++ call's, so the statuses are the same.
#include <cstddef>
#include <cstdint>

#include "context.h"
#include "ldp.h"
#include "ldp/device/gradient.h"
#include "ldp/wire/model_broadcast.h"

using ldp::span;
using ldp::status;
using ldp::capi::code;
namespace wire = ldp::wire;
namespace device = ldp::device;

static_assert(LDP_MODEL_LINEAR == static_cast<int>(wire::model_kind::linear) &&
              LDP_MODEL_LOGISTIC == static_cast<int>(wire::model_kind::logistic) &&
              LDP_MODEL_SOFTMAX == static_cast<int>(wire::model_kind::softmax));
static_assert(LDP_WEIGHTS_F32 == static_cast<int>(wire::weight_format::f32) &&
              LDP_WEIGHTS_F64 == static_cast<int>(wire::weight_format::f64));
static_assert(LDP_MODEL_BROADCAST_MIN_SIZE == wire::model_broadcast_header_size + 4);

namespace {

device::gradient_bound cxx_bound(const ldp_gradient_bound& b) noexcept {
  return device::gradient_bound{b.model_digest, b.max_samples, b.frac_bits, b.radius_fixed};
}

// The pointers every contribution needs; the samples' own are checked by the callers.
bool round_pointers(const uint8_t* broadcast, const ldp_gradient_bound* bound, const void* labels,
                    const void* workspace, const int64_t* out) noexcept {
  return broadcast != nullptr && bound != nullptr && labels != nullptr && workspace != nullptr && out != nullptr;
}

template <class T>
ldp_status dense(const uint8_t* broadcast, size_t size, const ldp_gradient_bound* bound, const T* features,
                 const T* labels, size_t count, T* workspace, size_t workspace_count, int64_t* out,
                 size_t out_count) noexcept {
  if (!round_pointers(broadcast, bound, labels, workspace, out) || features == nullptr) {
    return code(status::invalid_argument);
  }
  return code(device::user_gradient<T>(span<const unsigned char>(broadcast, size), cxx_bound(*bound),
                                       device::user_samples<T>{features, labels, count},
                                       span<T>(workspace, workspace_count), span<int64_t>(out, out_count)));
}

template <class T>
ldp_status sparse(const uint8_t* broadcast, size_t size, const ldp_gradient_bound* bound, const size_t* offsets,
                  const uint32_t* index, const T* value, const T* labels, size_t count, T* workspace,
                  size_t workspace_count, int64_t* out, size_t out_count) noexcept {
  if (!round_pointers(broadcast, bound, labels, workspace, out) || offsets == nullptr || index == nullptr ||
      value == nullptr) {
    return code(status::invalid_argument);
  }
  return code(device::user_gradient<T>(span<const unsigned char>(broadcast, size), cxx_bound(*bound),
                                       device::sparse_samples<T>{offsets, index, value, labels, count},
                                       span<T>(workspace, workspace_count), span<int64_t>(out, out_count)));
}

}  // namespace

extern "C" {

ldp_status ldp_model_broadcast_peek(const uint8_t* bytes, size_t size, ldp_model_header* header) noexcept {
  if (bytes == nullptr || header == nullptr) return code(status::invalid_argument);
  const span<const unsigned char> broadcast(bytes, size);
  wire::model_header h;
  if (const status s = wire::peek_model_broadcast(broadcast, &h); s != status::ok) return code(s);
  *header = ldp_model_header{static_cast<uint32_t>(h.shape.kind),    h.shape.features, h.shape.classes,
                             static_cast<uint32_t>(h.format),        h.round,          wire::model_dim(h.shape),
                             wire::model_broadcast_digest(broadcast)};
  return code(status::ok);
}

ldp_status ldp_user_gradient_f32(const uint8_t* broadcast, size_t size, const ldp_gradient_bound* bound,
                                 const float* features, const float* labels, size_t count, float* workspace,
                                 size_t workspace_count, int64_t* out, size_t out_count) noexcept {
  return dense(broadcast, size, bound, features, labels, count, workspace, workspace_count, out, out_count);
}

ldp_status ldp_user_gradient_f64(const uint8_t* broadcast, size_t size, const ldp_gradient_bound* bound,
                                 const double* features, const double* labels, size_t count, double* workspace,
                                 size_t workspace_count, int64_t* out, size_t out_count) noexcept {
  return dense(broadcast, size, bound, features, labels, count, workspace, workspace_count, out, out_count);
}

ldp_status ldp_user_gradient_sparse_f32(const uint8_t* broadcast, size_t size, const ldp_gradient_bound* bound,
                                        const size_t* offsets, const uint32_t* index, const float* value,
                                        const float* labels, size_t count, float* workspace, size_t workspace_count,
                                        int64_t* out, size_t out_count) noexcept {
  return sparse(broadcast, size, bound, offsets, index, value, labels, count, workspace, workspace_count, out,
                out_count);
}

ldp_status ldp_user_gradient_sparse_f64(const uint8_t* broadcast, size_t size, const ldp_gradient_bound* bound,
                                        const size_t* offsets, const uint32_t* index, const double* value,
                                        const double* labels, size_t count, double* workspace, size_t workspace_count,
                                        int64_t* out, size_t out_count) noexcept {
  return sparse(broadcast, size, bound, offsets, index, value, labels, count, workspace, workspace_count, out,
                out_count);
}

}  // extern "C"

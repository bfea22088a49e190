// The server half of the C API (ldp_server.h) over ldp::server::aggregator. An ldp_aggregator* is
// the C++ aggregator itself behind an incomplete C type; nothing here throws (the aggregator's
// API does not, and the copies into caller buffers cannot).
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "context.h"
#include "ldp/server/aggregator.h"
#include "ldp/server/string_discovery.h"
#include "ldp/wire/string_block.h"
#include "ldp_server.h"

namespace capi = ldp::capi;
using capi::code;
using ldp::status;
using ldp::server::aggregator;

static_assert(sizeof(ldp_estimate::item) == sizeof(ldp::server::estimate::item));
static_assert(LDP_DISCOVERED_STRING_CAPACITY == ldp::wire::max_string_bytes + 1, "a string and its terminator");

namespace {

aggregator* impl(ldp_aggregator* a) noexcept { return reinterpret_cast<aggregator*>(a); }
const aggregator* impl(const ldp_aggregator* a) noexcept { return reinterpret_cast<const aggregator*>(a); }

// Hands a created aggregator to C, or reports why there is none.
ldp_status publish(status s, std::unique_ptr<aggregator> created, ldp_aggregator** out) noexcept {
  if (s != status::ok) return code(s);
  *out = reinterpret_cast<ldp_aggregator*>(created.release());
  return code(status::ok);
}

bool bad_buffer(const void* data, size_t size) noexcept { return data == nullptr && size != 0; }

}  // namespace

extern "C" {

ldp_status ldp_aggregator_create(const ldp_params* params, ldp_aggregator** out) noexcept {
  if (out == nullptr) return code(status::invalid_argument);
  *out = nullptr;
  const auto* context = capi::live<capi::params_context>(params);
  if (context == nullptr) return code(status::invalid_argument);
  std::unique_ptr<aggregator> created;
  const status s = aggregator::create(context->block, &created);
  return publish(s, std::move(created), out);
}

ldp_status ldp_aggregator_deserialize(const uint8_t* state, size_t size, ldp_aggregator** out) noexcept {
  if (out == nullptr) return code(status::invalid_argument);
  *out = nullptr;
  if (bad_buffer(state, size)) return code(status::invalid_argument);
  std::unique_ptr<aggregator> created;
  const status s = aggregator::deserialize({state, size}, &created);
  return publish(s, std::move(created), out);
}

void ldp_aggregator_free(ldp_aggregator* a) noexcept { delete impl(a); }

ldp_status ldp_aggregator_add_report(ldp_aggregator* a, const uint8_t* report, size_t size) noexcept {
  if (a == nullptr || bad_buffer(report, size)) return code(status::invalid_argument);
  return code(impl(a)->add_report({report, size}));
}

ldp_status ldp_aggregator_add_payload(ldp_aggregator* a, const uint8_t* payload, size_t size) noexcept {
  if (a == nullptr || bad_buffer(payload, size)) return code(status::invalid_argument);
  return code(impl(a)->add_payload({payload, size}));
}

ldp_status ldp_aggregator_add_batch(ldp_aggregator* a, const uint8_t* batch, size_t size) noexcept {
  if (a == nullptr || bad_buffer(batch, size)) return code(status::invalid_argument);
  return code(impl(a)->add_batch({batch, size}));
}

ldp_status ldp_aggregator_merge(ldp_aggregator* into, const ldp_aggregator* from) noexcept {
  if (into == nullptr || from == nullptr || into == from) return code(status::invalid_argument);
  return code(impl(into)->merge(*impl(from)));
}

ldp_status ldp_aggregator_serialize(const ldp_aggregator* a, uint8_t* out, size_t capacity, size_t* size) noexcept {
  if (a == nullptr || size == nullptr || bad_buffer(out, capacity)) return code(status::invalid_argument);
  *size = 0;
  const std::vector<unsigned char> state = impl(a)->serialize();
  if (state.empty()) return code(status::overflow);  // memory ran out
  *size = state.size();
  if (state.size() > capacity) return code(status::buffer_too_small);
  std::memcpy(out, state.data(), state.size());
  return code(status::ok);
}

ldp_status ldp_aggregator_params(const ldp_aggregator* a, ldp_params* out) noexcept {
  if (a == nullptr || out == nullptr) return code(status::invalid_argument);
  capi::set_params(out, impl(a)->parameters());
  return code(status::ok);
}

uint64_t ldp_aggregator_damaged_chunks(const ldp_aggregator* a) noexcept {
  return a == nullptr ? 0 : impl(a)->damaged_chunks();
}

uint64_t ldp_aggregator_reports(const ldp_aggregator* a) noexcept { return a == nullptr ? 0 : impl(a)->reports(); }

uint64_t ldp_aggregator_rejected(const ldp_aggregator* a, ldp_status reason) noexcept {
  // Counter 0 holds damaged chunks, not reports (ldp_aggregator_damaged_chunks).
  if (a == nullptr || reason <= 0 || static_cast<std::size_t>(reason) >= ldp::server::rejection_counter_count) return 0;
  return impl(a)->rejected()[static_cast<std::size_t>(reason)];
}

ldp_status ldp_aggregator_estimate_all(const ldp_aggregator* a, double confidence, ldp_estimate* out, size_t capacity,
                                       size_t* count) noexcept {
  if (a == nullptr || count == nullptr || bad_buffer(out, capacity)) return code(status::invalid_argument);
  *count = 0;
  const std::vector<ldp::server::estimate> all = impl(a)->estimate_all(confidence);
  if (ldp::server::string_discovery_aggregator::handles(impl(a)->parameters().mech)) {
    return code(status::ok);  // the family lists none (ldp_server_discover)
  }
  if (all.empty()) return code(status::overflow);  // memory ran out: a block of another family has one
  *count = all.size();
  if (all.size() > capacity) return code(status::buffer_too_small);
  for (std::size_t i = 0; i < all.size(); ++i) {
    out[i] = ldp_estimate{all[i].item, all[i].value, all[i].variance, all[i].ci_low, all[i].ci_high};
  }
  return code(status::ok);
}

ldp_status ldp_server_discover(const ldp_aggregator* a, uint32_t k, uint32_t keep, const char* alphabet,
                               double confidence, ldp_discovered_string* out, size_t capacity, size_t* count) noexcept {
  if (a == nullptr || count == nullptr || bad_buffer(out, capacity)) return code(status::invalid_argument);
  *count = 0;
  if (!ldp::server::string_discovery_aggregator::handles(impl(a)->parameters().mech)) {
    return code(status::invalid_parameters);
  }
  // The family decides the class (aggregator.cpp): a string-discovery block's aggregator is one.
  const auto* strings = static_cast<const ldp::server::string_discovery_aggregator*>(impl(a));
  try {
    ldp::server::discovery_options o;
    o.k = k;
    o.keep = keep;
    if (alphabet != nullptr) o.alphabet = alphabet;
    o.confidence = confidence;
    std::vector<ldp::server::discovered_string> found;
    const status s = strings->discover(o, &found);
    if (s != status::ok) return code(s);
    *count = found.size();
    if (found.size() > capacity) return code(status::buffer_too_small);
    for (std::size_t i = 0; i < found.size(); ++i) {
      const ldp::server::estimate& e = found[i].est;
      ldp_discovered_string& d = out[i];
      std::memset(d.string, 0, sizeof d.string);
      std::memcpy(d.string, found[i].item.data(), found[i].item.size());  // at most 64 bytes (pad_string)
      d.estimate = ldp_estimate{e.item, e.value, e.variance, e.ci_low, e.ci_high};
    }
    return code(status::ok);
  } catch (...) {  // std::bad_alloc, std::length_error of the options' alphabet
    *count = 0;
    return code(status::overflow);
  }
}

}  // extern "C"

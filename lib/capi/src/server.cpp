// The server half of the C API (ldp_server.h) over ldp::server::aggregator. An ldp_aggregator* is
// the C++ aggregator itself behind an incomplete C type; nothing here throws (the aggregator's
// API does not, and the copies into caller buffers cannot).
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "context.h"
#include "ldp/server/aggregator.h"
#include "ldp/server/distribution.h"
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

// The distribution aggregator behind `a` (null for another family or a null `a`).
const ldp::server::distribution_aggregator* distribution(const ldp_aggregator* a) noexcept {
  return a == nullptr ? nullptr : dynamic_cast<const ldp::server::distribution_aggregator*>(impl(a));
}

ldp::server::distribution_options options_of(const ldp_distribution_options* o) noexcept {
  ldp::server::distribution_options out;
  if (o != nullptr) {
    out.confidence = o->confidence;
    out.consistency = o->consistency != 0;
    out.bootstrap = o->bootstrap;
    out.seed = o->seed;
  }
  return out;
}

// Runs a distribution query on a's aggregator: invalid_argument for a null `a`, invalid_parameters for
// another family, overflow when memory runs out (the query's own vectors, or the caller's copies).
template <class Query>
ldp_status distribution_query(const ldp_aggregator* a, Query&& query) noexcept {
  if (a == nullptr) return code(status::invalid_argument);
  const ldp::server::distribution_aggregator* d = distribution(a);
  if (d == nullptr) return code(status::invalid_parameters);
  try {
    return code(query(*d));
  } catch (...) {  // std::bad_alloc of the query list
    return code(status::overflow);
  }
}

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

void ldp_distribution_options_default(ldp_distribution_options* o) noexcept {
  if (o == nullptr) return;
  const ldp::server::distribution_options d;
  *o = ldp_distribution_options{d.confidence, d.consistency ? 1 : 0, d.bootstrap, d.seed};
}

ldp_status ldp_server_ranges(const ldp_aggregator* a, const double* lo, const double* hi, size_t count,
                             const ldp_distribution_options* options, ldp_range_estimate* out) noexcept {
  if (bad_buffer(lo, count) || bad_buffer(hi, count) || bad_buffer(out, count)) return code(status::invalid_argument);
  return distribution_query(a, [&](const ldp::server::distribution_aggregator& d) {
    std::vector<std::pair<double, double>> queries(count);
    for (std::size_t i = 0; i < count; ++i) queries[i] = {lo[i], hi[i]};
    std::vector<ldp::server::range_estimate> found;
    const status s = d.ranges(queries, options_of(options), &found);
    if (s != status::ok) return s;
    for (std::size_t i = 0; i < count; ++i) {
      const ldp::server::range_estimate& e = found[i];
      out[i] = ldp_range_estimate{e.lo, e.hi, e.estimate, e.variance, e.ci_low, e.ci_high};
    }
    return status::ok;
  });
}

ldp_status ldp_server_quantiles(const ldp_aggregator* a, const double* q, size_t count,
                                const ldp_distribution_options* options, ldp_quantile_estimate* out) noexcept {
  if (bad_buffer(q, count) || bad_buffer(out, count)) return code(status::invalid_argument);
  return distribution_query(a, [&](const ldp::server::distribution_aggregator& d) {
    std::vector<ldp::server::quantile_estimate> found;
    const status s = d.quantiles({q, count}, options_of(options), &found);
    if (s != status::ok) return s;
    for (std::size_t i = 0; i < count; ++i) {
      const ldp::server::quantile_estimate& e = found[i];
      out[i] = ldp_quantile_estimate{e.q, e.value, e.ci_low, e.ci_high};
    }
    return status::ok;
  });
}

ldp_status ldp_server_density(const ldp_aggregator* a, const ldp_distribution_options* options,
                              ldp_density_estimate* out, size_t capacity, size_t* count) noexcept {
  if (count == nullptr || bad_buffer(out, capacity)) return code(status::invalid_argument);
  *count = 0;
  return distribution_query(a, [&](const ldp::server::distribution_aggregator& d) {
    std::vector<ldp::server::density_estimate> found;
    const status s = d.density(options_of(options), &found);
    if (s != status::ok) return s;
    *count = found.size();
    if (found.size() > capacity) return status::buffer_too_small;
    for (std::size_t i = 0; i < found.size(); ++i) {
      const ldp::server::density_estimate& e = found[i];
      out[i] = ldp_density_estimate{e.x, e.value, e.ci_low, e.ci_high};
    }
    return status::ok;
  });
}

}  // extern "C"

// A device context (lib/device, context.h) together with the workspace it was made on, for tests:
// the workspace is owned, sized by the context and lives as long as the context.
#ifndef LDP_TESTS_SUPPORT_DEVICE_CONTEXT_H
#define LDP_TESTS_SUPPORT_DEVICE_CONTEXT_H

#include <cstddef>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/context.h"
#include "ldp/random/drbg.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"

namespace ldp::test {

template <class Context>
struct owned_context {
  // `extra`: what init() takes between the block and the context (winsorized: the window list).
  template <class... Extra>
  explicit owned_context(const wire::params& p, Extra... extra) : workspace(Context::workspace_size(p)) {
    code = Context::init(workspace, p, extra..., &context);
  }
  owned_context(const owned_context&) = delete;
  owned_context& operator=(const owned_context&) = delete;

  Context* operator->() noexcept { return &context; }

  std::vector<std::byte> workspace;  // operator new aligns it for any context
  Context context;
  status code = status::ok;  // init()'s
};

// A fresh context of p, then one randomize() of `input`: init()'s status if it failed (nothing
// written, nothing drawn), else randomize()'s.
template <class Context, class Input>
[[nodiscard]] status randomize_once(const wire::params& p, Input input, random::drbg& rng, span<unsigned char> out,
                                    device::framing f, std::size_t* written) {
  *written = 0;
  owned_context<Context> c(p);
  return c.code != status::ok ? c.code : c->randomize(input, rng, out, f, written);
}

// One whole report of `input` (sized to what was written), or init()'s or randomize()'s status.
template <class Context, class Input>
[[nodiscard]] status report_of(const wire::params& p, Input input, random::drbg& rng, std::vector<unsigned char>* out) {
  out->assign(wire::max_report_size(p), 0);
  std::size_t size = 0;
  const status s = randomize_once<Context>(p, input, rng, *out, device::framing::report, &size);
  out->resize(s == status::ok ? size : 0);
  return s;
}

}  // namespace ldp::test

#endif

#include "ldp/base/status.h"

#include "ldp/base/config.h"

namespace ldp {

const char* status_name(status s) noexcept {
#if LDP_CONFIG_STATUS_NAMES
  switch (s) {
    case status::ok: return "ok";
    case status::invalid_argument: return "invalid_argument";
    case status::buffer_too_small: return "buffer_too_small";
    case status::workspace_too_small: return "workspace_too_small";
    case status::malformed_report: return "malformed_report";
    case status::unsupported_version: return "unsupported_version";
    case status::parameter_mismatch: return "parameter_mismatch";
    case status::entropy_failure: return "entropy_failure";
    case status::overflow: return "overflow";
    case status::checksum_mismatch: return "checksum_mismatch";
    case status::unsupported: return "unsupported";
    case status::wrong_length: return "wrong_length";
    case status::unknown_mechanism: return "unknown_mechanism";
    case status::reserved_bits_set: return "reserved_bits_set";
    case status::out_of_range: return "out_of_range";
    case status::invalid_parameters: return "invalid_parameters";
    case status::limit_exceeded: return "limit_exceeded";
    case status::budget_exhausted: return "budget_exhausted";
  }
#else
  (void)s;
#endif
  return "";
}

}  // namespace ldp

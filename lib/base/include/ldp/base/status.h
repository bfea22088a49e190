// Status codes shared by every ldpkit module (docs/architecture.md, "Errors").
// The numbers are stable: they appear in logs, in the C API and in the rejection counters of saved
// aggregator state, so a value is never renumbered or reused; codes are only appended.
#ifndef LDP_BASE_STATUS_H
#define LDP_BASE_STATUS_H

#include <cstdint>

namespace ldp {

enum class [[nodiscard]] status : int32_t{
    ok = 0,
    invalid_argument = 1,  // an argument is out of its documented range (a block of another mechanism,
    // a misaligned workspace, a device context that init() refused, ...)
    buffer_too_small = 2,     // the caller's output span cannot hold the result
    workspace_too_small = 3,  // the workspace given to a device context's init() is smaller than the
    // context's workspace_size(p) bytes (ldp_workspace_size() in the C API)
    malformed_report = 4,     // untrusted bytes do not parse
    unsupported_version = 5,  // a format version this build does not know
    parameter_mismatch = 6,   // parameter fingerprints (or a window list's digest) differ
    entropy_failure = 7,      // the entropy source failed, or none was given
    overflow = 8,             // a result does not fit its type (values saturate where documented), or a
    // server state does not fit this target's memory
    checksum_mismatch = 9,  // stored or transmitted bytes fail their checksum
    unsupported = 10,       // a valid block this build cannot randomize (oracle thresholds out of 2^w
    // for w != 32: the device's coins are 32-bit)
    wrong_length = 11,        // untrusted bytes are shorter or longer than their format requires
    unknown_mechanism = 12,   // a mechanism id this build does not know
    reserved_bits_set = 13,   // a reserved field, flag or padding bit is not zero
    out_of_range = 14,        // an index or value lies outside what the parameters allow
    invalid_parameters = 15,  // a parameter block violates its mechanism's constraints
    limit_exceeded = 16,      // a block whose server state would pass the caller's memory ceiling
                              // (server::limits, docs/security_model.md "Memory contract"): refused
                              // before any allocation; never a report's rejection status. Also
                              // a use case past the privacy ledger's capacity (docs/ledger.md)
                              // and a glm-copies block past the device build's copy budget
                              // (LDP_CONFIG_MAX_GLM_COPIES, docs/mechanisms.md H.4)
    budget_exhausted = 17,    // the device privacy ledger refuses a charge that would pass the use
                              // case's budget for its window (ldp/device/ledger.h, docs/ledger.md)
};

// Number of defined codes. The rejection counters of saved state are a fixed 16
// (server::rejection_counter_count): codes from 16 on are never rejection statuses.
inline constexpr int32_t status_count = 18;

// Short snake_case name of a status ("ok", "malformed_report", ...); "" for unknown values and for
// every value when LDP_CONFIG_STATUS_NAMES is 0.
[[nodiscard]] const char* status_name(status s) noexcept;

}  // namespace ldp

#endif

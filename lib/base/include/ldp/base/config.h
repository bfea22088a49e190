// Compile-time configuration of ldpkit, one documented switch per line (Mbed TLS style).
// Every macro may be predefined by the build (CMake passes the LDP_CONFIG_* options through).
#ifndef LDP_BASE_CONFIG_H
#define LDP_BASE_CONFIG_H

// LDP_CONFIG_STATUS_NAMES: 1 keeps status_name() strings; 0 compiles them out (saves flash on MCUs).
#ifndef LDP_CONFIG_STATUS_NAMES
#define LDP_CONFIG_STATUS_NAMES 1
#endif

// LDP_CONFIG_ASSERTS: 1 checks internal invariants with LDP_ASSERT and calls ldp_abort() on failure.
// Untrusted input is never checked by assertion, whatever this says: it gets a status.
#ifndef LDP_CONFIG_ASSERTS
#define LDP_CONFIG_ASSERTS 1
#endif

// LDP_CONFIG_SIMD: 1 compiles the xsimd kernels for the target's vector units; 0 builds the scalar
// reference only (forced on targets without an xsimd backend, such as Cortex-M).
#ifndef LDP_CONFIG_SIMD
#define LDP_CONFIG_SIMD 1
#endif

// LDP_CONFIG_MASK_BUFFER_WORDS: 256-bit random words buffered on the stack by the Bernoulli mask
// filler (32 bytes each). At least 32, the worst case of one 256-lane chunk at 32-bit thresholds.
#ifndef LDP_CONFIG_MASK_BUFFER_WORDS
#define LDP_CONFIG_MASK_BUFFER_WORDS 64
#endif

#if LDP_CONFIG_MASK_BUFFER_WORDS < 32
#error "LDP_CONFIG_MASK_BUFFER_WORDS must be at least 32"
#endif

#endif

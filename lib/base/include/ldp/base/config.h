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

// LDP_CONFIG_DRBG_BLOCKS: ChaCha20 blocks (64 bytes) buffered by each random::drbg. At least 32, so
// that the Bernoulli mask kernel can read the worst case of one chunk (32 words of 32 bytes) in
// place next to a 16-block refill unit. It changes memory use only, never the random stream.
#ifndef LDP_CONFIG_DRBG_BLOCKS
#define LDP_CONFIG_DRBG_BLOCKS 32
#endif

#if LDP_CONFIG_DRBG_BLOCKS < 32
#error "LDP_CONFIG_DRBG_BLOCKS must be at least 32"
#endif

// LDP_CONFIG_MAX_GLM_COPIES: the most noisy copies D = d (d + 1) + 1 of (x, y) a glm-copies device
// context accepts (docs/mechanisms.md H.4); a block above it is refused with limit_exceeded, since
// the report holds D (p + 1) discrete Gaussian draws. Default 1057 (d = 32, the paper's alpha = 1)
// on hosts and 21 (d = 4) on bare metal. At least 3 (d = 1).
#ifndef LDP_CONFIG_MAX_GLM_COPIES
#ifdef LDP_BARE_METAL
#define LDP_CONFIG_MAX_GLM_COPIES 21
#else
#define LDP_CONFIG_MAX_GLM_COPIES 1057
#endif
#endif

#if LDP_CONFIG_MAX_GLM_COPIES < 3
#error "LDP_CONFIG_MAX_GLM_COPIES must be at least 3"
#endif

#endif

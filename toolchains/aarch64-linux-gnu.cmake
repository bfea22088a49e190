# 64-bit ARM Linux (Debian arm64): NEON is part of the base ISA, so the neon64 kernels are built.
# Needs: g++-aarch64-linux-gnu, qemu-user (tests run under qemu-aarch64).

set(LDP_CROSS_TRIPLE aarch64-linux-gnu)
set(LDP_CROSS_PROCESSOR aarch64)
set(LDP_CROSS_QEMU qemu-aarch64)

include("${CMAKE_CURRENT_LIST_DIR}/linux-cross-common.cmake")

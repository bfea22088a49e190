# 32-bit ARMv7 hard-float Linux (Debian armhf).
# Needs: g++-arm-linux-gnueabihf, qemu-user (tests run under qemu-arm).
#
# The Debian armhf compiler defaults to -mfpu=vfpv3-d16, which has no NEON. This toolchain targets
# ARMv7 cores that do have it (Cortex-A7/A9/A15/...), so -mfpu=neon is added to every compile and
# LDP_ARM_NEON tells lib/kernels to build the 32-bit NEON unit. Binaries built this way will not
# run on a NEON-less ARMv7 core.

set(LDP_CROSS_TRIPLE arm-linux-gnueabihf)
set(LDP_CROSS_PROCESSOR armv7)
set(LDP_CROSS_QEMU qemu-arm)
set(LDP_CROSS_FLAGS "-mfpu=neon")

include("${CMAKE_CURRENT_LIST_DIR}/linux-cross-common.cmake")

set(LDP_ARM_NEON ON CACHE BOOL "32-bit ARM with NEON (-mfpu=neon)")

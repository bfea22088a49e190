# 64-bit RISC-V Linux (Debian riscv64, RV64GC).
# Needs: g++-riscv64-linux-gnu, qemu-user (tests run under qemu-riscv64).
#
# xsimd 8.1 has no RISC-V backend, so this target always takes the scalar kernel path; it is here
# to prove the scalar reference builds and passes on a non-ARM, non-x86 target.

set(LDP_CROSS_TRIPLE riscv64-linux-gnu)
set(LDP_CROSS_PROCESSOR riscv64)
set(LDP_CROSS_QEMU qemu-riscv64)

include("${CMAKE_CURRENT_LIST_DIR}/linux-cross-common.cmake")

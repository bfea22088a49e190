# 64-bit IBM Z Linux (Debian s390x): the one big-endian target, so every explicit little-endian
# load/store, checksum and golden byte stream is checked against a byte order that differs from the
# host's. xsimd 8.1 has no s390x backend, so the kernels take the scalar path.
# Needs: g++-s390x-linux-gnu, qemu-user (tests run under qemu-s390x).

set(LDP_CROSS_TRIPLE s390x-linux-gnu)
set(LDP_CROSS_PROCESSOR s390x)
set(LDP_CROSS_QEMU qemu-s390x)

include("${CMAKE_CURRENT_LIST_DIR}/linux-cross-common.cmake")

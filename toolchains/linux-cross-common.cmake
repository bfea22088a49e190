# Shared body of the Debian Linux cross toolchains (aarch64, armhf, riscv64, s390x).
#
# The including file sets, before include():
#   LDP_CROSS_TRIPLE     GNU triple of the Debian cross compiler, e.g. aarch64-linux-gnu
#   LDP_CROSS_PROCESSOR  value for CMAKE_SYSTEM_PROCESSOR
#   LDP_CROSS_QEMU       qemu-user binary that runs the target's executables, e.g. qemu-aarch64
#   LDP_CROSS_FLAGS      (optional) extra flags for every C and C++ compile
#
# A toolchain file is read more than once per configure (by project() and again by every
# try_compile), so this file only assigns values and never appends to them.

foreach(_ldp_var IN ITEMS LDP_CROSS_TRIPLE LDP_CROSS_PROCESSOR LDP_CROSS_QEMU)
  if(NOT ${_ldp_var})
    message(FATAL_ERROR "linux-cross-common.cmake: ${_ldp_var} must be set by the including toolchain file")
  endif()
endforeach()

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${LDP_CROSS_PROCESSOR})

set(CMAKE_C_COMPILER ${LDP_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${LDP_CROSS_TRIPLE}-g++)

if(DEFINED LDP_CROSS_FLAGS)
  set(CMAKE_C_FLAGS_INIT "${LDP_CROSS_FLAGS}")
  set(CMAKE_CXX_FLAGS_INIT "${LDP_CROSS_FLAGS}")
endif()

# Debian installs each cross target's libc and libstdc++ under /usr/<triple>. Look for libraries,
# headers and packages only there; build tools (programs) still come from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${LDP_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# ctest and add_test() prefix every target executable with this command, so the whole test suite
# runs under qemu-user; -L points the emulated dynamic loader at the target's shared libraries.
# Pass -DCMAKE_CROSSCOMPILING_EMULATOR=... to use something else.
if(NOT DEFINED CMAKE_CROSSCOMPILING_EMULATOR)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${LDP_CROSS_QEMU};-L;/usr/${LDP_CROSS_TRIPLE}")
endif()

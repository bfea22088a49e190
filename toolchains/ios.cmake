# iOS devices through CMake's built-in Apple support (needs macOS with Xcode; use -G Xcode or Ninja).
#
#   cmake --preset ios
#   cmake -S . -B build-ios -G Xcode -DCMAKE_TOOLCHAIN_FILE=toolchains/ios.cmake -DLDP_BUILD_TESTS=OFF
#
# Device binaries cannot run on the build machine, so switching the test suite off
# (-DLDP_BUILD_TESTS=OFF) is left to the caller. For the simulator pass
# -DCMAKE_OSX_SYSROOT=iphonesimulator (and e.g. -DCMAKE_OSX_ARCHITECTURES="arm64;x86_64").
# Not built or tested by this project's CI (no Apple SDK on Debian).

set(CMAKE_SYSTEM_NAME iOS)

set(CMAKE_OSX_ARCHITECTURES arm64 CACHE STRING "iOS target architectures")
set(CMAKE_OSX_DEPLOYMENT_TARGET 13.0 CACHE STRING "Minimum iOS version")

# Build every listed architecture, not only the one of the attached device.
set(CMAKE_XCODE_ATTRIBUTE_ONLY_ACTIVE_ARCH NO)

#!/usr/bin/env bash
# The whole ldpkit test suite, as the README states and .ci/run calls it, on a fresh Debian 12:
#   1. installs the Debian packages it needs (apt-get; sudo when not root),
#   2. host build with g++ and every test,
#   3. the same suite with AddressSanitizer + UndefinedBehaviorSanitizer (clang),
#   4. aarch64 (NEON64), armhf (32-bit NEON) and riscv64 (scalar) cross builds, tests under qemu-user,
#   5. Cortex-M4F and Cortex-M7 bare-metal firmware images, scanned for heap and exception symbols.
# Stages can be picked by name: scripts/test.sh host asan
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(deps host asan aarch64 armhf riscv64 cortex-m4 cortex-m7)

packages=(cmake ninja-build g++ clang libclang-rt-14-dev libxsimd-dev doctest-dev libbenchmark-dev
          libsodium-dev libssl-dev python3
          g++-aarch64-linux-gnu g++-arm-linux-gnueabihf g++-riscv64-linux-gnu qemu-user
          gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib)

install_deps() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && { echo "== deps: all installed"; return; }
  echo "== deps: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

run_preset() {  # configure, build, and test when the preset has tests
  local preset=$1
  echo "== $preset: configure and build"
  mkdir -p build
  cmake --preset "$preset" > "build/$preset.configure.log" 2>&1 ||
    { cat "build/$preset.configure.log"; return 1; }
  cmake --build --preset "$preset"
  case "$preset" in
    cortex-m*) ;;  # the image is checked as part of its build
    *) echo "== $preset: test"; ctest --preset "$preset" ;;
  esac
}

for stage in "${stages[@]}"; do
  case "$stage" in
    deps) install_deps ;;
    *) run_preset "$stage" ;;
  esac
done
echo "== all stages passed: ${stages[*]}"

#!/usr/bin/env bash
# The whole ldpkit test suite, as the README states and .ci/run calls it, on a fresh Debian 12:
#   1. installs the Debian packages it needs (apt-get; sudo when not root),
#   2. host build with g++ and every test,
#   3. the same suite with AddressSanitizer + UndefinedBehaviorSanitizer (clang),
#   4. the libFuzzer targets (report and batch decoders), one minute each from the golden seeds,
#   5. aarch64 (NEON64), armhf (32-bit NEON), riscv64 (scalar) and s390x (big-endian) cross builds,
#      tests under qemu-user,
#   6. Cortex-M4F and Cortex-M7 bare-metal firmware images, scanned for heap and exception symbols.
# Stages can be picked by name: scripts/test.sh host asan
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(deps host asan fuzz aarch64 armhf riscv64 s390x cortex-m4 cortex-m7)

packages=(cmake ninja-build g++ clang libclang-rt-14-dev libxsimd-dev doctest-dev libbenchmark-dev
          libsodium-dev libssl-dev python3
          g++-aarch64-linux-gnu g++-arm-linux-gnueabihf g++-riscv64-linux-gnu g++-s390x-linux-gnu
          qemu-user
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

run_fuzz() {  # build the fuzz targets, then run each for a minute from the golden-file seeds
  echo "== fuzz: configure and build"
  mkdir -p build
  cmake --preset fuzz > build/fuzz.configure.log 2>&1 || { cat build/fuzz.configure.log; return 1; }
  cmake --build --preset fuzz
  cmake --build --preset fuzz --target fuzz_seeds
  local dir=build/fuzz/tests/fuzz target
  for target in fuzz_report fuzz_batch; do
    local seeds="$PWD/$dir/seeds/${target#fuzz_}" corpus="$PWD/build/fuzz/corpus/$target"
    local log="$PWD/build/fuzz/$target.log"
    rm -rf "$corpus" && mkdir -p "$corpus"  # fresh: each run starts from the seeds alone
    echo "== fuzz: $target, 60 s (log: build/fuzz/$target.log)"
    # libFuzzer exits non-zero on a crash, sanitizer report, leak, timeout or RSS overrun, and
    # writes the input that caused it into the working directory.
    if ! (cd "$dir" && "./$target" -max_total_time=60 -timeout=10 -rss_limit_mb=2048 \
            "$corpus" "$seeds") > "$log" 2>&1; then
      tail -n 60 "$log"
      echo "== fuzz: $target failed; its input is in $dir (crash-*, leak-*, timeout-*, oom-*)"
      return 1
    fi
    grep -E '^(#[0-9]+[[:space:]]+DONE|Done [0-9]+ runs)' "$log" || true
  done
}

for stage in "${stages[@]}"; do
  case "$stage" in
    deps) install_deps ;;
    fuzz) run_fuzz ;;
    *) run_preset "$stage" ;;
  esac
done
echo "== all stages passed: ${stages[*]}"

#!/usr/bin/env bash
# The whole ldpkit test suite, as the README states and .ci/run calls it, on a fresh Debian 12:
#   1. installs the Debian packages it needs (apt-get; sudo when not root),
#   2. format: every tracked C and C++ source laid out as .clang-format says (includes sorted),
#      host build with g++ and every test; `install`: cmake --install of that build, and out-of-tree
#      consumers built against the prefix with find_package and with pkg-config (tests/consumer),
#   3. the same suite with AddressSanitizer + UndefinedBehaviorSanitizer (clang),
#   4. ThreadSanitizer (clang) on the tests that run threads: const reads of one aggregator from two
#      threads (unit.server.test_concurrent_reads), the BLH/OLH support counting split over threads
#      (unit.server.test_local_hash_threads) and the tool's fleet (tools.determinism, tools.demo);
#      only those targets are built,
#   5. the libFuzzer targets (report and batch decoders, saved state, aggregator::create, add_batch,
#      the streamed batch, the device ledger's loader), one minute each from the golden seeds
#      (LDP_FUZZ_SECONDS=600 for the slow run of 10 minutes each, README "Tests"),
#   6. aarch64 (NEON64), armhf (32-bit NEON), riscv64 (scalar) and s390x (big-endian) cross builds,
#      tests under qemu-user,
#   7. Cortex-M4F and Cortex-M7 bare-metal firmware images, scanned for heap and exception symbols.
# After `install`, the `python` stage: the package's pytest suite (scripts/python.sh test), then the
# documented install command and `import ldpkit` by Debian's /usr/bin/python3 from another directory.
# Stages can be picked by name: scripts/test.sh host asan
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(deps format host install python asan tsan fuzz aarch64 armhf riscv64 s390x cortex-m4 cortex-m7)

# shellcheck source=scripts/deps.sh
source scripts/deps.sh

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

run_fuzz() {  # build the fuzz targets, then run each for a minute (LDP_FUZZ_SECONDS) from the golden-file seeds
  local seconds="${LDP_FUZZ_SECONDS:-60}"
  echo "== fuzz: configure and build"
  mkdir -p build
  cmake --preset fuzz > build/fuzz.configure.log 2>&1 || { cat build/fuzz.configure.log; return 1; }
  cmake --build --preset fuzz
  cmake --build --preset fuzz --target fuzz_seeds
  local dir=build/fuzz/tests/fuzz target
  # fuzz_create reads the report corpus's layout (u16 block length, block, tail); fuzz_add_batch
  # and fuzz_batch_stream read batches. The server targets run under a 256 MiB ceiling, so any RSS
  # past 2048 MB is an allocation the memory contract does not allow (docs/security_model.md).
  declare -A corpus_of=([fuzz_report]=report [fuzz_batch]=batch [fuzz_state]=state [fuzz_create]=report
                        [fuzz_add_batch]=batch [fuzz_batch_stream]=batch [fuzz_ledger]=ledger)
  for target in fuzz_report fuzz_batch fuzz_state fuzz_create fuzz_add_batch fuzz_batch_stream fuzz_ledger; do
    local seeds="$PWD/$dir/seeds/${corpus_of[$target]}" corpus="$PWD/build/fuzz/corpus/$target"
    local log="$PWD/build/fuzz/$target.log"
    rm -rf "$corpus" && mkdir -p "$corpus"  # fresh: each run starts from the seeds alone
    echo "== fuzz: $target, $seconds s (log: build/fuzz/$target.log)"
    # libFuzzer exits non-zero on a crash, sanitizer report, leak, timeout or RSS overrun, and
    # writes the input that caused it into the working directory.
    if ! (cd "$dir" && "./$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
            "$corpus" "$seeds") > "$log" 2>&1; then
      tail -n 60 "$log"
      echo "== fuzz: $target failed; its input is in $dir (crash-*, leak-*, timeout-*, oom-*)"
      return 1
    fi
    grep -E '^(#[0-9]+[[:space:]]+DONE|Done [0-9]+ runs)' "$log" || true
  done
}

run_install() {  # install the host build to a prefix, then build and run out-of-tree consumers
  echo "== install: host build, cmake --install, consumers (tests/consumer)"
  mkdir -p build
  cmake --preset host > build/host.configure.log 2>&1 || { cat build/host.configure.log; return 1; }
  cmake --build --preset host
  local prefix="$PWD/build/install-prefix" out="$PWD/build/consumer"
  rm -rf "$prefix" "$prefix-device" "$out"
  mkdir -p "$out"
  cmake --install build/host --prefix "$prefix" > "$out/install.log"
  # The CMake package with both components: the C and the C++ program must print the same bytes.
  cmake -S tests/consumer -B "$out/cmake" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" > "$out/cmake.log" 2>&1 ||
    { cat "$out/cmake.log"; return 1; }
  cmake --build "$out/cmake"
  "$out/cmake/consumer_cxx" > "$out/cxx.txt"
  "$out/cmake/consumer_c" > "$out/c.txt"
  diff "$out/cxx.txt" "$out/c.txt"
  # pkg-config, with the C compiler alone.
  local pc_dir
  pc_dir="$(dirname "$(find "$prefix" -name ldpkit-server.pc)")"
  # shellcheck disable=SC2046  # pkg-config prints several words on purpose
  ${CC:-cc} -std=c99 -Wall -Wextra -Wpedantic -Werror tests/consumer/main_c.c -o "$out/consumer_pkgconfig" \
    $(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs ldpkit-server)
  "$out/consumer_pkgconfig" | diff "$out/c.txt" -
  # The device component alone: a C device program builds, and asking for the server fails.
  cmake --install build/host --prefix "$prefix-device" --component device > "$out/install-device.log"
  cmake -S tests/consumer -B "$out/device" -G Ninja -DCMAKE_PREFIX_PATH="$prefix-device" \
    -DCONSUMER_COMPONENTS=device > "$out/device.log" 2>&1 || { cat "$out/device.log"; return 1; }
  cmake --build "$out/device"
  "$out/device/consumer_c" | diff <(head -n 1 "$out/c.txt") -
  if cmake -S tests/consumer -B "$out/missing" -G Ninja -DCMAKE_PREFIX_PATH="$prefix-device" \
       > "$out/missing.log" 2>&1; then
    echo "== install: find_package found a server component that was not installed"
    return 1
  fi
  grep -q "ldpkit component server is not installed" "$out/missing.log"
  echo "== install: CMake package, pkg-config and component install work; consumers agree:"
  cat "$out/c.txt"
}

run_python() {  # the pytest suite on the build tree, then the documented install as a fresh user meets it
  echo "== python: scripts/python.sh test (build/python, /usr/bin/python3 -m pytest python/tests)"
  # pytest exits 5 when it collects nothing; python.sh passes pytest's status on, so that fails too.
  scripts/python.sh test
  echo "== python: scripts/python.sh install (README \"Python\"), run from /tmp"
  local root="$PWD"
  (cd /tmp && "$root/scripts/python.sh" install)
  # A fresh shell: no PYTHONPATH, not in the repository, Debian's interpreter by its full name (the
  # python3 first on PATH may be another one). The module must come from the installed copy.
  local where
  where="$(cd /tmp && env -u PYTHONPATH /usr/bin/python3 -c 'import ldpkit; print(ldpkit.__file__)')"
  case "$where" in
    "$root"/*) echo "== python: import ldpkit found the source tree ($where), not the installed package"; return 1 ;;
  esac
  echo "== python: /usr/bin/python3 imports the installed ldpkit from $where"
}

run_format() {  # every tracked C and C++ file as .clang-format lays it out, includes sorted in blocks
  echo "== format: clang-format --dry-run over the tracked C and C++ sources"
  git ls-files -z '*.c' '*.h' '*.cpp' | xargs -0 clang-format --dry-run --Werror
}

for stage in "${stages[@]}"; do
  case "$stage" in
    deps) install_packages "${host_packages[@]}" "${cross_packages[@]}" "${python_packages[@]}" ;;
    format) run_format ;;
    install) run_install ;;
    python) run_python ;;
    fuzz) run_fuzz ;;
    *) run_preset "$stage" ;;
  esac
done
echo "== all stages passed: ${stages[*]}"

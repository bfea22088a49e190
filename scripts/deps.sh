# Debian packages of ldpkit and their installer, sourced by scripts/test.sh and scripts/demo.sh.
# install_packages NAME...: installs the ones missing (apt-get; sudo when not root).

# Host build: library, tests, benchmarks (and their baselines), the ldp tool, packaging checks.
host_packages=(cmake ninja-build g++ clang clang-format libclang-rt-14-dev libxsimd-dev doctest-dev libbenchmark-dev
               libsodium-dev libssl-dev libfftw3-dev python3 pkgconf libcli11-dev nlohmann-json3-dev
               libfmt-dev zlib1g-dev)
# Cross builds run under qemu-user, and the bare-metal firmware images.
cross_packages=(g++-aarch64-linux-gnu g++-arm-linux-gnueabihf g++-riscv64-linux-gnu g++-s390x-linux-gnu
                qemu-user gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib)

# The Python package (scripts/python.sh): pybind11 and Python's headers for the extension; Debian's
# modules for the package, its Dask part, pytest and the tour (python3-sklearn ships its data files).
python_packages=(pybind11-dev python3-dev python3-numpy python3-pandas python3-matplotlib python3-dask
                 python3-distributed python3-pytest python3-sklearn)

install_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && { echo "== deps: all installed"; return; }
  echo "== deps: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

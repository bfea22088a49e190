#!/usr/bin/env bash
# The Python package ldpkit (issue 13, docs/python.md), for Debian's own interpreter /usr/bin/python3
# (a `python3` first on PATH may be another one, without Debian's numpy and pandas).
#
#   scripts/python.sh install   THE install command: the Debian packages it needs (apt-get, when
#                               missing), the build with the CMake preset `python` (build/python),
#                               then `cmake --install build/python --component python` into
#                               /usr/bin/python3's own site directory (sysconfig's platlib: on Debian
#                               /usr/local/lib/python3.X/dist-packages). Afterwards
#                               `/usr/bin/python3 -c "import ldpkit"` works from any directory.
#                               LDP_PYTHON_SITE=DIR installs into DIR instead.
#   scripts/python.sh test      the build, then /usr/bin/python3 -m pytest python/tests against the build
#                               tree (PYTHONPATH=build/python/python, LDP_TOOL=build/python/tools/ldp);
#                               extra arguments go to pytest. No test collected is a failure.
#   scripts/python.sh build     the build only.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh

python=/usr/bin/python3
build=build/python
# What the preset `python` builds (the libraries, the ldp tool, the module); the package's own are
# deps.sh's python_packages.
build_packages=(cmake ninja-build g++ libxsimd-dev pkgconf libcli11-dev nlohmann-json3-dev libfmt-dev zlib1g-dev)

build_package() {
  install_packages "${build_packages[@]}" "${python_packages[@]}"
  local launcher=()
  if command -v ccache > /dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  cmake --preset python -DPython_EXECUTABLE="$python" "${launcher[@]}" > /dev/null
  cmake --build --preset python --target ldpkit_core ldp
}

case "${1:-}" in
  build)
    build_package
    ;;
  install)
    build_package
    site="${LDP_PYTHON_SITE:-$("$python" -c 'import sysconfig; print(sysconfig.get_path("platlib"))')}"
    cmake -DLDP_PYTHON_SITE="$site" "$build" > /dev/null
    sudo=""
    if [ ! -w "$(dirname "$site")" ] && [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo cmake --install "$build" --component python
    echo "== ldpkit installed into $site for $python"
    (cd / && PYTHONPATH="${LDP_PYTHON_SITE:-}" "$python" -c 'import ldpkit; print("== import ldpkit:", ldpkit.__file__)')
    ;;
  test)
    shift
    build_package
    export PYTHONPATH="$PWD/$build/python" LDP_TOOL="$PWD/$build/tools/ldp"
    status=0
    PYTHONDONTWRITEBYTECODE=1 "$python" -m pytest -q -p no:cacheprovider python/tests "$@" || status=$?
    if [ "$status" -eq 5 ]; then
      echo "scripts/python.sh: pytest collected no tests" >&2
      exit 1
    fi
    exit "$status"
    ;;
  *)
    echo "usage: scripts/python.sh install|test [pytest arguments]|build" >&2
    exit 2
    ;;
esac

#!/usr/bin/env bash
# The README's main job on a fresh Debian 12: installs the host packages, builds the `ldp` tool
# (Release, preset `host`) and runs `ldp demo`: a simulated fleet of 1,000,000 devices on the
# built-in skewed dataset, aggregated and estimated, with a plot in demo.svg. Extra arguments go
# to `ldp demo` (see `ldp demo --help`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/deps.sh
source scripts/deps.sh

install_packages "${host_packages[@]}"
mkdir -p build
echo "== build: ldp (log: build/demo.build.log)"
{ cmake --preset host && cmake --build --preset host --target ldp; } > build/demo.build.log 2>&1 ||
  { tail -n 40 build/demo.build.log; exit 1; }
echo "== ldp demo"
exec build/host/tools/ldp demo "$@"

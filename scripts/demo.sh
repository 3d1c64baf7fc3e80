#!/usr/bin/env bash
# Builds Zamboni and runs its main job on the embedded default.
#
# Today the operations are not built yet, so this builds the executable and
# shows its --help and version; as the operations land it grows into
# `zamboni maintenance` on a demo warehouse (local folder, SQLite catalog).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" --target zamboni
./build/zamboni --version
./build/zamboni --help

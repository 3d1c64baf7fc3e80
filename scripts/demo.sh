#!/usr/bin/env bash
# Builds Zamboni and runs its main job on the embedded default: a demo
# warehouse (an embedded SQLite catalog and tables written the way
# streaming ingest writes them: hundreds of small appends, position and
# equality deletes, a schema change), then the cron line of seed 003 on
# it, with the warehouse before and after:
#
#   zamboni demo DIR
#   ZAMBONI_ROOT=DIR zamboni maintenance --warehouse demo --status
#
# DIR is the first argument, default ./zamboni-demo. Running this again
# rebuilds the demo from scratch and maintains it again.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" --target zamboni
demo=${1:-$PWD/zamboni-demo}
./build/zamboni demo "$demo"
echo
echo "\$ ZAMBONI_ROOT=$demo zamboni maintenance --warehouse demo --status"
ZAMBONI_ROOT=$demo ./build/zamboni maintenance --warehouse demo --status

#!/usr/bin/env bash
# Builds Zamboni and runs its tests; installs what they need first.
#
#   bash scripts/test.sh              every test, in build/
#   bash scripts/test.sh --sanitize   unit tests under ASan + UBSan (clang),
#                                     in build-asan/
#   bash scripts/test.sh --tsan       threaded unit tests under TSan, in
#                                     build-tsan/
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

mode=${1:-all}
jobs=$(nproc 2>/dev/null || echo 2)
case "$mode" in
    all)
        cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
        cmake --build build -j "$jobs"
        ctest --test-dir build --output-on-failure -j "$jobs"
        ;;
    --sanitize)
        CC=clang cmake -S . -B build-asan -G Ninja -DZB_SANITIZE=ON \
            -DZB_BUILD_BENCH=OFF >/dev/null
        cmake --build build-asan -j "$jobs"
        ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
            ctest --test-dir build-asan --output-on-failure -L unit -j "$jobs"
        ;;
    --tsan)
        CC=clang cmake -S . -B build-tsan -G Ninja -DZB_SANITIZE_THREAD=ON \
            -DZB_BUILD_BENCH=OFF >/dev/null
        cmake --build build-tsan -j "$jobs" --target test_exec
        TSAN_OPTIONS=halt_on_error=1 \
            ctest --test-dir build-tsan --output-on-failure -R '^test_exec$'
        ;;
    *)
        echo "usage: scripts/test.sh [--sanitize|--tsan]" >&2
        exit 2
        ;;
esac

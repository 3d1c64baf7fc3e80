#!/usr/bin/env bash
# Builds Zamboni and runs its tests; installs what they need first.
#
#   bash scripts/test.sh              every test, in build/
#   bash scripts/test.sh --sanitize   unit tests under ASan + UBSan (clang),
#                                     in build-asan/
#   bash scripts/test.sh --tsan       threaded unit tests and maintenance
#                                     --parallel under TSan, in
#                                     build-tsan/
#   bash scripts/test.sh --fuzz [S]   each libFuzzer target for S seconds
#                                     (default 20) from its corpus, in
#                                     build-fuzz/; a crash fails the run
#   bash scripts/test.sh --release    Release (-O3, NDEBUG) builds with gcc
#                                     and with clang, then the unit tests of
#                                     gcc's, in build-release-{gcc,clang}/
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

mode=${1:-all}
jobs=$(nproc 2>/dev/null || echo 2)
case "$mode" in
    all)
        cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
        cmake --build build -j "$jobs"
        # PostgreSQL on loopback for the catalog tests (ZB_TEST_PG_URL).
        bash scripts/pg-test.sh run \
            ctest --test-dir build --output-on-failure -j "$jobs"
        ;;
    --sanitize)
        CC=clang cmake -S . -B build-asan -G Ninja -DZB_SANITIZE=ON \
            -DZB_BUILD_BENCH=OFF >/dev/null
        cmake --build build-asan -j "$jobs"
        ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
            bash scripts/pg-test.sh run \
            ctest --test-dir build-asan --output-on-failure -L unit -j "$jobs"
        ;;
    --tsan)
        CC=clang cmake -S . -B build-tsan -G Ninja -DZB_SANITIZE_THREAD=ON \
            -DZB_BUILD_BENCH=OFF >/dev/null
        # zamboni: `maintenance --parallel` runs tables on threads
        cmake --build build-tsan -j "$jobs" --target test_exec test_exec_sort \
            test_parquet_writer_threads test_cli_parallel_runner test_service \
            test_avro zamboni
        # test_service: 8 threads taking tasks from one queue handle
        TSAN_OPTIONS=halt_on_error=1 \
            bash scripts/pg-test.sh run \
            ctest --test-dir build-tsan --output-on-failure \
            -R '^(test_exec|test_exec_sort_pool|test_exec_sort_threads|test_avro_threads|test_parquet_writer_threads|test_cli_parallel_runner|test_cli_maintenance_parallel|test_service)$'
        ;;
    --release)
        # The optimiser's and NDEBUG's warnings, fatal as everywhere.
        # Both compilers build everything; the unit tests run on gcc's
        # build (clang's code already runs them under the sanitizers).
        for cc in gcc clang; do
            CC=$cc cmake -S . -B build-release-$cc -G Ninja \
                -DCMAKE_BUILD_TYPE=Release -DZB_WERROR=ON >/dev/null
            cmake --build build-release-$cc -j "$jobs"
        done
        bash scripts/pg-test.sh run ctest --test-dir build-release-gcc \
            --output-on-failure -L unit -j "$jobs"
        ;;
    --fuzz)
        secs=${2:-20}
        CC=clang cmake -S . -B build-fuzz -G Ninja -DZB_FUZZ=ON \
            -DZB_BUILD_BENCH=OFF >/dev/null
        targets=$(cd tests/fuzz && ls fuzz_*.c | sed 's/\.c$//')
        cmake --build build-fuzz -j "$jobs" --target $targets
        failed=0
        for t in $targets; do
            corpus=tests/fuzz/corpora/${t#fuzz_}
            work=$(mktemp -d)
            if build-fuzz/tests/$t -max_total_time="$secs" -rss_limit_mb=2048 \
                -artifact_prefix="$work/" "$work" "$corpus" \
                >"$work/log" 2>&1; then
                echo "PASS $t: $(grep -o 'Done [0-9]* runs in [0-9]* second' "$work/log")"
                rm -rf "$work"
            else
                echo "FAIL $t: crash input kept in $work; add it to $corpus"
                tail -30 "$work/log"
                failed=$((failed + 1))
            fi
        done
        n=$(echo $targets | wc -w)
        echo "fuzz: $((n - failed)) passed, $failed failed"
        [ "$failed" -eq 0 ]
        ;;
    *)
        echo "usage: scripts/test.sh [--sanitize|--tsan|--release|--fuzz [SECONDS]]" >&2
        exit 2
        ;;
esac

#!/usr/bin/env bash
# Parquet decode: Zamboni's reader against DuckDB on the same zstd files,
# one thread each, then two. Usage: bench/parquet_read.sh [BUILD_DIR]
# Writes its data set once under ${ZB_BENCH_DIR:-/tmp/zb-bench-parquet}.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
dir=${ZB_BENCH_DIR:-/tmp/zb-bench-parquet}
node bench/gen_parquet_bench.mjs "$dir" 8 1000000
files=$(ls "$dir"/*.parquet)
for t in 1 2; do
    "$build/bench/bench_parquet_read" --threads "$t" $files
    node bench/duckdb_read.mjs "$t" $files
done

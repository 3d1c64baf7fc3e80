#!/usr/bin/env bash
# Compaction's rewrite, three ways on the same inputs (issue 4's benchmark):
#   - 2,000 small zstd files of an event schema (10M rows): our decode and
#     re-encode, against DuckDB's COPY with 2 threads and zstd level 3;
#   - 20 files with large row groups (10M rows): row-group copy, against
#     our re-encode and DuckDB's COPY of the same files.
# Usage: bench/parquet_rewrite.sh [BUILD_DIR]. Data under
# ${ZB_BENCH_DIR:-/tmp/zb-bench-rewrite}, made once.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
dir=${ZB_BENCH_DIR:-/tmp/zb-bench-rewrite}
node bench/gen_parquet_bench.mjs "$dir/small" 2000 5000 >/dev/null
node bench/gen_parquet_bench.mjs "$dir/large" 20 500000 >/dev/null
small=$(ls "$dir"/small/*.parquet)
large=$(ls "$dir"/large/*.parquet)
rm -rf "$dir/out"
echo "== 2,000 small files"
"$build/bench/bench_parquet_rewrite" --mode reencode "$dir/out/a" $small
"$build/bench/bench_parquet_rewrite" --mode reencode --threads 2 "$dir/out/a2" $small
node bench/duckdb_copy.mjs 2 "$dir/out/duck-small.parquet" $small
echo "== 20 files with large row groups"
"$build/bench/bench_parquet_rewrite" --mode copy "$dir/out/b" $large
"$build/bench/bench_parquet_rewrite" --mode reencode "$dir/out/c" $large
node bench/duckdb_copy.mjs 2 "$dir/out/duck-large.parquet" $large

#!/usr/bin/env bash
# Issue 21's hot table, measured through the zamboni executable: how long a
# replace commit attempt holds its window (from reading the newest metadata
# to publishing the next) while a writer commits every 40 ms, and how many
# attempts a compaction needs before one lands while the writer still runs.
#
# Each run: zb-hot-writer appends and deletes by position every 40 ms for
# SECONDS seconds on a fresh day-partitioned table (a folder table, format
# FORMAT); AT seconds in, `zamboni -v compact TABLE` (what a user runs) is
# started as a child. From its -v log (the catalog's "commit attempt N:
# load L ms, build B ms, commit C ms" lines) the run prints the attempts,
# whether the last committed, whether it committed a second or more before
# the writer stopped, and the median of each phase over the attempts after
# the first (the first also rewrites the data). RUNS runs; with BASELINE=PATH each
# run is paired with the same run of another zamboni build (alternating,
# so the machine's drift hits both alike).
#
# Usage: bench/hot_commit.sh
# Environment: ZAMBONI=build/zamboni BASELINE= HOT_WRITER=build/tests/zb-hot-writer
#   RUNS=5 SECONDS_TOTAL=20 AT=8 FORMAT=2 WORK=/tmp/zb-hot-bench
set -euo pipefail
cd "$(dirname "$0")/.."

zb=${ZAMBONI:-build/zamboni}
base=${BASELINE:-}
writer=${HOT_WRITER:-build/tests/zb-hot-writer}
runs=${RUNS:-5}
total=${SECONDS_TOTAL:-20}
at=${AT:-8}
format=${FORMAT:-2}
work=${WORK:-/tmp/zb-hot-bench}

for x in "$zb" "$writer" ${base:+"$base"}; do
    if [ ! -x "$x" ]; then
        echo "ERROR: no executable at $x (build it: cmake --build build)" >&2
        exit 2
    fi
done

# one_run BIN TAG: prints one result line
one_run() {
    local bin=$1 tag=$2 d="$work/$2" wpid t0 t1 rc=0
    rm -rf "$d"
    mkdir -p "$d"
    ZAMBONI_ROOT="$d/root" "$writer" --dir "$d/t" --format "$format" \
        --seconds "$total" --every-ms 40 --expect "$d/ids" >"$d/w.out" 2>&1 &
    wpid=$!
    sleep "$at"
    t0=$(date +%s%N)
    ZAMBONI_ROOT="$d/root" "$bin" -v compact "$d/t" >"$d/c.out" 2>&1 || rc=$?
    t1=$(date +%s%N)
    wait "$wpid"
    awk -v tag="$tag" -v rc="$rc" -v ms=$(( (t1 - t0) / 1000000 )) \
        -v stopped_at=$(( total * 1000 )) -v at_ms=$(( at * 1000 )) '
        function median(a, n,   i, j, t) {
            for (i = 2; i <= n; i++)
                for (j = i; j > 1 && a[j-1] > a[j]; j--) {
                    t = a[j]; a[j] = a[j-1]; a[j-1] = t
                }
            if (n == 0) return "-"
            return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
        }
        /commit attempt [0-9]+: load/ {
            n++
            match($0, /load [0-9]+/);   l = substr($0, RSTART+5, RLENGTH-5)
            match($0, /build [0-9]+/);  b = substr($0, RSTART+6, RLENGTH-6)
            match($0, /commit [0-9]+ ms/); c = substr($0, RSTART+7, RLENGTH-10)
            last = $0
            if (n > 1) { m++; L[m] = l; B[m] = b; C[m] = c; W[m] = l + b + c }
        }
        END {
            ok = last ~ /: committed/
            printf "%s: exit %d, %d attempt(s), %s, %d ms%s; later attempts median load %s, build %s, commit %s, whole %s ms\n",
                tag, rc, n, ok ? "committed" : "not committed", ms,
                ok && at_ms + ms < stopped_at - 1000 ? " (a second or more before the writer stopped)" : "",
                median(L, m), median(B, m), median(C, m), median(W, m)
        }' "$d/c.out"
    rm -rf "$d"
}

echo "hot_commit: zb-hot-writer every 40 ms for ${total} s (format $format), compact at ${at} s, $runs run(s)$( [ -n "$base" ] && echo ", paired with $base")"
for i in $(seq 1 "$runs"); do
    one_run "$zb" "zamboni#$i"
    if [ -n "$base" ]; then
        one_run "$base" "baseline#$i"
    fi
done

#!/usr/bin/env bash
# The live rows of every demo table are the same before and after
# `zamboni maintenance`, read by the independent reader
# tests/interop/scan_reference.mjs (avsc manifests, hyparquet data, the
# spec's delete rules; no code shared with src/): its canonical JSON
# lines, sorted, compared byte for byte. The current metadata file is
# the catalog's (sqlite3), else the highest-numbered one.
# Usage: cli_demo_rows.sh PATH/TO/zamboni NODE tests/interop/scan_reference.mjs
set -u -o pipefail
zb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
node=$2
ref=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/home" "$tmp/cwd"
cd "$tmp/cwd" || exit 1
for v in $(env | grep -o '^ZAMBONI_[A-Z0-9_]*'); do unset "$v"; done
export HOME=$tmp/home ZAMBONI_ROOT=$tmp/demo

current() {
    local t=$1 loc=""
    if command -v sqlite3 >/dev/null; then
        loc=$(sqlite3 "$tmp/demo/catalog.db" "select metadata_location from iceberg_tables where table_namespace='demo' and table_name='$t'")
        loc=${loc#file:}
    fi
    [ -n "$loc" ] || loc=$(ls "$tmp/demo/warehouses/demo/demo/$t/metadata/"*.metadata.json | LC_ALL=C sort | tail -1)
    echo "$loc"
}
rows() {
    local t=$1
    "$node" "$ref" --metadata "$(current "$t")" "$tmp/demo/warehouses/demo/demo/$t" | LC_ALL=C sort
}

"$zb" demo "$tmp/demo" >/dev/null || { echo "FAIL demo"; exit 1; }
for t in events users; do rows "$t" >"$tmp/before-$t" || { echo "FAIL read $t before"; exit 1; }; done
"$zb" maintenance --warehouse demo >"$tmp/run.out" 2>&1 || { echo "FAIL maintenance"; cat "$tmp/run.out"; exit 1; }
grep -q 'compact: rewrote' "$tmp/run.out" || { echo "FAIL nothing compacted"; exit 1; }
for t in events users; do
    rows "$t" >"$tmp/after-$t" || { echo "FAIL read $t after"; fail=$((fail + 1)); continue; }
    n=$(wc -l <"$tmp/before-$t")
    if [ "$n" -gt 0 ] && cmp -s "$tmp/before-$t" "$tmp/after-$t"; then
        echo "PASS rows_unchanged_$t ($n rows)"
        pass=$((pass + 1))
    else
        echo "FAIL rows_unchanged_$t: $(diff "$tmp/before-$t" "$tmp/after-$t" | head -4)"
        fail=$((fail + 1))
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

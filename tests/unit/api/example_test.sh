#!/usr/bin/env bash
# examples/compact_and_expire on a table folder of many small files, made
# by zb-table-gen the way streaming ingest makes them, checked with the
# real `zamboni` executable: the same row count (`scan --count`), fewer
# live data files (`describe`), one snapshot left after expiring with a
# 0 ms age, the replaced files gone from storage, a second run with
# nothing to do; the example's usage error (2) and a missing table (1,
# the code and the path on stderr).
# Usage: example_test.sh PATH/TO/zamboni PATH/TO/compact_and_expire
#                        PATH/TO/zb-table-gen
set -u
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
zb=$(abs "$1") example=$(abs "$2") gen=$(abs "$3")
pass=0
fail=0
tmp=$(mktemp -d)
out=$tmp/out err=$tmp/err
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/home" "$tmp/cwd"
cd "$tmp/cwd" || exit 1
for v in $(env | grep -o '^ZAMBONI_[A-Z0-9_]*'); do unset "$v"; done
export HOME=$tmp/home

ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() {
    echo "FAIL $1: $2"
    sed 's/^/     stdout: /' "$out" | head -12
    sed 's/^/     stderr: /' "$err" | head -8
    fail=$((fail + 1))
}
run() { "$@" >"$out" 2>"$err" </dev/null; }
# "  live data files : 16  (10.3KiB, 400 rows)" -> 16
live_files() { sed -n 's/^  live data files : \([0-9]*\) .*/\1/p' "$out"; }
snapshots() { sed -n 's/^  snapshots       : \([0-9]*\)$/\1/p' "$out"; }
parquet_on_disk() { find "$table/data" -name '*.parquet' | wc -l; }

# 2 writers x 8 appends x 25 rows: 16 small data files, 16 snapshots.
table=$tmp/warehouse/db/events
if run "$gen" --sqlite "$tmp/gen.db" --table db.events \
       --location "$tmp/warehouse" --procs 2 --appends 8 --rows 25; then
    ok "table generated"
else
    bad "table generated" "zb-table-gen failed"
fi
run "$zb" scan "$table" --count
rows_before=$(cat "$out")
run "$zb" describe "$table"
files_before=$(live_files)
snaps_before=$(snapshots)
if [ "$rows_before" = 400 ] && [ "$files_before" = 16 ] &&
   [ "$snaps_before" = 16 ]; then
    ok "before: 400 rows in 16 files, 16 snapshots"
else
    bad "before" "rows '$rows_before' files '$files_before' snapshots '$snaps_before'"
fi

if run "$example" "$table" 0; then
    ok "example exit 0"
else
    bad "example exit 0" "exit $?"
fi
if grep -q '^compact: 1 group(s), rewrote 16 file(s) .* into 1 .*, 400 row(s), 1 commit(s)$' "$out" &&
   grep -q '^expire: expired 16 snapshot(s), retained 1, deleted [1-9][0-9]* file(s)' "$out" &&
   grep -q '^before: format-version 2, snapshot [0-9]' "$out" &&
   grep -q '^after: format-version 2, snapshot [0-9]' "$out"; then
    ok "example reports the compaction and the expiry"
else
    bad "example reports the compaction and the expiry" "unexpected output"
fi

run "$zb" scan "$table" --count
rows_after=$(cat "$out")
[ "$rows_after" = "$rows_before" ] && ok "row count unchanged ($rows_after)" ||
    bad "row count unchanged" "before '$rows_before', after '$rows_after'"
run "$zb" describe "$table"
files_after=$(live_files)
snaps_after=$(snapshots)
if [ -n "$files_after" ] && [ "$files_after" -lt "$files_before" ]; then
    ok "data files went down ($files_before -> $files_after)"
else
    bad "data files went down" "before '$files_before', after '$files_after'"
fi
[ "$snaps_after" = 1 ] && ok "one snapshot left" ||
    bad "one snapshot left" "snapshots '$snaps_after'"
on_disk=$(parquet_on_disk)
[ "$on_disk" = "$files_after" ] &&
    ok "replaced files deleted from storage ($on_disk left)" ||
    bad "replaced files deleted" "$on_disk Parquet files, $files_after live"

# Nothing left to do: no commit, the same snapshot.
snap_id=$(sed -n 's/.*snapshot \([0-9-]*\))$/\1/p' "$out" | head -1)
if run "$example" "$table" 0 &&
   grep -q '^compact: 0 group(s), rewrote 0 file(s)' "$out" &&
   grep -q "^after: format-version 2, snapshot $snap_id," "$out"; then
    ok "second run changes nothing (snapshot $snap_id)"
else
    bad "second run changes nothing" "exit or output unexpected (snapshot $snap_id)"
fi

run "$example"
[ $? -eq 2 ] && grep -q '^usage: compact_and_expire' "$err" &&
    ok "usage error exit 2" || bad "usage error exit 2" "exit or stderr"
run "$example" "$table" soon
[ $? -eq 2 ] && ok "bad age exit 2" || bad "bad age exit 2" "exit"
run "$example" "$tmp/no-such-table"
[ $? -eq 1 ] && grep -q "ZB_ENOTFOUND: .*$tmp/no-such-table" "$err" &&
    ok "missing table exit 1, code and path" ||
    bad "missing table exit 1" "exit or stderr"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

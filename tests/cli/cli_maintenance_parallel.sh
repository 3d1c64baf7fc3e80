#!/usr/bin/env bash
# `maintenance --parallel N`: the same report and exit code as N = 1.
# A warehouse of seven tables: three in a SQLite catalog (made by
# add-files, so the catalog is shared by the threads), three fixture
# folders, one of them broken (a data file missing: compact exits 1,
# remove-orphans 4), and a catalog name that does not exist (load fails).
# Each run starts from the same copy of it, at the same paths. Checks:
# stdout, stderr and the exit code of --parallel 3 equal --parallel 1's
# (the lines, --json and --verbose without their timings, --status); the
# tables overlap in time (the runner's debug lines: a table starts before
# the one before it ends; no sleeps involved); SIGTERM while two tables
# are held (their version-hint.text are FIFOs) starts no new table and
# exits as with N = 1.
# Usage: cli_maintenance_parallel.sh PATH/TO/zamboni FIXTURES_DIR
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

root=$ZAMBONI_ROOT
export ZAMBONI_WAREHOUSE=w
# A budget of its own: the stderr compared must not carry the "no memory
# limit found" warning (with its timestamp) of the default budget; the
# tables still share it.
export ZAMBONI_MEMORY_BUDGET_BYTES=1073741824
: >"$root/catalog.db"
for i in 1 2 3; do
    mkdir -p "$root/src/t$i"
    cp -a "$fx/impala-v1-partitioned/data/." "$root/src/t$i/"
    run add-files --create --source "$root/src/t$i" "ns.t$i" ||
        bad "add_files_t$i" "exit $?"
done
cp -a "$fx/impala-v2-eq-delete" "$root/f-bad"
cp -a "$fx/impala-v2-pos-partitioned" "$root/f-good1"
cp -a "$fx/impala-v2-pos-delete" "$root/f-good2"
victim=$(find "$root/f-bad/data" -name '*.parq*' | LC_ALL=C sort | head -1)
rm -f "$victim"
tables="ns.t1 $root/f-bad ns.t2 ns.missing $root/f-good1 ns.t3 $root/f-good2"
cp -a "$root" "$tmp/pristine"
restore() { rm -rf "$root" && cp -a "$tmp/pristine" "$root"; }

# maint NAME ARGS...: a run from the pristine warehouse into $tmp/NAME.*
maint() {
    local name=$1
    shift
    restore
    "$zb" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
    echo $? >"$tmp/$name.rc"
}

# same NAME1 NAME2 CHECK: stdout, stderr and exit code equal
same() {
    if cmp -s "$tmp/$1.rc" "$tmp/$2.rc" && cmp -s "$tmp/$1.out" "$tmp/$2.out" &&
       cmp -s "$tmp/$1.err" "$tmp/$2.err"; then
        ok "$3"
    else
        cp "$tmp/$2.out" "$out"
        cp "$tmp/$2.err" "$err"
        bad "$3" "exit $(cat "$tmp/$1.rc") vs $(cat "$tmp/$2.rc"); $(diff "$tmp/$1.out" "$tmp/$2.out" | head -3) $(diff "$tmp/$1.err" "$tmp/$2.err" | head -3)"
    fi
}

# --- lines --------------------------------------------------------------
# shellcheck disable=SC2086
maint p1 maintenance --parallel 1 $tables
# shellcheck disable=SC2086
maint p3 maintenance --parallel 3 $tables
same p1 p3 parallel_lines_same
[ "$(cat "$tmp/p1.rc")" = 4 ] && ok worst_exit_4 || bad worst_exit_4 "exit $(cat "$tmp/p1.rc")"
grep -q "^  $root/f-bad compact (exit 1)" "$tmp/p3.err" &&
grep -q "^  $root/f-bad remove-orphans (exit 4)" "$tmp/p3.err" &&
grep -q "^  ns.missing load (exit 1)" "$tmp/p3.err" && ok failed_list || bad failed_list "no failed lines"
n_run=$(grep -c '^  remove-orphans: scanned' "$tmp/p3.out")
[ "$n_run" = 5 ] && ok good_tables_maintained || bad good_tables_maintained "$n_run tables"
order=$(grep -E '^(ns\.|/)' "$tmp/p3.out" | tr '\n' ' ')
[ "$order" = "$tables " ] && ok table_order || bad table_order "got '$order'"
# the default is 1
# shellcheck disable=SC2086
maint p0 maintenance $tables
same p1 p0 parallel_default_1

# --- --json and --status (timings removed) -------------------------------
# shellcheck disable=SC2086
maint j1 maintenance --json --status --parallel 1 $tables
# shellcheck disable=SC2086
maint j3 maintenance --json --status --parallel 3 $tables
# timings, the bytes of the metadata written (its snapshot ids and
# times differ in length from run to run, whatever N), and the budget's
# peak and waits (N tables at once hold more, and may wait)
for r in j1 j3; do
    sed -i -E -e 's/"elapsed_ms": [0-9]+/"elapsed_ms": 0/' \
        -e 's/"(metadata_bytes|disk_bytes|reclaimed_bytes)": [0-9]+/"\1": 0/' \
        -e 's/"(peak_reserved_bytes|wait_seconds|oversized)": [0-9.e+-]+/"\1": 0/' \
        "$tmp/$r.out"
done
same j1 j3 parallel_json_same
grep -q '"exit": 4' "$tmp/j3.out" && [ "$(cat "$tmp/j3.rc")" = 4 ] && ok json_exit_4 || bad json_exit_4 "exit $(cat "$tmp/j3.rc")"
# shellcheck disable=SC2086
maint s1 maintenance --status --dry-run --parallel 1 $tables
# shellcheck disable=SC2086
maint s3 maintenance --status --dry-run --parallel 3 $tables
same s1 s3 parallel_status_same
grep -qE '^w, after:$' "$tmp/s3.out" && ok status_shape || bad status_shape "no after"
# --verbose: each table's settings and timings (removed) in its block
# shellcheck disable=SC2086
maint v1 maintenance --verbose --dry-run --parallel 1 $tables
# shellcheck disable=SC2086
maint v3 maintenance --verbose --dry-run --parallel 3 $tables
for r in v1 v3; do
    sed -i -E 's/took [0-9]+ ms/took N ms/' "$tmp/$r.out" "$tmp/$r.err"
done
same v1 v3 parallel_verbose_same
[ "$(grep -c '^  settings:$' "$tmp/v3.out")" = 6 ] && ok verbose_settings || bad verbose_settings "not 6 settings blocks"

# --- the tables overlap in time -------------------------------------------
# The runner logs each table's start and end under the logger's lock: with
# N = 3 some table starts before the one before it has finished; with
# N = 1 never.
overlap() {
    awk '/maintenance: table [0-9]+ of [0-9]+ started/ {
             k = $0; sub(/.*table /, "", k); sub(/ of.*/, "", k)
             if (k > 1 && !((k - 1) in fin)) o = 1 }
         /maintenance: table [0-9]+ of [0-9]+ finished/ {
             k = $0; sub(/.*table /, "", k); sub(/ of.*/, "", k); fin[k] = 1 }
         END { print o ? "yes" : "no" }' "$1"
}
# shellcheck disable=SC2086
maint d3 --log-level debug maintenance --parallel 3 $tables
# shellcheck disable=SC2086
maint d1 --log-level debug maintenance --parallel 1 $tables
[ "$(grep -c 'maintenance: table .* finished' "$tmp/d3.err")" = 7 ] && ok debug_lines || bad debug_lines "not 7 finished lines"
[ "$(overlap "$tmp/d3.err")" = yes ] && ok tables_overlap || bad tables_overlap "no table started before the previous one ended"
[ "$(overlap "$tmp/d1.err")" = no ] && ok one_at_a_time || bad one_at_a_time "N=1 overlapped"

# --- SIGTERM: no new table starts ----------------------------------------
# Two folder tables whose version-hint.text is a FIFO: a table reading it waits
# until a writer comes, so the run is held with N tables started. Then
# SIGTERM, then a writer loop (each open gives the reader an end of file).
fifo_table() {
    cp -a "$fx/impala-v2-pos-delete" "$1"
    rm -f "$1/metadata/version-hint.text"
    mkfifo "$1/metadata/version-hint.text"
}
# sigterm NAME N TABLES...: waits for N tables started, then signals
sigterm() {
    local name=$1 held=$2 i
    shift 2
    "$zb" --log-level debug maintenance --parallel "$held" "$@" \
        >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null &
    local pid=$!
    for i in $(seq 1 500); do
        [ "$(grep -c 'maintenance: table .* started' "$tmp/$name.err")" -ge "$held" ] && break
        sleep 0.02
    done
    kill -TERM "$pid"
    # one feeder a FIFO: an open for writing waits for its reader
    local feeders= f
    for f in "$tmp"/hold*/metadata/version-hint.text; do
        (while :; do : >"$f"; done) &
        feeders="$feeders $!"
    done
    wait "$pid"
    echo $? >"$tmp/$name.rc"
    for f in $feeders; do kill "$f" 2>/dev/null; wait "$f" 2>/dev/null; done
}
restore
rm -rf "$tmp"/hold*
fifo_table "$tmp/hold1"
sigterm t1 1 "$tmp/hold1" "$root/f-good1" "$root/f-good2" ns.t1
rm -rf "$tmp"/hold*
restore
fifo_table "$tmp/hold1"
fifo_table "$tmp/hold2"
sigterm t2 2 "$tmp/hold1" "$tmp/hold2" "$root/f-good1" "$root/f-good2" ns.t1
cp "$tmp/t2.out" "$out"
cp "$tmp/t2.err" "$err"
[ "$(cat "$tmp/t1.rc")" = "$(cat "$tmp/t2.rc")" ] && [ "$(cat "$tmp/t2.rc")" != 0 ] &&
    ok sigterm_exit_same || bad sigterm_exit_same "exit $(cat "$tmp/t1.rc") vs $(cat "$tmp/t2.rc")"
grep -q 'stopped by a signal; 3 table(s) not started' "$tmp/t1.err" && ok sigterm_n1_message || bad sigterm_n1_message "no stop line (N=1)"
grep -q 'stopped by a signal; 3 table(s) not started' "$tmp/t2.err" && ok sigterm_message || bad sigterm_message "no stop line"
grep -q "^  $root/f-good1 stopped (exit 1)" "$tmp/t2.err" && ok sigterm_failed_list || bad sigterm_failed_list "no stopped line"
[ "$(grep -c 'maintenance: table .* started' "$tmp/t2.err")" = 2 ] && ok sigterm_no_new_table || bad sigterm_no_new_table "a table started after the signal"
grep -qx "$tmp/hold1" "$tmp/t2.out" && grep -qx "$tmp/hold2" "$tmp/t2.out" &&
    ! grep -q "f-good" "$tmp/t2.out" && ok sigterm_report_order || bad sigterm_report_order "unexpected tables"

# --- usage ------------------------------------------------------------------
expect parallel_zero 2 '' "invalid value '0' for --parallel" -- maintenance --parallel 0 ns.t1
expect parallel_65 2 '' "invalid value '65' for --parallel" -- maintenance --parallel 65 ns.t1
expect parallel_help 0 '--parallel N' '' -- maintenance --help
expect parallel_other_verb 2 '' "unknown option '--parallel'" -- compact --parallel 2 ns.t1

harness_done cli_maintenance_parallel

#!/usr/bin/env bash
# The process's memory budget and threads (src/cli/config/resources.c,
# created in src/cli/verbs/verb_env.c): each source of each (flag beats
# ZAMBONI_* beats .env beats ./zamboni.yml beats $ZAMBONI_ROOT/zamboni.yml
# beats the limits), 0 disabling the budget, bad values exiting 2 with
# the source named, doctor's lines and --json fields, --verbose of an
# operation verb and of maintenance, maintenance --json's "budget"
# object, --max-group-memory-bytes refusing a group before anything is
# written (the meaning --memory-budget-bytes had), and
# --max-concurrent-file-group-rewrites with its table-config key.
# Usage: cli_resources.sh PATH/TO/zamboni FIXTURES_DIR
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
have_python=0
command -v python3 >/dev/null 2>&1 && have_python=1

t=$tmp/t
copy impala-v2-pos-partitioned "$t"
before=$(snapshot "$t")
# the budget and threads lines of --verbose (a preview changes nothing)
lines() { run compact --dry-run --verbose "$@" "$t"; }
has() { # NAME PATTERN: the last run's stdout has a line matching PATTERN
    if grep -qE -- "$2" "$out"; then ok "$1"; else bad "$1" "no /$2/"; fi
}

# --- the default: the limits -------------------------------------------
lines
has default_budget '^memory budget .*, [0-9]+ bytes \((cgroup v[12] memory[.a-z_]+|physical memory) [0-9.]+[KMGT]iB minus [0-9.]+[KMGT]iB headroom'
has default_threads '^threads [0-9]+ \(cores rule: min\(floor\('
if grep -q 'physical memory' "$out"; then
    # no memory limit here: the warning, once
    n=$(grep -c 'no memory limit found' "$err")
    [ "$n" = 1 ] && ok default_warns_once || bad default_warns_once "$n warnings"
fi

# --- each source, and each beating the ones below it -------------------
echo 'memory_budget_bytes: 500000000' >"$tmp/root/zamboni.yml"
echo 'threads: 5' >>"$tmp/root/zamboni.yml"
lines
has root_profile_budget "^memory budget .*, 500000000 bytes \\($tmp/root/zamboni.yml:1\\)"
has root_profile_threads "^threads 5 \\($tmp/root/zamboni.yml:2\\)"
printf 'threads: 4\nmemory_budget_bytes: 400000000\n' >zamboni.yml
lines
has profile_budget '^memory budget .*, 400000000 bytes \(\./zamboni\.yml:2\)'
has profile_threads '^threads 4 \(\./zamboni\.yml:1\)'
printf 'ZAMBONI_MEMORY_BUDGET_BYTES=300000000\nZAMBONI_THREADS=3\n' >.env
chmod 600 .env
lines
has dotenv_budget '^memory budget .*, 300000000 bytes \(ZAMBONI_MEMORY_BUDGET_BYTES \(.*\.env:1\)\)'
has dotenv_threads '^threads 3 \(ZAMBONI_THREADS \(.*\.env:2\)\)'
export ZAMBONI_MEMORY_BUDGET_BYTES=200000000 ZAMBONI_THREADS=2
lines
has env_budget '^memory budget .*, 200000000 bytes \(ZAMBONI_MEMORY_BUDGET_BYTES \(environment\)\)'
has env_threads '^threads 2 \(ZAMBONI_THREADS \(environment\)\)'
lines --memory-budget-bytes 100000000 --threads 1
has flag_budget '^memory budget 95\.4MiB, 100000000 bytes \(--memory-budget-bytes\)'
has flag_threads '^threads 1 \(--threads\)'
[ "$(grep -c 'no memory limit found' "$err")" = 0 ] && ok given_no_warning \
    || bad given_no_warning "warned although the budget was given"

# --- 0 disables --------------------------------------------------------
lines --memory-budget-bytes 0
has zero_disables '^memory budget none, 0 bytes \(--memory-budget-bytes; 0: no budget\)'
ZAMBONI_MEMORY_BUDGET_BYTES=0 run compact --dry-run --verbose "$t"
has zero_from_env '^memory budget none, 0 bytes \(ZAMBONI_MEMORY_BUDGET_BYTES \(environment\); 0: no budget\)'

# --- bad values: exit 2, the source named ------------------------------
expect bad_budget_flag 2 '' "memory_budget_bytes 'lots' \\(--memory-budget-bytes\\) must be a whole number" \
    -- compact --memory-budget-bytes lots "$t"
expect bad_budget_negative 2 '' "memory_budget_bytes '-1' \\(--memory-budget-bytes\\)" \
    -- scan --memory-budget-bytes=-1 "$t"
ZAMBONI_MEMORY_BUDGET_BYTES=12x expect bad_budget_env 2 '' \
    "memory_budget_bytes '12x' \\(ZAMBONI_MEMORY_BUDGET_BYTES \\(environment\\)\\)" \
    -- maintenance "$t"
expect bad_threads_flag 2 '' "threads '0' \\(--threads\\) must be a whole number from 1 to 256" \
    -- compact --threads 0 "$t"
ZAMBONI_THREADS=257 expect bad_threads_env 2 '' \
    "threads '257' \\(ZAMBONI_THREADS \\(environment\\)\\) must be a whole number from 1 to 256" \
    -- compact "$t"
unset ZAMBONI_MEMORY_BUDGET_BYTES ZAMBONI_THREADS
rm -f .env
printf 'engine: local\nthreads: many\n' >zamboni.yml
expect bad_threads_profile 2 '' "threads 'many' \\(\\./zamboni\\.yml:2\\)" -- compact "$t"
printf 'memory_budget_bytes: 1.5GiB\n' >zamboni.yml
expect bad_budget_profile 2 '' "memory_budget_bytes '1\\.5GiB' \\(\\./zamboni\\.yml:1\\)" \
    -- add-files "$t" --source "$tmp/none"
rm -f zamboni.yml "$tmp/root/zamboni.yml"
expect bad_max_concurrent 2 '' "invalid value '0' for --max-concurrent-file-group-rewrites" \
    -- compact --max-concurrent-file-group-rewrites 0 "$t"
expect bad_max_group_memory 2 '' "invalid value '0' for --max-group-memory-bytes" \
    -- compact --max-group-memory-bytes 0 "$t"
expect threads_not_scan 2 '' "unknown option '--threads'" -- scan --threads 2 "$t"

# --- doctor ------------------------------------------------------------
expect doctor_lines 0 '^memory: limit .*, budget 95\.4MiB, 100000000 bytes \(--memory-budget-bytes\)' '' \
    -- doctor --memory-budget-bytes 100000000 --threads 3 "$t"
has doctor_threads '^threads: 3 \(--threads\)$'
ZAMBONI_THREADS=2 expect doctor_env_threads 0 '^threads: 2 \(ZAMBONI_THREADS \(environment\)\)$' '' -- doctor "$t"
expect doctor_default 0 '^memory: limit .* budget .* minus .* headroom' '' -- doctor "$t"
has doctor_default_threads '^threads: [0-9]+ \(cores rule'
expect doctor_zero 0 '^memory: limit .*, no budget \(--memory-budget-bytes; 0: no budget\)' '' \
    -- doctor --memory-budget-bytes 0 "$t"
expect doctor_over_limit 1 '^reason: memory: budget .* \(--memory-budget-bytes\) exceeds the memory limit' '' \
    -- doctor --memory-budget-bytes 1000000000000000000 "$t"
expect doctor_json 0 '"budget"' '' -- doctor --json --memory-budget-bytes 100000000 --threads 3 "$t"
if [ $have_python = 1 ]; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert d["budget"] == {"bytes": 100000000, "source": "--memory-budget-bytes"}, d["budget"]
assert d["threads"] == {"count": 3, "source": "--threads"}, d["threads"]
c = {x["check"]: x for x in d["checks"]}
assert c["memory"]["status"] == "ok" and "(--memory-budget-bytes)" in c["memory"]["detail"]
assert c["threads"]["detail"] == "3 (--threads)"' "$out" \
        && ok doctor_json_fields || bad doctor_json_fields "not the fields"
fi

# --- maintenance: --verbose lines and the --json budget object ---------
expect maintenance_verbose 0 '^memory budget 95\.4MiB, 100000000 bytes \(--memory-budget-bytes\)' '' \
    -- maintenance --dry-run --verbose --memory-budget-bytes 100000000 --threads 2 "$t"
has maintenance_verbose_threads '^threads 2 \(--threads\)$'
expect maintenance_json 0 '"budget"' '' -- maintenance --dry-run --json --memory-budget-bytes 100000000 "$t"
if [ $have_python = 1 ]; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); b=d["budget"]
assert sorted(b) == ["limit_bytes","oversized","peak_reserved_bytes","source","wait_seconds"], b
assert b["limit_bytes"] == 100000000 and b["source"] == "--memory-budget-bytes"
assert isinstance(b["peak_reserved_bytes"], int) and b["peak_reserved_bytes"] >= 0
assert b["oversized"] > 0 or b["peak_reserved_bytes"] <= b["limit_bytes"]
assert isinstance(b["wait_seconds"], float) and b["wait_seconds"] >= 0
assert isinstance(b["oversized"], int) and b["oversized"] >= 0
assert d["exit"] == 0' "$out" \
        && ok maintenance_json_budget || bad maintenance_json_budget "not the object"
fi
# a run that rewrites: compaction reserved from the budget, so its peak
# is above zero (a preview may reserve nothing)
t2=$tmp/t2
copy impala-v2-pos-partitioned "$t2"
expect maintenance_json_real 0 '"budget"' '' -- maintenance --json --memory-budget-bytes 100000000 "$t2"
if [ $have_python = 1 ]; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); b=d["budget"]
assert b["peak_reserved_bytes"] > 0, b
assert b["oversized"] > 0 or b["peak_reserved_bytes"] <= b["limit_bytes"], b
assert d["exit"] == 0' "$out" \
        && ok maintenance_json_peak || bad maintenance_json_peak "peak not above zero"
fi
expect maintenance_json_zero 0 '"limit_bytes": 0' '' -- maintenance --dry-run --json --memory-budget-bytes 0 "$t"
[ "$(snapshot "$t")" = "$before" ] && ok previews_untouched || bad previews_untouched "bytes changed"

# --- --max-group-memory-bytes: the per-group cap -----------------------
# (what --memory-budget-bytes meant before it became the process budget)
expect max_group_refuses 1 '' 'needs [0-9]+ bytes of memory, more than the 1 allowed; nothing written' \
    -- compact --max-group-memory-bytes 1 "$t"
[ "$(snapshot "$t")" = "$before" ] && ok max_group_nothing_written \
    || bad max_group_nothing_written "bytes changed"
expect max_group_refuses_maintenance 1 '' 'more than the 1 allowed; nothing written' \
    -- maintenance --max-group-memory-bytes 1 "$t"
copy impala-v2-pos-partitioned "$t"
expect max_group_fits 0 '^.*: rewrote [0-9]+ file\(s\)' '' \
    -- compact --max-group-memory-bytes 1000000000 --memory-budget-bytes 2000000000 "$t"

# --- --max-concurrent-file-group-rewrites and its table-config key -----
copy impala-v2-pos-partitioned "$t"
expect max_concurrent_runs 0 '^.*: rewrote [0-9]+ file\(s\)' '' \
    -- compact --max-concurrent-file-group-rewrites 3 --threads 2 "$t"
cat >"$tmp/tc.json" <<'JSON'
{"version": 2, "warehouse": "acme",
 "defaults": {"max_concurrent_file_group_rewrites": 2}}
JSON
expect tc_key_valid 0 '' '' -- table-config validate "$tmp/tc.json"
expect tc_key_summary 0 '^  max_concurrent_file_group_rewrites 2  \(from defaults\)' '' \
    -- table-config summary "$tmp/tc.json" --table db.t
echo '{"version": 2, "warehouse": "acme", "defaults": {"max_concurrent_file_group_rewrites": 0}}' >"$tmp/tc-bad.json"
expect tc_key_invalid 2 '' 'max_concurrent_file_group_rewrites: must be from 1 to 256' \
    -- table-config validate "$tmp/tc-bad.json"
copy impala-v2-pos-partitioned "$t"
expect tc_key_runs 0 '^.*: rewrote [0-9]+ file\(s\)' '' \
    -- compact --table-config "$tmp/tc.json" "$t"

harness_done cli_resources

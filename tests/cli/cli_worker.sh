#!/usr/bin/env bash
# `zamboni worker` on SQLite (src/cli/verbs/verb_worker.c,
# src/service/worker): the start-up checks (a heartbeat over a third of the
# lease, an unknown size class: exit 2; the queue schema missing: exit 3),
# the Optimize line from test cgroup trees (v2 and v1, --workers sharing
# them), then the demo warehouse: db migrate, enqueue, one worker with
# --idle-exit-after 2s that runs every task and exits 0, the queue empty,
# the history all success with the tables' health; SIGTERM while idle
# drains with exit 0.
# Usage: cli_worker.sh PATH/TO/zamboni
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
export ZB_TEST_WORKER_POLL_MS=100
have_sqlite=0
command -v sqlite3 >/dev/null 2>&1 && have_sqlite=1

# --- start-up checks ----------------------------------------------------
expect heartbeat_over_third 2 '' 'heartbeat \(25, --heartbeat-seconds\) must be more than 0 and at most a third of the lease \(60, default\)' \
    -- worker --heartbeat-seconds 25
ZAMBONI_LEASE_SECONDS=29s expect heartbeat_env_lease 2 '' 'at most a third of the lease \(29s, ZAMBONI_LEASE_SECONDS \(environment\)\)' \
    -- worker
expect bad_duration 2 '' "idle_exit_after" -- worker --idle-exit-after soon
expect unknown_class 2 '' "size class 'huge' \\(--size-class\\) is not configured" \
    -- worker --size-class huge
ZAMBONI_SIZE_CLASSES='[{"name":"small","cores":1,"memory":"4Gi","max_jobs":1}]' \
    expect env_classes_unknown 2 '' "size class 'standard'" -- worker --size-class standard
expect help 0 'Usage: zamboni worker' '' -- worker --help
grep -q -- '--drain-timeout DURATION' "$out" && grep -q 'default 180s' "$out" \
    && ok help_flags || bad help_flags "flags or defaults missing"

# --- the Optimize line from test cgroup trees ---------------------------
cg=$tmp/cg2
mkdir -p "$cg/sys/job"
echo '0::/job' >"$cg/proc"
echo '100000 100000' >"$cg/sys/job/cpu.max"
echo 4294967296 >"$cg/sys/job/memory.max"
# no queue schema yet: the Optimize line, then exit 3
ZB_TEST_CGROUP_ROOT=$cg/sys ZB_TEST_PROC_CGROUP=$cg/proc \
    ZAMBONI_QUEUE_URI=sqlite:$tmp/empty.db ZAMBONI_SPILL_DISK_LIMIT_BYTES=1000 \
    expect optimize_v2 3 '' '^Optimize: workers=2 class=standard memory=1610612736 \(1\.5GiB\) cores=1 spill=500 \(500B\) each; limits: cgroup v2 memory 4\.0GiB cpu 1\.00$' \
    -- worker --workers 2
grep -q 'db migrate' "$err" && ok no_schema_says_migrate || bad no_schema_says_migrate "no hint"
grep -q 'no cgroup' "$err" && bad cgroup_no_warning "warned" || ok cgroup_no_warning
cg=$tmp/cg1
mkdir -p "$cg/sys/memory/pod" "$cg/sys/cpu,cpuacct/pod"
printf '4:memory:/pod\n3:cpu,cpuacct:/pod\n' >"$cg/proc"
echo 8589934592 >"$cg/sys/memory/pod/memory.limit_in_bytes"
echo 100000 >"$cg/sys/cpu,cpuacct/pod/cpu.cfs_quota_us"
echo 100000 >"$cg/sys/cpu,cpuacct/pod/cpu.cfs_period_us"
ZB_TEST_CGROUP_ROOT=$cg/sys ZB_TEST_PROC_CGROUP=$cg/proc \
    ZAMBONI_QUEUE_URI=sqlite:$tmp/empty.db \
    expect optimize_v1 3 '' '^Optimize: workers=1 class=standard memory=6442450944 \(6\.0GiB\) cores=1 spill=107374182400 \(100\.0GiB\) each; limits: cgroup v1 memory 8\.0GiB cpu 1\.00$' \
    -- worker

# --- the demo: enqueue, one worker runs everything ----------------------
d=$tmp/demo
run demo "$d" && ok demo || bad demo "exit $?"
export ZAMBONI_ROOT=$d
expect migrate 0 '' '' -- db migrate
expect enqueue 0 '' '' -- enqueue --warehouse demo
n_tasks=0
if [ $have_sqlite = 1 ]; then
    n_tasks=$(sqlite3 "$d/catalog.db" 'select count(*) from zamboni_tasks')
    [ "$n_tasks" -gt 0 ] && ok tasks_enqueued || bad tasks_enqueued "none"
fi
start=$(date +%s)
run worker --idle-exit-after 2s; code=$?
[ $code -eq 0 ] && ok worker_exit_0 || bad worker_exit_0 "exit $code"
[ $(( $(date +%s) - start )) -lt 120 ] && ok worker_idle_exit || bad worker_idle_exit "took too long"
grep -qE '^worker id=[^ ]+ event=exit reason=idle tasks=[1-9]' "$err" \
    && ok log_idle_exit || bad log_idle_exit "no exit line"
grep -qE '^task id=[0-9]+ attempt=1 op=compact warehouse=demo table=demo\.[a-z]+ worker=[^ ]+ outcome=success ms=[0-9]+' "$err" \
    && ok log_task_success || bad log_task_success "no success line"
grep -qE 'outcome=(failed|lost|abandoned|cancelled)' "$err" \
    && bad no_other_outcome "$(grep -E 'outcome=' "$err" | grep -v success | head -3)" \
    || ok no_other_outcome
run tasks list && ok tasks_list || bad tasks_list "exit $?"
grep -qE 'scheduled|running|excluded' "$out" && bad tasks_list_empty "tasks left" || ok tasks_list_empty
run history && grep -q success "$out" && ok history_success || bad history_success "no success row"
if [ $have_sqlite = 1 ]; then
    left=$(sqlite3 "$d/catalog.db" 'select count(*) from zamboni_tasks')
    [ "$left" = 0 ] && ok queue_empty || bad queue_empty "$left left"
    n_ok=$(sqlite3 "$d/catalog.db" "select count(*) from zamboni_attempts where outcome = 'success' and task_id is not null")
    [ "$n_tasks" -gt 0 ] && [ "$n_ok" = "$n_tasks" ] && ok history_every_task || bad history_every_task "$n_ok of $n_tasks"
    h=$(sqlite3 "$d/catalog.db" "select before_data_files, after_data_files from zamboni_attempts where operation = 'compact' and table_name = 'demo.events'")
    b=${h%|*} a=${h#*|}
    [ -n "$b" ] && [ "$a" -lt "$b" ] && ok health_before_after || bad health_before_after "'$h'"
    w=$(sqlite3 "$d/catalog.db" 'select count(*) from zamboni_workers')
    [ "$w" = 0 ] && ok deregistered || bad deregistered "$w rows"
fi
run describe demo.events && grep -qE 'live data files : [1-9] ' "$out" \
    && ok compacted || bad compacted "files not compacted"

# --- SIGTERM while idle: drain, exit 0 ----------------------------------
"$zb" worker --idle-exit-after 0 >"$out" 2>"$err" </dev/null &
pid=$!
for _ in $(seq 50); do grep -q 'event=start' "$err" && break; sleep 0.1; done
kill -TERM $pid
wait $pid; code=$?
[ $code -eq 0 ] && ok drain_exit_0 || bad drain_exit_0 "exit $code"
grep -qE '^worker id=[^ ]+ event=exit reason=drain tasks=0' "$err" \
    && ok log_drain || bad log_drain "no drain line"
# --max-lifetime: no new task after it, exit 0
run worker --idle-exit-after 0 --max-lifetime 1s; code=$?
[ $code -eq 0 ] && grep -q 'reason=lifetime' "$err" && ok lifetime_exit \
    || bad lifetime_exit "exit $code"
harness_done cli_worker

#!/usr/bin/env bash
# The worker's limits (issue 17, "Done when"), real PostgreSQL:
#   oversize     a task whose unspillable estimate (enqueue's plan of the
#                table) exceeds the largest
#                class fails before writing anything (no new file, no
#                commit), its attempt's message names the bytes it needs
#   idle exit    --idle-exit-after 2s, an empty queue: exit 0 after 2 s
#                and well before 10 s
#   lifetime     --max-lifetime 2s (idle exit off): exit 0 after 2 s; with
#                both 0 the worker still runs after 4 s (SIGTERM: exit 0)
#   cgroup       a test cgroup v2 tree (8 GiB, 3 CPUs): the `Optimize:`
#                line shows the cgroup's 8 GiB, a budget of 6 GiB (minus
#                the 2 GiB headroom of cli/config/resources.h) and 2 cores
#                (min(3 CPUs, the machine's 2, 8 GiB / 4 GiB)); with
#                --workers 2 each gets 3 GiB and 1 core
# Usage: fleet_limits.sh ZAMBONI ZB_TABLE_GEN NODE pg
. "$(dirname "${BASH_SOURCE[0]}")/fleet_harness.sh"

expect migrate 0 '' '' -- db migrate
fleet_tables 1 6 50

# --- oversize --------------------------------------------------------------
# Classes of a few MiB: the plan's real estimate (enqueue plans the
# table) is more than even the largest can hold, and cannot spill.
classes_saved=$ZAMBONI_SIZE_CLASSES
export ZAMBONI_SIZE_CLASSES='[{"name":"small","cores":1,"memory":"2Mi","max_jobs":1},{"name":"large","cores":1,"memory":"4Mi","max_jobs":1}]'
expect enqueue 0 '' '' -- enqueue --warehouse w fleet.t1
est=$(sql "SELECT size_class || '|' || est_memory_bytes || '|' || est_unspillable_bytes FROM zamboni_tasks WHERE table_name = 'fleet.t1' AND operation = 'compact'")
IFS='|' read -r est_class est_mem est_unspill <<<"$est"
[ "$est_class" = large ] && [ "${est_unspill:-0}" -gt 4194304 ] && [ "$est_mem" -ge "$est_unspill" ] &&
    ok "oversize_estimated ($est)" || bad oversize_estimated "class|memory|unspillable: '$est'"
others=$(sql "SELECT count(*) FROM zamboni_tasks WHERE table_name = 'fleet.t1' AND operation <> 'compact' AND size_class <> 'small'")
[ "$others" = 0 ] && ok others_smallest_class || bad others_smallest_class "$others task(s) not in small"
files0=$(data_files t1)
worker_start big --size-class large --idle-exit-after 3s --lease-seconds 30 --heartbeat-seconds 5
worker_wait big 60
[ "$big_rc" = 0 ] && ok oversize_worker_exit_0 || { bad oversize_worker_exit_0 "exit $big_rc"; show_log big; }
a=$(attempts t1 compact | head -1)
msg=$(sql "SELECT message FROM zamboni_attempts WHERE table_name = 'fleet.t1' AND operation = 'compact' ORDER BY attempt LIMIT 1")
echo "     oversize message: $msg"
[ "$a" = "1|failed" ] && ok oversize_failed || bad oversize_failed "attempts: '$a'"
grep -q "$est_unspill" <<<"$msg" && grep -q 4194304 <<<"$msg" && ok oversize_message_bytes || bad oversize_message_bytes "message '$msg'"
[ "$(data_files t1)" = "$files0" ] && ok oversize_wrote_nothing || bad oversize_wrote_nothing "$(data_files t1) files, $files0 before"
fleet_rows "$tmp/after" t1
[ "$(cut -d' ' -f4 "$tmp/after")" = 0 ] && ok oversize_no_commit || bad oversize_no_commit "a compaction was committed"
sql "DELETE FROM zamboni_tasks" >/dev/null
export ZAMBONI_SIZE_CLASSES=$classes_saved

# --- idle exit and lifetime ------------------------------------------------
# timed NAME SECS ARGS...: runs a worker, its exit in NAME_rc, seconds in NAME_s
timed() {
    local name=$1 secs=$2 t0
    shift 2
    t0=$(date +%s%N)
    worker_start "$name" "$@"
    worker_wait "$name" "$secs"
    printf -v "${name}_ms" '%s' $(( ($(date +%s%N) - t0) / 1000000 ))
}
timed idle 20 --idle-exit-after 2s --max-lifetime 0
[ "$idle_rc" = 0 ] && [ "$idle_ms" -ge 2000 ] && [ "$idle_ms" -lt 10000 ] &&
    ok "idle_exit_0 (${idle_ms} ms)" || { bad idle_exit_0 "exit $idle_rc after $idle_ms ms"; show_log idle; }
timed life 20 --max-lifetime 2s --idle-exit-after 0
[ "$life_rc" = 0 ] && [ "$life_ms" -ge 2000 ] && [ "$life_ms" -lt 10000 ] &&
    ok "max_lifetime_exit_0 (${life_ms} ms)" || { bad max_lifetime_exit_0 "exit $life_rc after $life_ms ms"; show_log life; }
worker_start forever --max-lifetime 0 --idle-exit-after 0
sleep 4
if kill -0 "$forever_pid" 2>/dev/null; then
    ok both_off_still_running
    kill -TERM "$forever_pid"
    worker_wait forever 20
    [ "$forever_rc" = 0 ] && ok sigterm_idle_exit_0 || bad sigterm_idle_exit_0 "exit $forever_rc"
else
    bad both_off_still_running "it exited"; show_log forever
fi
# a heartbeat over a third of the lease is refused at start
expect heartbeat_over_third 2 '' 'heartbeat' -- worker --lease-seconds 9 --heartbeat-seconds 4

# --- cgroup figures --------------------------------------------------------
cg=$tmp/cgroup
mkdir -p "$cg/fs/zb.slice/w"
echo "0::/zb.slice/w" >"$cg/proc-self-cgroup"
: >"$cg/fs/cgroup.controllers"
echo "cpu memory" >"$cg/fs/zb.slice/w/cgroup.controllers"
echo "8589934592" >"$cg/fs/zb.slice/w/memory.max"
echo "300000 100000" >"$cg/fs/zb.slice/w/cpu.max"
cgroup_env=(ZB_TEST_CGROUP_ROOT="$cg/fs" ZB_TEST_PROC_CGROUP="$cg/proc-self-cgroup")
unset ZAMBONI_MEMORY_BUDGET_BYTES
env "${cgroup_env[@]}" "$zb" worker --idle-exit-after 1s >"$tmp/cg1.log" 2>&1 </dev/null
rc=$?
line=$(grep -m1 'Optimize:' "$tmp/cg1.log")
echo "     $line"
[ "$rc" = 0 ] && grep -q 'workers=1 .*memory=6442450944 (6.0GiB) cores=2 ' <<<"$line" &&
    grep -q 'limits: cgroup v2 memory 8.0GiB' <<<"$line" &&
    ok cgroup_optimize_line || { bad cgroup_optimize_line "exit $rc: '$line'"; sed 's/^/     /' "$tmp/cg1.log" | head -5; }
env "${cgroup_env[@]}" "$zb" worker --workers 2 --idle-exit-after 1s >"$tmp/cg2.log" 2>&1 </dev/null
rc=$?
line=$(grep -m1 'Optimize:' "$tmp/cg2.log")
echo "     $line"
[ "$rc" = 0 ] && grep -q 'workers=2 .*memory=3221225472 (3.0GiB) cores=1 .* each' <<<"$line" &&
    ok cgroup_two_workers_share || { bad cgroup_two_workers_share "exit $rc: '$line'"; sed 's/^/     /' "$tmp/cg2.log" | head -5; }
harness_done fleet_limits

#!/usr/bin/env bash
# SIGTERM in the middle of a compaction (issue 17, "Done when"), real
# PostgreSQL: with --drain-timeout 30s the worker commits the group it
# started and exits 0 (a compaction commit, no failed attempt); with 0 it
# abandons it and exits 0: the attempt `abandoned`, the task scheduled
# again about 2 minutes later, no commit. Neither is logged as failed;
# live rows unchanged.
# Usage: fleet_drain.sh ZAMBONI ZB_TABLE_GEN NODE pg
. "$(dirname "${BASH_SOURCE[0]}")/fleet_harness.sh"

expect migrate 0 '' '' -- db migrate
fleet_tables 2 12 50
fleet_rows "$tmp/before" || { echo "FAIL read before: $(head -c 600 "$tmp/before.err")"; exit 1; }
short=(--lease-seconds 30 --heartbeat-seconds 2 --idle-exit-after 0)

# drain NAME TABLE TIMEOUT: SIGTERM while TABLE's compaction waits to commit
drain() {
    local name=$1 t=$2
    expect "enqueue_$t" 0 '' '' -- enqueue --warehouse w "fleet.$t"
    slow 3000
    worker_start "$name" --drain-timeout "$3" "${short[@]}"
    isrun() { [ "$(task_state "$t" compact)" = running ]; }
    if wait_until 30 isrun; then
        sleep 1
        local p="${name}_pid"
        kill -TERM "${!p}"
    else
        bad "${name}_running" "the compact task never ran"; show_log "$name"
    fi
    slow 0
    worker_wait "$name" 60
}

drain d30 t1 30s
[ "$d30_rc" = 0 ] && ok drain_30s_exit_0 || { bad drain_30s_exit_0 "exit $d30_rc"; show_log d30; }
a=$(attempts t1 compact | tr '\n' ' ')
[ "$a" = "1|success " ] && ok "drain_30s_committed ($a)" || bad drain_30s_committed "attempts: '$a'"
fleet_rows "$tmp/after1" t1
grep "^t1 " "$tmp/before" >"$tmp/before1"
rows_same drain_30s_rows "$tmp/before1" "$tmp/after1"
[ "$(cut -d' ' -f4 "$tmp/after1")" = 1 ] && ok drain_30s_one_commit || bad drain_30s_one_commit "$(cut -d' ' -f4 "$tmp/after1") compaction commits"

drain d0 t2 0
[ "$d0_rc" = 0 ] && ok drain_0_exit_0 || { bad drain_0_exit_0 "exit $d0_rc"; show_log d0; }
a=$(attempts t2 compact | tr '\n' ' ')
[ "$a" = "1|abandoned " ] && ok "drain_0_abandoned ($a)" || bad drain_0_abandoned "attempts: '$a'"
st=$(task_state t2 compact)
later=$(sql "SELECT (scheduled_for_ms - (extract(epoch from clock_timestamp()) * 1000)::bigint) / 1000 FROM zamboni_tasks WHERE table_name = 'fleet.t2' AND operation = 'compact'")
[ "$st" = scheduled ] && [ "${later:-0}" -ge 60 ] && [ "${later:-0}" -le 180 ] &&
    ok "drain_0_scheduled_again (in ${later}s)" || bad drain_0_scheduled_again "state '$st', due in '${later}'s"
fleet_rows "$tmp/after2" t2
grep "^t2 " "$tmp/before" >"$tmp/before2"
rows_same drain_0_rows "$tmp/before2" "$tmp/after2"
[ "$(cut -d' ' -f4 "$tmp/after2")" = 0 ] && ok drain_0_no_commit || bad drain_0_no_commit "$(cut -d' ' -f4 "$tmp/after2") compaction commits"
n_failed=$(sql "SELECT count(*) FROM zamboni_attempts WHERE outcome = 'failed'")
[ "$n_failed" = 0 ] && ok drain_never_failed || bad drain_never_failed "$n_failed failed attempt(s)"
harness_done fleet_drain

#!/usr/bin/env bash
# Issue 18, "Done when" (f): `serve` restarted in the middle of a run -
# SIGKILL while workers run its tasks, started again, later SIGTERM and
# started again - loses nothing: every table that needs compaction gets
# it, exactly once (one success per task, no task with two successful
# attempts, no second task for a done table), and no two attempts both
# commit: each table's snapshot log holds one compaction commit per
# compact success (the independent reader, over every metadata file).
# Live rows unchanged.
# Usage: serve_restart.sh ZAMBONI ZB_TABLE_GEN NODE
. "$(dirname "${BASH_SOURCE[0]}")/serve_harness.sh"

export ZAMBONI_SIZE_CLASSES='[{"name":"small","cores":1,"memory":"512Mi","max_jobs":2}]'
expect migrate 0 '' '' -- db migrate
wh_config w1 '{"version": 2, "warehouse": "w1", "defaults": {"retention": {"remove_orphan_files": {"enabled": false}, "rewrite_manifests": {"enabled": false}}},
  "namespaces": {"x": {"tables": {"s1": {}, "s2": {}, "s3": {}, "s4": {}, "s5": {}, "s6": {}}}}}'
tables=()
for i in 1 2 3 4 5 6; do mk_table w1 "x.s$i" small; tables+=("w1/x.s$i"); done
table_rows "$tmp/before" "${tables[@]}" || { echo "FAIL read before: $(head -c 600 "$tmp/before.err")"; exit 1; }

# each compaction waits 1.5 s before it commits: the kill lands mid-run
export ZB_TEST_WORKER_GROUP_DELAY_MS=1500
for k in 1 2; do proc_start "k$k" worker --size-class small --lease-seconds 10 --heartbeat-seconds 1; done
serve_start s1 --warehouse w1 --plan-interval 1s || exit 1
some_running() { [ "$(sql "SELECT count(*) FROM zamboni_tasks WHERE state = 'running'")" -ge 1 ]; }
wait_until 30 some_running && ok tasks_running || { bad tasks_running "none"; show_log s1; }
kill -KILL "$s1_pid"
wait "$s1_pid" 2>/dev/null
ok "serve_killed_mid_run ($(sql "SELECT count(*) FROM zamboni_tasks") live, $(sql "SELECT count(*) FROM zamboni_attempts") attempts)"
sleep 1
serve_start s2 --warehouse w1 --plan-interval 1s || exit 1
three_done() { [ "$(sql "SELECT count(*) FROM zamboni_attempts WHERE outcome = 'success'")" -ge 3 ]; }
wait_until 60 three_done || { bad three_done "$(sql "SELECT count(*) FROM zamboni_attempts WHERE outcome = 'success'") successes"; show_log s2; }
kill -TERM "$s2_pid"
proc_wait s2 30
[ "$s2_rc" = 0 ] && ok "serve_sigterm_mid_run_exit_0" || { bad serve_sigterm_mid_run_exit_0 "exit $s2_rc"; show_log s2; }
serve_start s3 --warehouse w1 --plan-interval 1s || exit 1
all_done() {
    [ "$(sql "SELECT count(*) FROM zamboni_tasks")" = 0 ] &&
        [ "$(sql "SELECT count(DISTINCT table_name) FROM zamboni_attempts WHERE outcome = 'success' AND operation = 'compact'")" = 6 ]
}
wait_until 90 all_done && ok all_tables_compacted ||
    { bad all_tables_compacted "$(sql "SELECT table_name, operation, state FROM zamboni_tasks" | tr '\n' ';')"; show_log s3; show_log k1 6; }
sleep 3                            # a few cycles more: nothing planned twice
succ=$(sql "SELECT table_name || ' ' || operation FROM zamboni_attempts WHERE outcome = 'success' ORDER BY 1" | tr '\n' ';')
want=$(for i in 1 2 3 4 5 6; do echo "x.s$i compact"; done | tr '\n' ';')
[ "$succ" = "$want" ] && ok "one_success_per_table ($(echo "$succ" | tr ';' '\n' | grep -c .))" || bad one_success_per_table "$succ"
dup=$(sql "SELECT count(*) FROM (SELECT task_id FROM zamboni_attempts WHERE outcome = 'success' GROUP BY task_id HAVING count(*) > 1) d")
[ "$dup" = 0 ] && ok no_task_two_successes || bad no_task_two_successes "$dup task(s)"
echo "     attempts: $(sql "SELECT table_name || ':' || attempt || ':' || outcome FROM zamboni_attempts ORDER BY id" | tr '\n' ' ')"
table_rows "$tmp/after" "${tables[@]}" || echo "     read after: $(head -c 600 "$tmp/after.err")"
rows_same rows_unchanged "$tmp/before" "$tmp/after"
rw=$(awk '{print $4}' "$tmp/after" | sort -u | tr '\n' ' ')
[ "$rw" = "1 " ] && ok "one_compaction_commit_per_table" || bad one_compaction_commit_per_table "$(awk '{print $1 "=" $4}' "$tmp/after" | tr '\n' ' ')"
kill -TERM "$s3_pid" "$k1_pid" "$k2_pid"
proc_wait s3 30
[ "$s3_rc" = 0 ] && ok serve_sigterm_exit_0 || { bad serve_sigterm_exit_0 "exit $s3_rc"; show_log s3; }
harness_done serve_restart

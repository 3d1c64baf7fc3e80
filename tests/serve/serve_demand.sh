#!/usr/bin/env bash
# Issue 18, "Done when" (d): /metrics parses with an independent
# Prometheus text parser from npm (parse-prometheus-text-format, through
# serve_metrics.mjs) and holds the issue's figures (tasks by class and
# state as the database has them, the counters, the planner's cycle, the
# workers' heartbeat figures by worker and class); /demand?class=NAME
# counts a class's scheduled tasks that are due plus its running ones, as
# tasks are added (not the ones due later, excluded, or waiting for an
# earlier operation of their table), taken by a real worker, backed off
# (a failed attempt) and finished.
# Usage: serve_demand.sh ZAMBONI ZB_TABLE_GEN NODE
. "$(dirname "${BASH_SOURCE[0]}")/serve_harness.sh"

export ZAMBONI_SIZE_CLASSES='[{"name":"small","cores":1,"memory":"512Mi","max_jobs":2},{"name":"large","cores":2,"memory":"1Gi","max_jobs":2}]'
expect migrate 0 '' '' -- db migrate
wh_config w '{"version": 2, "warehouse": "w"}'
mk_table w x.t1 small
# serve plans an empty warehouse only: the tasks here are the test's
wh_config wq '{"version": 2, "warehouse": "wq"}'
serve_start s --warehouse wq --plan-interval 1s || exit 1

d_small=$(demand s small); d_large=$(demand s large)
[ "$d_small" = 0 ] && [ "$d_large" = 0 ] && ok "demand_empty_queue" || bad demand_empty_queue "small '$d_small' large '$d_large'"
http s "/demand?class=small"
jq -e '.class == "small" and (.demand | type) == "number"' "$tmp/body" >/dev/null &&
    ok demand_json_shape || bad demand_json_shape "$(head -c 200 "$tmp/body")"
http s "/demand"
[ "$code" = 400 ] || [ "$code" = 404 ] && ok "demand_without_class_refused ($code)" || bad demand_without_class_refused "HTTP $code"

# Added: g1 (a table that does not exist: its attempt fails, priority 10,
# taken first) and x.t1 due in small; g2 due in an hour; g3 excluded; g5's
# expire (large) waits for its compact (small, due in an hour).
insert_task w ghost.g1 compact scheduled 10 small >/dev/null
insert_task w x.t1 compact scheduled 0 small >/dev/null
insert_task w ghost.g2 compact scheduled 0 small 3600000 >/dev/null
insert_task w ghost.g3 compact excluded 0 small >/dev/null
insert_task w ghost.g5 compact scheduled 0 small 3600000 >/dev/null
insert_task w ghost.g5 expire scheduled 0 large >/dev/null
d_small=$(demand s small); d_large=$(demand s large)
[ "$d_small" = 2 ] && ok "demand_added (small 2 of 5 tasks)" || bad demand_added "small '$d_small', want 2"
[ "$d_large" = 0 ] && ok "demand_waiting_for_earlier_op (large 0)" || bad demand_waiting_for_earlier_op "large '$d_large', want 0"

metrics s "$tmp/m1" && ok "metrics_parse ($(wc -l <"$tmp/m1") samples)" ||
    bad metrics_parse "$(head -c 600 "$tmp/m1.err")"
# tasks by class and state: as the database has them
for st in scheduled excluded; do
    want=$(sql "SELECT count(*) FROM zamboni_tasks WHERE size_class = 'small' AND state = '$st'")
    got=$(mval "$tmp/m1" zamboni_tasks 'class="small"' "state=\"$st\"")
    [ "$got" = "$want" ] && ok "metrics_tasks_small_$st ($got)" || bad "metrics_tasks_small_$st" "'$got', want $want"
done
# the issue's figures (the outcome counters: zamboni_attempts_total{outcome})
for f in 'tasks_added' 'tasks_assigned' 'tasks_evicted' 'tasks_refused' 'cycle_duration_seconds' 'leader'; do
    grep -Eq "^zamboni_[a-z_]*$f[a-z_]*[{ ]" "$tmp/m1" && ok "metrics_has_$f" ||
        bad "metrics_has_$f" "no zamboni_*$f* sample in: $(sed 's/[{ ].*//' "$tmp/m1" | sort -u | tr '\n' ' ' | head -c 600)"
done
for o in success failed lost abandoned; do
    [ -n "$(mval "$tmp/m1" zamboni_attempts_total "outcome=\"$o\"")" ] && ok "metrics_has_outcome_$o" ||
        bad "metrics_has_outcome_$o" "$(grep '^zamboni_attempts_total' "$tmp/m1" | tr '\n' ';')"
done

# Taken, backed off, finished: a real worker; its compactions wait 2.5 s
# before they commit.
ZB_TEST_WORKER_GROUP_DELAY_MS=2500 proc_start k worker --size-class small --lease-seconds 30 --heartbeat-seconds 1
t1_running() { [ "$(sql "SELECT state FROM zamboni_tasks WHERE table_name = 'x.t1'")" = running ]; }
if wait_until 30 t1_running; then
    g1=$(sql "SELECT state || ' ' || attempt || ' ' || (scheduled_for_ms > (extract(epoch from clock_timestamp()) * 1000)::bigint) FROM zamboni_tasks WHERE table_name = 'ghost.g1'")
    d_small=$(demand s small)
    [ "$g1" = "scheduled 1 true" ] && ok "g1_backed_off ($g1)" || bad g1_backed_off "g1: '$g1'"
    [ "$d_small" = 1 ] && ok "demand_taken_and_backed_off (small 1: x.t1 running)" ||
        bad demand_taken_and_backed_off "small '$d_small', want 1"
    metrics s "$tmp/m2"
    got=$(mval "$tmp/m2" zamboni_tasks 'class="small"' 'state="running"')
    [ "$got" = 1 ] && ok "metrics_tasks_small_running (1)" || bad metrics_tasks_small_running "'$got'"
    # the worker's heartbeat figures, by worker and class
    grep -E '^zamboni_[a-z_]*(budget|rows|bytes)[a-z_]*\{' "$tmp/m2" | grep 'class="small"' | grep -q 'worker="' &&
        ok metrics_worker_figures || bad metrics_worker_figures "$(grep -E 'worker=' "$tmp/m2" | head -4 | tr '\n' ';')"
else
    bad t1_running "x.t1: $(sql "SELECT state, last_message FROM zamboni_tasks WHERE table_name = 'x.t1'")"; show_log k
fi
t1_done() { [ -z "$(sql "SELECT state FROM zamboni_tasks WHERE table_name = 'x.t1'")" ]; }
wait_until 60 t1_done || { bad t1_done "never finished"; show_log k; }
d_small=$(demand s small); d_large=$(demand s large)
[ "$d_small" = 0 ] && [ "$d_large" = 0 ] && ok "demand_finished (small 0, large 0)" ||
    bad demand_finished "small '$d_small' large '$d_large'"
out1=$(sql "SELECT table_name || ':' || outcome FROM zamboni_attempts ORDER BY id" | tr '\n' ' ')
[ "$out1" = "ghost.g1:failed x.t1:success " ] && ok "attempts ($out1)" || bad attempts "$out1"
metrics s "$tmp/m3" || bad metrics_parse_3 "$(head -c 400 "$tmp/m3.err")"
c=$(mval "$tmp/m3" zamboni_attempts_total 'outcome="success"'); f=$(mval "$tmp/m3" zamboni_attempts_total 'outcome="failed"')
[ "$c" = 1 ] && [ "$f" = 1 ] && ok "metrics_success_failed ($c, $f)" ||
    bad metrics_success_failed "success '$c' failed '$f'"
a=$(mval "$tmp/m3" zamboni_tasks_assigned_total)
[ "${a:-0}" -ge 2 ] 2>/dev/null && ok "metrics_assigned ($a)" || bad metrics_assigned "'$a'"
# after a success: its warehouse's time, bytes rewritten and reclaimed,
# commit conflicts
t=$(mval "$tmp/m3" zamboni_warehouse_last_success_timestamp_seconds 'warehouse="w"')
now=$(date +%s)
[ -n "$t" ] && awk -v t="$t" -v n="$now" 'BEGIN {exit !(t > n - 120 && t <= n + 5)}' &&
    ok "metrics_last_success_w ($t)" || bad metrics_last_success_w "'$t' (now $now)"
for f in 'rewritten' 'reclaimed' 'conflict'; do
    grep -Eq "^zamboni_[a-z_]*$f[a-z_]*[{ ]|^zamboni_[a-z_]*\{.*$f" "$tmp/m3" && ok "metrics_has_$f" ||
        bad "metrics_has_$f" "no zamboni_*$f* sample in: $(sed 's/[{ ].*//' "$tmp/m3" | sort -u | tr '\n' ' ' | head -c 600)"
done
kill -TERM "$k_pid" "$s_pid"
proc_wait k 20
proc_wait s 20
[ "$s_rc" = 0 ] && ok serve_sigterm_exit_0 || { bad serve_sigterm_exit_0 "exit $s_rc"; show_log s; }
harness_done serve_demand

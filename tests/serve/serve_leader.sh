#!/usr/bin/env bash
# Issue 18, "Done when" (e): two `serve` replicas on one queue database:
# one plans (its /metrics say leader 1, the other's 0 with no planning
# cycle), both answer /health and /demand alike; SIGKILL the leader: the
# other takes the leader lease once it expires and plans (a table added
# after the kill gets its task) within the lease plus two plan intervals.
# Usage: serve_leader.sh ZAMBONI ZB_TABLE_GEN NODE
. "$(dirname "${BASH_SOURCE[0]}")/serve_harness.sh"

export ZAMBONI_SIZE_CLASSES='[{"name":"small","cores":1,"memory":"512Mi","max_jobs":4}]'
# The leader lease: serve's default (30 s) unless it takes a shorter one.
lease_s=${SERVE_LEADER_LEASE_S:-30}
lease_args=()
if "$zb" serve --help 2>&1 | grep -q -- '--leader-lease'; then
    lease_s=6
    lease_args=(--leader-lease "${lease_s}s")
fi
expect migrate 0 '' '' -- db migrate
wh_config w1 '{"version": 2, "warehouse": "w1", "defaults": {"retention": {"remove_orphan_files": {"enabled": false}, "rewrite_manifests": {"enabled": false}}},
  "namespaces": {"x": {"tables": {"s1": {}, "s2": {}, "s3": {}, "s4": {}, "s5": {}, "s6": {}}}}}'
mk_table w1 x.s1 small

serve_start a --warehouse w1 --plan-interval 1s "${lease_args[@]}" || exit 1
sleep 1.5
serve_start b --warehouse w1 --plan-interval 1s "${lease_args[@]}" || exit 1
task_of() { [ -n "$(sql "SELECT id FROM zamboni_tasks WHERE table_name = '$1' AND operation = 'compact'")" ]; }
wait_until 20 task_of x.s1 && ok first_table_planned || { bad first_table_planned "no task"; show_log a; }
sleep 2.5
metrics a "$tmp/ma" || bad metrics_a "$(head -c 300 "$tmp/ma.err")"
metrics b "$tmp/mb" || bad metrics_b "$(head -c 300 "$tmp/mb.err")"
la=$(mval "$tmp/ma" zamboni_planner_leader)
lb=$(mval "$tmp/mb" zamboni_planner_leader)
if [ "$la" = 1 ] && [ "$lb" = 0 ]; then
    ok "one_leader (a: $la, b: $lb)"; leader=a other=b
elif [ "$la" = 0 ] && [ "$lb" = 1 ]; then
    ok "one_leader (a: $la, b: $lb)"; leader=b other=a
else
    bad one_leader "a: '$la', b: '$lb'"; leader=a other=b
fi
cyc_other=$(mval "$tmp/m$other" zamboni_planner_cycles_total)
[ "${cyc_other:-0}" = 0 ] && ok "follower_planned_nothing (cycles '${cyc_other}')" ||
    bad follower_planned_nothing "its cycles: $cyc_other"
da=$(demand a small); db=$(demand b small)
[ -n "$da" ] && [ "$da" = "$db" ] && ok "replicas_same_demand ($da)" || bad replicas_same_demand "a '$da' b '$db'"
http a /health; ha=$code; http b /health
[ "$ha" = 200 ] && [ "$code" = 200 ] && ok replicas_healthy || bad replicas_healthy "a $ha b $code"

lpid=${leader}_pid
kill -KILL "${!lpid}"
t0=$(date +%s%N)
mk_table w1 x.s2 small
took_over() { metrics "$other" "$tmp/mo" && [ "$(mval "$tmp/mo" zamboni_planner_leader)" = 1 ] && task_of x.s2; }
limit=$((lease_s + 2 * 1 + 8))
if wait_until "$limit" took_over; then
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    ok "other_plans_after_kill ($other took over in ${ms} ms; lease ${lease_s} s)"
else
    bad other_plans_after_kill "not within ${limit} s: leader '$(mval "$tmp/mo" zamboni_planner_leader)', x.s2 task: $(sql "SELECT state FROM zamboni_tasks WHERE table_name = 'x.s2'")"
    show_log "$other"
fi
n=$(sql "SELECT count(*) FROM zamboni_tasks WHERE table_name = 'x.s1'")
[ "$n" = 1 ] && ok no_duplicate_task || bad no_duplicate_task "$n tasks of x.s1"
opid=${other}_pid
kill -TERM "${!opid}"
proc_wait "$other" 20
orc=${other}_rc
[ "${!orc}" = 0 ] && ok serve_sigterm_exit_0 || { bad serve_sigterm_exit_0 "exit ${!orc}"; show_log "$other"; }
harness_done serve_leader

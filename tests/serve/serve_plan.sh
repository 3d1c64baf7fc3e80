#!/usr/bin/env bash
# Issue 18, "Done when" (a): tables of known need in 3 warehouses (small
# files, old snapshots, healthy), `zamboni serve` planning every second
# and 2 `zamboni worker` processes: exactly the tables that need an
# operation get it (one success per table and operation, in the attempts
# table and in `zamboni history --warehouse W [TABLE] --json`), the
# healthy ones none, also a few cycles after; live rows unchanged (the
# independent reader); one compaction commit per compacted table; sampled
# every 0.2 s while it runs, the live tasks never exceed the workers'
# capacity plus one cycle's creations (the fleet's free slots), nor the cap.
# Usage: serve_plan.sh ZAMBONI ZB_TABLE_GEN NODE
. "$(dirname "${BASH_SOURCE[0]}")/serve_harness.sh"

export ZAMBONI_SIZE_CLASSES='[{"name":"small","cores":1,"memory":"512Mi","max_jobs":2}]'
export ZAMBONI_QUEUE_MAX_TASKS=50
expect migrate 0 '' '' -- db migrate

# warehouse -> namespace; each: small files, old snapshots, healthy
declare -A ns=([w1]=a [w2]=b [w3]=c)
# The planner plans the tables its table config lists (issue 18: "for
# each table of its table config"); the old ones' block declares
# retention properties, so apply-properties is due there too.
# w3's c.s1 enables remove-orphans (disabled elsewhere): due once where it
# is enabled (runs stopped before their commit leave files), then not
# again within its interval.
declare -A extra=([w1]='"s2": {}, ' [w2]='"h2": {}, ' [w3]='')
declare -A s1_block=([w1]='{}' [w2]='{}' [w3]='{"retention": {"remove_orphan_files": {"enabled": true, "older_than_days": 3}}}')
for w in w1 w2 w3; do
    n=${ns[$w]}
    wh_config "$w" "{\"version\": 2, \"warehouse\": \"$w\",
  \"defaults\": {\"retention\": {\"remove_orphan_files\": {\"enabled\": false}}},
  \"namespaces\": {\"$n\": {\"tables\": {${extra[$w]}\"s1\": ${s1_block[$w]}, \"h1\": {}, \"o1\": $old_block}}}}"
    mk_table "$w" "$n.s1" small
    mk_table "$w" "$n.o1" old
    mk_table "$w" "$n.h1" healthy
done
mk_table w1 a.s2 small
mk_table w2 b.h2 healthy
all_tables=(w1/a.s1 w1/a.s2 w1/a.o1 w1/a.h1 w2/b.s1 w2/b.o1 w2/b.h1 w2/b.h2 w3/c.s1 w3/c.o1 w3/c.h1)
{
    # a compaction leaves two manifests (the new file's, the old one's
    # deletes): rewrite-manifests (min_input_manifests 2) follows it
    for t in w1/a.s1 w1/a.s2 w2/b.s1 w3/c.s1; do
        echo "${t%%/*} ${t#*/} compact"; echo "${t%%/*} ${t#*/} rewrite-manifests"
    done
    echo "w3 c.s1 remove-orphans"
    for t in w1/a.o1 w2/b.o1 w3/c.o1; do
        echo "${t%%/*} ${t#*/} apply-properties"; echo "${t%%/*} ${t#*/} expire"
    done
} | LC_ALL=C sort >"$tmp/want"
for w in w1 w2 w3; do
    expect "config_valid_$w" 0 '' '' -- table-config validate "$root/configs/$w/table-config.json"
done
table_rows "$tmp/before" "${all_tables[@]}" ||
    { echo "FAIL read before: $(head -c 600 "$tmp/before.err")"; exit 1; }

# Sample the live tasks while it runs.
(
    while :; do
        sql "SELECT count(*) FILTER (WHERE state <> 'excluded'), count(*) FILTER (WHERE state = 'running'), count(*) FROM zamboni_tasks" 2>/dev/null
        sleep 0.2
    done
) >"$tmp/samples" &
serve_pids="$serve_pids $!"
sampler=$!

start=$(date +%s%N)
serve_start s --warehouse w1 --warehouse w2 --warehouse w3 --plan-interval 1s || exit 1
for k in 1 2; do
    proc_start "k$k" worker --size-class small --lease-seconds 30 --heartbeat-seconds 1
done
done_all() {
    [ "$(sql "SELECT count(*) FROM zamboni_tasks")" = 0 ] &&
        [ "$(sql "SELECT count(DISTINCT (warehouse, table_name, operation)) FROM zamboni_attempts WHERE outcome = 'success'")" -ge "$(wc -l <"$tmp/want")" ]
}
if wait_until 90 done_all; then
    ok "planned_and_done ($(( ($(date +%s%N) - start) / 1000000 )) ms)"
else
    bad planned_and_done "live: $(sql "SELECT warehouse, table_name, operation, state, last_message FROM zamboni_tasks" | head -6 | tr '\n' ';')"
    show_log s; show_log k1 6; show_log k2 6
fi
# A few cycles more: the healthy tables, and the ones done, get nothing.
n_att=$(sql "SELECT count(*) FROM zamboni_attempts")
sleep 4
kill "$sampler" 2>/dev/null
n_att2=$(sql "SELECT count(*) FROM zamboni_attempts")
left=$(sql "SELECT count(*) FROM zamboni_tasks")
[ "$n_att2" = "$n_att" ] && [ "$left" = 0 ] && ok "nothing_more_after (4 cycles)" ||
    bad nothing_more_after "$n_att -> $n_att2 attempts, $left live: $(sql "SELECT warehouse, table_name, operation FROM zamboni_tasks" | head -4 | tr '\n' ';')"

sql "SELECT warehouse || ' ' || table_name || ' ' || operation FROM zamboni_attempts WHERE outcome = 'success'" |
    LC_ALL=C sort >"$tmp/got"
if cmp -s "$tmp/want" "$tmp/got"; then
    ok "exactly_the_needed_operations ($(wc -l <"$tmp/got"))"
else
    bad exactly_the_needed_operations "diff want/got: $(diff "$tmp/want" "$tmp/got" | grep '^[<>]' | head -10 | tr '\n' ';')"
fi
other=$(sql "SELECT count(*) FROM zamboni_attempts WHERE outcome <> 'success'")
[ "$other" = 0 ] && ok no_failed_attempts ||
    bad no_failed_attempts "$(sql "SELECT table_name, operation, outcome, message FROM zamboni_attempts WHERE outcome <> 'success'" | head -4)"

# history --warehouse W [TABLE] --json: the attempts of that warehouse only
for w in w1 w2 w3; do
    run history --warehouse "$w" --json
    jq -r '.[] | "\(.warehouse) \(.table) \(.operation)"' "$out" 2>/dev/null | LC_ALL=C sort >"$tmp/h_$w"
    grep "^$w " "$tmp/want" >"$tmp/want_$w"
    cmp -s "$tmp/h_$w" "$tmp/want_$w" && ok "history_warehouse_$w" ||
        bad "history_warehouse_$w" "history: $(tr '\n' ';' <"$tmp/h_$w") want: $(tr '\n' ';' <"$tmp/want_$w")"
done
run history --warehouse w1 a.s2 --json
h=$(jq -r '[.[] | "\(.warehouse) \(.table) \(.operation) \(.outcome)"] | join(";")' "$out" 2>/dev/null)
[ "$h" = "w1 a.s2 rewrite-manifests success;w1 a.s2 compact success" ] && ok history_table || bad history_table "'$h'"
run history --warehouse w2 b.h1 --json
h=$(jq -r 'length' "$out" 2>/dev/null)
[ "$h" = 0 ] && ok history_healthy_table_empty || bad history_healthy_table_empty "$h attempt(s)"

# The live tasks never exceeded 2 workers' slots plus one cycle's
# creations (at most the 2 free slots), nor the cap.
max_live=$(cut -d'|' -f1 "$tmp/samples" | sort -n | tail -1)
max_all=$(cut -d'|' -f3 "$tmp/samples" | sort -n | tail -1)
n_samples=$(wc -l <"$tmp/samples")
[ "$n_samples" -gt 10 ] && [ "${max_live:-99}" -le 4 ] && [ "${max_all:-99}" -le 50 ] &&
    ok "live_tasks_bounded (max $max_live live, $max_all in all, $n_samples samples)" ||
    bad live_tasks_bounded "max $max_live live, $max_all in all over $n_samples samples (bound 4, cap 50)"

table_rows "$tmp/after" "${all_tables[@]}" || echo "     read after: $(head -c 600 "$tmp/after.err")"
rows_same rows_unchanged "$tmp/before" "$tmp/after"
want_rw=$(for t in "${all_tables[@]}"; do case "$t" in */?.s?) echo "$t 1" ;; *) echo "$t 0" ;; esac; done)
got_rw=$(awk '{print $1, $4}' "$tmp/after")
[ "$want_rw" = "$got_rw" ] && ok one_compaction_commit_per_small_table ||
    bad one_compaction_commit_per_small_table "$(echo "$got_rw" | tr '\n' ';')"

kill -TERM "$s_pid" "$k1_pid" "$k2_pid" 2>/dev/null
proc_wait s 30
[ "$s_rc" = 0 ] && ok serve_sigterm_exit_0 || { bad serve_sigterm_exit_0 "exit $s_rc"; show_log s; }
harness_done serve_plan

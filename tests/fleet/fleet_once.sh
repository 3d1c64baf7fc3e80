#!/usr/bin/env bash
# 8 worker processes and at least 100 tasks on 40 generated tables (issue
# 17, "Done when"): every task done exactly once - the queue empty after,
# one success per task in the history (CLI --json and the attempts table),
# no other outcome; each table's snapshot log one compaction commit per
# compaction task; every table's live rows and their hash unchanged, read
# by the independent reader. Workers end by --idle-exit-after, exit 0.
# Usage: fleet_once.sh ZAMBONI ZB_TABLE_GEN NODE sqlite|pg
. "$(dirname "${BASH_SOURCE[0]}")/fleet_harness.sh"

expect migrate 0 '' '' -- db migrate
fleet_tables 40 8 20
fleet_rows "$tmp/before" || { echo "FAIL read before: $(head -c 600 "$tmp/before.err")"; exit 1; }
expect enqueue 0 '' '' -- enqueue --warehouse w
n_tasks=$(sql "SELECT count(*) FROM zamboni_tasks")
n_tables=$(sql "SELECT count(DISTINCT table_name) FROM zamboni_tasks")
n_compact=$(sql "SELECT count(*) FROM zamboni_tasks WHERE operation = 'compact'")
[ "$n_tasks" -ge 100 ] && [ "$n_tables" = 40 ] && ok "tasks_enqueued ($n_tasks on $n_tables tables, $n_compact compact)" ||
    bad tasks_enqueued "$n_tasks task(s) on $n_tables table(s)"
# enqueue twice: nothing more (one live task per table and operation)
run enqueue --warehouse w
[ "${n_tasks:-0}" -gt 0 ] && [ "$(sql "SELECT count(*) FROM zamboni_tasks")" = "$n_tasks" ] && ok enqueue_again_no_duplicates ||
    bad enqueue_again_no_duplicates "$(sql "SELECT count(*) FROM zamboni_tasks") tasks"

start=$(date +%s%N)
for w in 1 2 3 4 5 6 7 8; do
    worker_start "w$w" --idle-exit-after 3s --lease-seconds 30 --heartbeat-seconds 5
done
all_zero=1
for w in 1 2 3 4 5 6 7 8; do
    worker_wait "w$w" 240
    rcv=w${w}_rc
    if [ "${!rcv}" != 0 ]; then
        all_zero=0
        echo "     worker w$w exit ${!rcv}"
        show_log "w$w"
    fi
done
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$all_zero" = 1 ] && ok "workers_exit_0 (8 workers, ${ms} ms)" || bad workers_exit_0 "a worker did not exit 0"

left=$(sql "SELECT count(*) FROM zamboni_tasks")
[ "$left" = 0 ] && ok queue_empty || bad queue_empty "$left live task(s): $(sql "SELECT table_name, operation, state, last_message FROM zamboni_tasks" | head -5)"
run tasks list --json
jq -e 'if type == "array" then length == 0 else (.tasks | length) == 0 end' "$out" >/dev/null &&
    ok tasks_list_json_empty || bad tasks_list_json_empty "not an empty list"

# The attempts table: one success per task, nothing else.
succ=$(sql "SELECT count(*) FROM zamboni_attempts WHERE outcome = 'success'")
other=$(sql "SELECT count(*) FROM zamboni_attempts WHERE outcome <> 'success'")
dup=$(sql "SELECT count(*) FROM (SELECT task_id FROM zamboni_attempts WHERE outcome = 'success' GROUP BY task_id HAVING count(*) > 1) d")
[ "$succ" = "$n_tasks" ] && [ "$other" = 0 ] && [ "$dup" = 0 ] && ok "one_success_per_task ($succ)" ||
    bad one_success_per_task "$succ success(es), $other other attempt(s), $dup task(s) twice, for $n_tasks tasks"
# The same through `zamboni history --json`.
run history --json --limit 1000 || run history --json
h=$(jq -r '(if type == "array" then . else (.attempts // .history) end)
           | [.[] | select(.outcome == "success")] | length' "$out" 2>/dev/null)
[ "$h" = "$n_tasks" ] && ok history_json_successes || bad history_json_successes "history shows ${h:-no} successes, want $n_tasks"

fleet_rows "$tmp/after" || echo "     read after: $(head -c 600 "$tmp/after.err")"
rows_same rows_unchanged "$tmp/before" "$tmp/after"
# one compaction commit per table with a compact task
sql "SELECT table_name FROM zamboni_attempts WHERE operation = 'compact' AND outcome = 'success'" |
    sed 's/^fleet\.//' | LC_ALL=C sort >"$tmp/compacted"
awk '$4 != 1 {print $1}' "$tmp/after" | LC_ALL=C sort >"$tmp/not_one"
bad_tables=$(comm -12 "$tmp/compacted" "$tmp/not_one" | head -5)
zero_tables=$(awk '$4 != 0 {print $1}' "$tmp/after" | LC_ALL=C sort | comm -13 "$tmp/compacted" - | head -5)
[ -s "$tmp/compacted" ] && [ -z "$bad_tables" ] && [ -z "$zero_tables" ] &&
    ok "one_commit_per_rewrite ($(wc -l <"$tmp/compacted") tables)" ||
    bad one_commit_per_rewrite "rewrites: $(awk '{print $1 "=" $4}' "$tmp/after" | head -8 | tr '\n' ' ') not one: $bad_tables; not compacted yet rewritten: $zero_tables"
harness_done "fleet_once_$backend"

#!/usr/bin/env bash
# A worker killed or stopped in the middle of a compaction (issue 17,
# "Done when"), on real PostgreSQL, the catalog in the queue's database:
#   SIGKILL  the sweep (another worker's, between tasks) logs the attempt
#            `lost`; the task runs again one class up and succeeds; one
#            compaction commit; the dead attempt's files stay on disk for
#            remove-orphans; live rows unchanged
#   SIGSTOP  past its lease (its heartbeat told, by a test-only switch,
#            to leave the lost lease alone), another worker sweeps the
#            task; SIGCONT: the first one's commit, on a table nobody else
#            changed, is refused by the fence (its log says so, nothing
#            committed); the new attempt one class up commits; one
#            compaction commit; rows neither lost nor doubled
# The compaction is slowed by the worker's test-only delay before each
# group's commit.
# Usage: fleet_signals.sh ZAMBONI ZB_TABLE_GEN NODE pg
. "$(dirname "${BASH_SOURCE[0]}")/fleet_harness.sh"

expect migrate 0 '' '' -- db migrate
fleet_tables 2 12 50
fleet_rows "$tmp/before" || { echo "FAIL read before: $(head -c 600 "$tmp/before.err")"; exit 1; }
short=(--lease-seconds 3 --heartbeat-seconds 1 --idle-exit-after 0)

# --- SIGKILL ---------------------------------------------------------------
expect enqueue_t1 0 '' '' -- enqueue --warehouse w fleet.t1
sql "UPDATE zamboni_tasks SET size_class = 'small' WHERE table_name = 'fleet.t1'" >/dev/null
files0=$(data_files t1)
slow 4000
worker_start k1 --size-class small "${short[@]}"
running() { [ "$(task_state t1 compact)" = running ]; }
if wait_until 30 running; then
    sleep 1.5
    kill -KILL "$k1_pid"
    wait "$k1_pid" 2>/dev/null
    ok killed_while_running
else
    bad killed_while_running "the compact task never ran"; show_log k1
fi
slow 0
worker_start k2 --size-class large "${short[@]}" --idle-exit-after 6s
worker_wait k2 90
[ "$k2_rc" = 0 ] && ok sweeper_exit_0 || { bad sweeper_exit_0 "exit $k2_rc"; show_log k2; }
a=$(attempts t1 compact | tr '\n' ' ')
case "$a" in
    "1|lost 2|success "*) ok "lost_then_success ($a)" ;;
    *) bad lost_then_success "attempts: $a" ;;
esac
cls=$(sql "SELECT size_class FROM zamboni_attempts WHERE table_name = 'fleet.t1' AND operation = 'compact' AND attempt = 2")
[ "$cls" = large ] && ok rerun_one_class_up || bad rerun_one_class_up "attempt 2 ran in '$cls'"
msg=$(sql "SELECT message FROM zamboni_attempts WHERE table_name = 'fleet.t1' AND operation = 'compact' AND attempt = 1")
echo "     lost attempt's message: $msg"
grep -qi 'lost\|lease' <<<"$msg" && ok lost_message || bad lost_message "message '$msg'"
# ...and counts what the dead attempt left: the group it had written
grep -q '"groups_written": 1' <<<"$msg" && ok lost_message_counts_groups ||
    bad lost_message_counts_groups "message '$msg'"
fleet_rows "$tmp/after1" t1
grep "^t1 " "$tmp/before" >"$tmp/before1"
rows_same killed_rows_unchanged "$tmp/before1" "$tmp/after1"
[ "$(cut -d' ' -f4 "$tmp/after1")" = 1 ] && ok killed_one_commit || bad killed_one_commit "$(cut -d' ' -f4 "$tmp/after1") compaction commits"
# the dead attempt's output (and the new one's) are on disk; only one is live
left=$(data_files t1)
[ "$left" -ge $((files0 + 1)) ] && ok "dead_attempt_files_left ($files0 before, $left after)" ||
    bad dead_attempt_files_left "$left file(s) under the table, $files0 before"

# --- SIGSTOP ---------------------------------------------------------------
expect enqueue_t2 0 '' '' -- enqueue --warehouse w fleet.t2
sql "UPDATE zamboni_tasks SET size_class = 'small' WHERE table_name = 'fleet.t2'" >/dev/null
slow 5000
# Its heartbeat leaves the lost lease alone (a test-only switch), so that
# the commit it goes on to make meets the fence, the check under test.
export ZB_TEST_WORKER_IGNORE_LOST=1
worker_start s1 --size-class small "${short[@]}"
unset ZB_TEST_WORKER_IGNORE_LOST
running2() { [ "$(task_state t2 compact)" = running ]; }
if wait_until 30 running2; then
    sleep 1
    kill -STOP "$s1_pid"
    ok stopped_while_running
else
    bad stopped_while_running "the compact task never ran"; show_log s1
fi
slow 0
# Past the lease a small-class worker sweeps it (attempt 1 lost, the task
# one class up, to large, which it does not serve) and nobody else touches
# the table: when s1 goes on, only the fence stands between its commit and
# the table.
worker_start sw --size-class small "${short[@]}" --idle-exit-after 6s
worker_wait sw 90
[ "$sw_rc" = 0 ] && ok sweeper2_exit_0 || { bad sweeper2_exit_0 "exit $sw_rc"; show_log sw; }
[ "$(task_state t2 compact)" = scheduled ] && ok swept_to_scheduled ||
    bad swept_to_scheduled "state '$(task_state t2 compact)'"
kill -CONT "$s1_pid"
# s1 wakes and commits: the fence refuses
refused() { grep -q 'outcome=lost' "$tmp/s1.log"; }
wait_until 30 refused || true
kill -TERM "$s1_pid" 2>/dev/null
worker_wait s1 30
fleet_rows "$tmp/mid2" t2
[ "$(cut -d' ' -f4 "$tmp/mid2")" = 0 ] && ok fenced_nothing_committed ||
    bad fenced_nothing_committed "$(cut -d' ' -f4 "$tmp/mid2") compaction commits after the stale attempt"
# The new attempt in the large class commits.
worker_start s2 --size-class large "${short[@]}" --idle-exit-after 6s
worker_wait s2 90
[ "$s2_rc" = 0 ] && ok taker_exit_0 || { bad taker_exit_0 "exit $s2_rc"; show_log s2; }
a=$(attempts t2 compact | tr '\n' ' ')
case "$a" in
    "1|lost 2|success "*) ok "stopped_attempt_lost_new_success ($a)" ;;
    *) bad stopped_attempt_lost_new_success "attempts: $a" ;;
esac
# The commit was made and refused: the fence's message, outcome lost.
grep -q 'outcome=lost .*commit refused: task [0-9]* attempt 1 no longer holds its lease' "$tmp/s1.log" &&
    ok stopped_worker_refused ||
    { bad stopped_worker_refused "its log shows no commit refused by the fence"; show_log s1; }
fleet_rows "$tmp/after2" t2
grep "^t2 " "$tmp/before" >"$tmp/before2"
rows_same stopped_rows_unchanged "$tmp/before2" "$tmp/after2"
[ "$(cut -d' ' -f4 "$tmp/after2")" = 1 ] && ok stopped_one_commit || bad stopped_one_commit "$(cut -d' ' -f4 "$tmp/after2") compaction commits"
harness_done fleet_signals

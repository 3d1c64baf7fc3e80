#!/usr/bin/env bash
# The queue verbs on SQLite (issue 17): an unmigrated queue refused (exit
# 3), db migrate twice, enqueue on the demo warehouse (one task per table
# and operation, a second run finds them live), tasks list/show/cancel/
# requeue with --json read by node, history, maintenance recording its
# runs, usage errors (exit 2), --queue-uri naming a database of its own.
# Usage: cli_queue.sh PATH/TO/zamboni
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

d=$tmp/demo
unset ZAMBONI_ROOT
run demo "$d" && ok demo || bad demo "exit $?"
export ZAMBONI_ROOT=$d

expect unmigrated_refused 3 '' 'zamboni db migrate' -- tasks list
expect unmigrated_enqueue 3 '' 'zamboni db migrate' -- enqueue --warehouse demo
expect unmigrated_history 3 '' 'zamboni db migrate' -- history
expect migrate_first 0 'version 0 -> 2' '' -- db migrate
expect migrate_again 0 'version 2, up to date' '' -- db migrate
expect migrate_usage 2 '' "expected 'migrate'" -- db upgrade
expect migrate_help 0 'schema migrations' '' -- db migrate --help

# the demo's zamboni.yml names the warehouse: a root without one
ZAMBONI_ROOT=$tmp/root expect enqueue_needs_warehouse 2 '' '--warehouse' -- enqueue
expect enqueue_help 0 'task per table and operation' '' -- enqueue --help
expect enqueue_demo 0 '^12 tasks queued, 0 already live$' '' -- enqueue --warehouse demo
grep -qE '^queued +[0-9]+  demo\.events  compact  \(class standard\)$' "$out" && ok enqueue_line || bad enqueue_line "no queued line"
expect enqueue_again 0 '^0 tasks queued, 6 already live$' '' -- enqueue --warehouse demo demo.users
expect enqueue_unknown_flag 2 '' "unknown flag '--bogus'" -- enqueue --warehouse demo --bogus x

run tasks list --json && ok list_json_exit || bad list_json_exit "exit $?"
node -e '
const t = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
if (t.length !== 12) throw new Error("tasks: " + t.length);
const ops = t.filter(x => x.table === "demo.events").map(x => x.operation);
const want = ["compact", "apply-properties", "remove-dangling-deletes",
              "rewrite-manifests", "expire", "remove-orphans"];
if (JSON.stringify(ops) !== JSON.stringify(want)) throw new Error(ops);
if (!t.every(x => x.state === "scheduled" && x.attempt === 0 &&
                  x.max_attempts === 5 && x.size_class === "standard"))
    throw new Error("fields");
' "$out" && ok list_json_fields || bad list_json_fields "json"
id=$(node -e 'const t = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(t[1].id)' "$out")

expect show_task 0 "^  operation     apply-properties$" '' -- tasks show "$id"
run tasks show "$id" --json
node -e '
const t = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
if (t.id !== Number(process.argv[2]) || t.state !== "scheduled") throw new Error("show");
' "$out" "$id" && ok show_json || bad show_json "json"
expect show_missing 1 '' 'no live task 99999' -- tasks show 99999
expect show_bad_id 2 '' 'give a task ID' -- tasks show abc
expect tasks_usage 2 '' 'expected list, show, cancel or requeue' -- tasks frob
expect requeue_refused 3 '' 'not excluded' -- tasks requeue "$id"
expect cancel_task 0 "task $id cancelled" '' -- tasks cancel "$id"
expect cancel_again 1 '' "no live task $id" -- tasks cancel "$id"
expect list_after_cancel 0 '' '' -- tasks list --state scheduled
[ "$(wc -l <"$out")" -eq 11 ] && ok list_state_filter || bad list_state_filter "$(wc -l <"$out") lines"
expect history_cancel 0 "task $id attempt 1  cancelled" '' -- history --task "$id"
run history --json
node -e '
const a = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
if (a.length !== 1 || a[0].outcome !== "cancelled" || a[0].task_id !== Number(process.argv[2]))
    throw new Error(JSON.stringify(a));
' "$out" "$id" && ok history_json || bad history_json "json"

# maintenance records its runs in the (migrated) catalog database
run maintenance --warehouse demo demo.users && ok maintenance_run || bad maintenance_run "exit $?"
run history --json
node -e '
const a = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const cli = a.filter(x => x.task_id === null);
if (cli.length !== 6 || !cli.every(x => x.table === "demo.users" && x.outcome === "success"))
    throw new Error(JSON.stringify(cli.map(x => [x.operation, x.outcome])));
if (cli[cli.length - 1].operation !== "compact") throw new Error("order");
' "$out" && ok maintenance_recorded || bad maintenance_recorded "json"
expect history_other_wh 0 'no attempts recorded' '' -- history --warehouse nowhere
expect history_other_table 0 'no attempts recorded' '' -- history demo.nosuch
run history --json --warehouse demo demo.users
node -e '
const a = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
if (a.length < 6 || !a.every(x => x.warehouse === "demo" && x.table === "demo.users"))
    throw new Error(JSON.stringify(a.map(x => [x.warehouse, x.table])));
' "$out" && ok history_filtered || bad history_filtered "json"

# a queue database of its own: unmigrated until migrated
export ZAMBONI_QUEUE_URI=sqlite:$tmp/own-queue.db
expect own_queue_unmigrated 3 '' 'zamboni db migrate' -- tasks list
expect own_queue_migrate 0 "version 0 -> 2 \\(sqlite $tmp/own-queue.db\\)" '' -- db migrate
expect own_queue_empty 0 '^no live tasks$' '' -- tasks list
expect bad_queue_uri 2 '' 'sqlite:PATH or postgresql' -- tasks list --queue-uri mysql://x
unset ZAMBONI_QUEUE_URI
# a schema newer than this build
if command -v sqlite3 >/dev/null; then
    sqlite3 "$d/catalog.db" 'update zamboni_schema set version = 7'
    expect newer_refused 3 '' 'version 7, newer than this build' -- tasks list
    expect newer_migrate_refused 3 '' 'version 7' -- db migrate
fi
harness_done cli_queue

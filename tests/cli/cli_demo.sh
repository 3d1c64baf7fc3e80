#!/usr/bin/env bash
# `zamboni demo` and maintenance of the demo warehouse through the
# ZAMBONI_ROOT layout (seed 003): the demo twice in one folder, a folder
# it did not make refused; --dry-run changes no byte under the root (the
# tables' files and the SQLite catalog, its rows dumped too); the run
# with --status in the seed's shape, fewer files after, the fixed order;
# a second run.
# Usage: cli_demo.sh PATH/TO/zamboni
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
# The demo makes its own root: the first runs name none.
unset ZAMBONI_ROOT
# The harness's snapshot, and the rows of the demo's SQLite catalog.
demo_snapshot() {
    snapshot "$1"
    if command -v sqlite3 >/dev/null; then
        sqlite3 "$1/catalog.db" 'select * from iceberg_tables order by 1, 2, 3'
    fi
}

d=$tmp/demo
run demo "$d" && ok demo_first || bad demo_first "exit $?"
for f in zamboni.yml configs/demo/table-config.json catalog.db .zamboni-demo; do
    [ -f "$d/$f" ] && ok "layout_$f" || bad "layout_$f" "missing"
done
run demo "$d" && ok demo_second || bad demo_second "exit $?"
export ZAMBONI_ROOT=$d
run table-config validate "$d/configs/demo/table-config.json" && ok demo_config_valid || bad demo_config_valid "exit $?"
run warehouses && grep -qx demo "$out" && ok warehouses_demo || bad warehouses_demo "no demo"
run describe demo.events && grep -q 'live data files : 240 ' "$out" && ok demo_events_files || bad demo_events_files "not 240 files"
grep -qE 'delete files    : [1-9][0-9]* position' "$out" && ok demo_events_pos_deletes || bad demo_events_pos_deletes "no position deletes"
run describe demo.users && grep -qE 'delete files    : 0 position, [1-9][0-9]* equality' "$out" && ok demo_users_eq_deletes || bad demo_users_eq_deletes "no equality deletes"
# table-config generate from the demo's catalog
run table-config generate --warehouse demo -o "$tmp/gen.json" && ok generate || bad generate "exit $?"
grep -q '"transform": "identity"' "$tmp/gen.json" && ok generate_partition || bad generate_partition "no spec"
run table-config validate --warehouse demo "$tmp/gen.json" && grep -q '2 table' "$out" && ok generate_valid || bad generate_valid "exit $?"
run table-config generate --warehouse demo -o "$tmp/gen.json"; code=$?
[ $code -eq 2 ] && grep -q 'exists' "$err" && ok generate_keeps_file || bad generate_keeps_file "exit $code"
run table-config generate --warehouse demo -o "$tmp/gen.json" --force --namespace demo && ok generate_force || bad generate_force "exit $?"
mkdir -p "$tmp/other" && echo x >"$tmp/other/keep"
run demo "$tmp/other"; code=$?
[ $code -eq 3 ] && [ -f "$tmp/other/keep" ] && ok demo_refuses_foreign_folder || bad demo_refuses_foreign_folder "exit $code"

# --dry-run: no byte changes
before=$(demo_snapshot "$d")
run maintenance --warehouse demo --dry-run --status; code=$?
[ $code -eq 0 ] && ok dry_run_exit || bad dry_run_exit "exit $code"
grep -q 'would rewrite 240 file' "$out" && ok dry_run_real_counts || bad dry_run_real_counts "no plan"
after=$(demo_snapshot "$d")
[ "$before" = "$after" ] && ok dry_run_changed_nothing || bad dry_run_changed_nothing "$(diff <(echo "$before") <(echo "$after") | head -4)"

# the run, with --status
run maintenance --warehouse demo --status; code=$?
[ $code -eq 0 ] && ok maintenance_exit || bad maintenance_exit "exit $code"
grep -qE '^demo, before:$' "$out" && grep -qE '^demo, after:$' "$out" && ok status_shape || bad status_shape "no before/after"
grep -qE '^  2 tables, 360 data files, .* data, .* metadata, [0-9,]+ delete files, [0-9,]+ snapshots$' "$out" && ok status_before_counts || bad status_before_counts "before line"
after_files=$(sed -n '/^demo, after:$/{n;p}' "$out" | grep -oE '[0-9,]+ data files' | tr -d ', a-z')
[ -n "$after_files" ] && [ "$after_files" -lt 360 ] && ok fewer_files_after || bad fewer_files_after "after: '$after_files'"
grep -q 'ROW COUNT CHANGED' "$err" && bad row_counts_kept "changed" || ok row_counts_kept
grep -qE '^  reclaimed [0-9.]+(B|KiB|MiB|GiB)$' "$out" && ok reclaimed_line || bad reclaimed_line "none"
grep -qE '^  demo\.events +[0-9]+ -> [0-9]+ ' "$out" && ok per_table_line || bad per_table_line "none"
order=$(sed -n '/^demo.users$/,/^demo, after/p' "$out" | grep -oE '^  [a-z-]+:' | tr -d ' :' | tr '\n' ' ')
[ "$order" = "compact apply-properties remove-dangling-deletes rewrite-manifests expire remove-orphans " ] && ok order || bad order "got '$order'"
run describe demo.events && grep -q 'live data files : 3 ' "$out" && ok compacted_per_day || bad compacted_per_day "not 3 files"

run maintenance --warehouse demo; code=$?
[ $code -eq 0 ] && ok second_run || bad second_run "exit $code"

harness_done

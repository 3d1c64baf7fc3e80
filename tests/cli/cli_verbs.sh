#!/usr/bin/env bash
# The operation verbs, maintenance and the read-only verbs around them:
# --help of each (every flag with its default), usage errors (exit 2),
# refusals (exit 3), the warehouse mismatch of a table config (exit 3,
# nothing touched), --dry-run changing no byte, worst-exit aggregation
# across tables and one table's abort not stopping the next (exit 4), the
# maintenance order. Tables are copies of the fixture tables.
# Usage: cli_verbs.sh PATH/TO/zamboni FIXTURES_DIR
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

# --- help: every verb, every flag with a default -----------------------
verbs="maintenance compact apply-properties remove-dangling-deletes
rewrite-manifests expire remove-orphans describe plan warehouses engines
table-config demo scan add-files"
for v in $verbs; do
    expect "help_$v" 0 "^Usage: zamboni $v" '' -- "$v" --help
    expect "help_via_help_$v" 0 "^Usage: zamboni $v" '' -- help "$v"
    "$zb" "$v" --help >"$out" 2>"$err"
    # no help line wider than a terminal, except the dry-run trailer
    if awk 'length > 80 && !/dry run --/ {bad = 1} END {exit bad}' "$out"
    then ok "help_width_$v"; else bad "help_width_$v" "a line over 80"; fi
    expect "listed_$v" 0 "^  $v " '' -- --help
done
"$zb" maintenance --help >"$out" 2>"$err"
for f in --dry-run --yes --status --table-config --warehouse --uri --engine \
         --target-file-size-bytes --min-input-files --rewrite-all \
         --partial-progress --memory-mode --memory-budget-bytes \
         --max-group-memory-bytes --threads \
         --max-concurrent-file-group-rewrites \
         --read-ahead-bytes --max-read-ahead-files --temp-directory \
         --sort-by --sort-by-table-order --branch --snapshot-operation \
         --dangling-delete-policy --max-snapshot-age-days \
         --min-snapshots-to-keep --older-than-days --min-input-manifests; do
    if grep -qE -- "^  $f( |\$)" "$out"; then ok "maintenance_help_has_$f"
    else bad "maintenance_help_has_$f" "no line for $f"; fi
done
# --memory-budget-bytes is the process's budget; the per-group cap it
# used to be is --max-group-memory-bytes, whose default is that budget
for pair in "134217728:--target-file-size-bytes" \
            "ZAMBONI_MEMORY_BUDGET_BYTES:--memory-budget-bytes" \
            "the whole:--max-group-memory-bytes" \
            "ZAMBONI_THREADS:--threads" \
            "else --threads:--max-concurrent-file-group-rewrites" \
            "else 3:--older-than-days" "else 5:--max-snapshot-age-days" \
            "else 1:--min-snapshots-to-keep" "else 2:--min-input-manifests" \
            "default main:--branch" "local \\(default:--engine"; do
    d=${pair%%:*} f=${pair#*:}
    if grep -A4 -- "^  $f" "$out" | grep -qE -- "$d"; then ok "default_of_$f"
    else bad "default_of_$f" "no default '$d'"; fi
done
expect help_global_mentions 0 "COMMAND --help" '' -- --help

# --- usage errors (exit 2) ---------------------------------------------
t=$tmp/t-pos
copy impala-v2-pos-delete "$t"
for v in compact apply-properties remove-dangling-deletes rewrite-manifests \
         expire remove-orphans describe plan; do
    expect "missing_table_$v" 2 '' 'missing TABLE' -- "$v"
    expect "two_tables_$v" 2 '' "unexpected argument 'b'" -- "$v" a b
    expect "unknown_option_$v" 2 '' "unknown option '--bogus'" -- "$v" --bogus "$t"
done
expect flag_needs_value 2 '' "option '--table-config' needs a value" -- expire "$t" --table-config
expect flag_no_value 2 '' "option '--dry-run' takes no value" -- expire --dry-run=1 "$t"
expect bad_min_keep 2 '' "invalid value '0' for --min-snapshots-to-keep" -- expire --min-snapshots-to-keep 0 "$t"
expect bad_age 2 '' "invalid value 'x' for --max-snapshot-age-days" -- expire --max-snapshot-age-days x "$t"
expect bad_target 2 '' "invalid value '99' for --target-file-size-bytes" -- compact --target-file-size-bytes 99 "$t"
expect bad_min_manifests 2 '' "invalid value '1' for --min-input-manifests" -- rewrite-manifests --min-input-manifests 1 "$t"
expect bad_memory_mode 2 '' "invalid value 'lots' for --memory-mode" -- compact --memory-mode lots "$t"
expect flag_of_other_verb 2 '' "unknown option '--older-than-days'" -- expire --older-than-days 3 "$t"
expect removed_token 2 '' '--token was removed' -- maintenance --token abc "$t"
expect maintenance_no_tables 2 '' 'no tables' -- maintenance
expect table_config_bad_action 2 '' "unknown action 'check'" -- table-config check x.json
expect table_config_missing 2 '' 'no such file' -- table-config validate "$tmp/none.json"
expect demo_two_dirs 2 '' "unexpected argument" -- demo a b

# --- refusals (exit 3) -------------------------------------------------
expect engine_trino 3 '' "engine 'trino' is not available" -- expire --engine trino "$t"
expect sort_by_bad_expr 2 '' "invalid value 'id sideways' for --sort-by" -- compact --sort-by "id sideways" "$t"
expect sort_by_both 2 '' 'exclude each other' -- compact --sort-by id --sort-by-table-order "$t"
expect sort_by_no_column 2 '' "no top-level column 'nope'" -- compact --sort-by nope "$t"
expect snapshot_overwrite 3 '' 'overwrite is not' -- compact --snapshot-operation overwrite "$t"
expect orphans_guard 3 '' 'below 24 hours' -- remove-orphans --older-than-days 0 "$t"
expect engines_lists 0 '^  remove-orphans +full +previews' '' -- engines
expect engines_trino 0 '^  compact +unsupported +cannot preview' '' -- engines

# --- table-config validate / summary -----------------------------------
cat >"$tmp/tc.json" <<'EOF'
{"version": 2, "warehouse": "acme",
 "namespaces": {"db": {"tables": {"events": {"min_input_files": 3}}}}}
EOF
echo '{"version": 2, "warehouse": "acme", "defaults": {"min_input_files": 0}}' >"$tmp/tc-bad.json"
expect tc_valid 0 'valid \(warehouse acme, 1 table' '' -- table-config validate "$tmp/tc.json"
expect tc_invalid 2 '' 'min_input_files' -- table-config validate "$tmp/tc-bad.json"
expect tc_wrong_warehouse 3 '' 'globex' -- table-config validate --warehouse globex "$tmp/tc.json"
expect validate_config_alias 0 'valid \(warehouse acme' '' -- validate-config "$tmp/tc.json"
expect validate_config_alias_bad 2 '' 'min_input_files' -- validate-config "$tmp/tc-bad.json"
expect tc_summary 0 'min_input_files +3' '' -- table-config summary "$tmp/tc.json" --table db.events

# --- the warehouse check: exit 3 before anything is touched -------------
mkdir -p "$tmp/root/configs/acme"
sed 's/"acme"/"globex"/' "$tmp/tc.json" >"$tmp/root/configs/acme/table-config.json"
before=$(snapshot "$t"; snapshot "$tmp/root")
expect mismatch_maintenance 3 '' 'globex' -- maintenance --warehouse acme "$t"
expect mismatch_db_alias 3 '' 'globex' -- maintenance --db acme "$t"
expect mismatch_single_verb 3 '' 'globex' -- expire --warehouse acme "$t"
expect mismatch_explicit 3 '' 'globex' -- maintenance --warehouse acme --table-config "$tmp/root/configs/acme/table-config.json" "$t"
after=$(snapshot "$t"; snapshot "$tmp/root")
if [ "$before" = "$after" ]; then ok mismatch_touched_nothing
else bad mismatch_touched_nothing "files changed"; fi
rm -rf "$tmp/root/configs"

# --- --dry-run changes nothing ------------------------------------------
d1=$tmp/dry-a d2=$tmp/dry-b
copy impala-v2-eq-delete "$d1"
copy impala-v2-pos-partitioned "$d2"
before=$(snapshot "$d1"; snapshot "$d2")
expect dry_maintenance 0 'dry run -- nothing changed' '' -- maintenance --dry-run "$d1" "$d2"
grep -q 'would rewrite' "$out" && ok dry_counts_compact || bad dry_counts_compact "no plan"
grep -q 'would delete [1-9]' "$out" && ok dry_counts_expire || bad dry_counts_expire "no count"
for v in compact apply-properties remove-dangling-deletes rewrite-manifests \
         expire remove-orphans; do
    expect "dry_$v" 0 'dry run -- nothing changed' '' -- "$v" --dry-run "$d1"
done
expect dry_yes_accepted 0 'dry run' '' -- expire --dry-run --yes "$d2"
after=$(snapshot "$d1"; snapshot "$d2")
if [ "$before" = "$after" ]; then ok dry_run_changed_nothing
else bad dry_run_changed_nothing "$(diff <(echo "$before") <(echo "$after") | head -5)"; fi

# --- maintenance: order, isolation, worst exit --------------------------
# bad1: a referenced data file is missing: compaction cannot read it (1)
#       and remove-orphans aborts (4). bad2: a manifest target property
#       that is not a size: rewrite-manifests aborts (4, in a dry run so
#       that the manifests are there to rewrite) and the rest of the table
#       is skipped. good: maintained all the same, after both.
b1=$tmp/a-bad1 b2=$tmp/b-bad2 g=$tmp/c-good
copy impala-v2-eq-delete "$b1"
copy impala-v2-pos-some-files "$b2"
copy impala-v2-pos-delete "$g"
victim=$(find "$b1/data" -name '*.parq*' | LC_ALL=C sort | head -1)
rm -f "$victim"
sed -i 's/"properties" : {/"properties" : { "write.manifest.target-size-bytes" : "abc",/' "$b2/metadata/v7.metadata.json"
"$zb" maintenance "$b1" "$g" >"$out" 2>"$err"
got=$?
[ $got -eq 4 ] && ok worst_exit_is_4 || bad worst_exit_is_4 "exit $got"
grep -qE "^  remove-orphans: .*unreferenced" "$err" && ok orphans_aborted_report || bad orphans_aborted_report "no report on stderr"
grep -q "$b1 remove-orphans (exit 4)" "$err" && ok failed_list_orphans || bad failed_list_orphans "no failed line"
grep -q "$b1 compact (exit 1)" "$err" && ok failed_list_compact || bad failed_list_compact "no failed line"
grep -q "^$g\$" "$out" && grep -qE "^  remove-orphans: scanned" "$out" && ok next_table_maintained || bad next_table_maintained "good table not run"
# the order, read from the good table's section
order=$(sed -n "\|^$g\$|,\$p" "$out" | grep -oE '^  [a-z-]+:' | tr -d ' :' | tr '\n' ' ')
want="compact apply-properties remove-dangling-deletes rewrite-manifests expire remove-orphans "
[ "$order" = "$want" ] && ok maintenance_order || bad maintenance_order "got '$order'"

# --json: one document, the same verdicts
copy impala-v2-pos-delete "$g"
"$zb" maintenance --json --status --dry-run "$b1" "$g" >"$out" 2>"$err"
got=$?
[ $got -eq 4 ] && ok json_exit_4 || bad json_exit_4 "exit $got"
live=$("$zb" scan --count "$g" 2>/dev/null)
if command -v node >/dev/null; then
    LIVE=$live node -e '
      const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      const ops = d.tables[1].operations.map(o => o.operation).join(" ");
      if (d.exit !== 4 || d.tables.length !== 2 || d.tables[0].exit !== 4 ||
          d.tables[1].exit !== 0 || !d.status || d.status.before.length !== 2 ||
          ops !== "compact apply-properties remove-dangling-deletes rewrite-manifests expire remove-orphans" ||
          String(d.status.before[1].live_rows) !== process.env.LIVE ||
          d.status.after[1].live_rows !== d.status.before[1].live_rows)
        process.exit(1);' "$out" && ok json_document || bad json_document "unexpected document"
fi
[ "$(tail -c 2 "$out" | head -c 1)" = "}" ] && ok json_only_document || bad json_only_document "not one document"

copy impala-v2-pos-delete "$g"
"$zb" maintenance --dry-run "$b2" "$g" >"$out" 2>"$err"
got=$?
[ $got -eq 4 ] && ok abort_exit_4 || bad abort_exit_4 "exit $got"
grep -q "stopping this table: rewrite-manifests aborted" "$err" && ok abort_stops_table || bad abort_stops_table "no stop line"
sed -n "\|^$b2\$|,\|^$g\$|p" "$out" | grep -qE '^  (expire|remove-orphans):' && bad abort_skips_rest "ran after the abort" || ok abort_skips_rest
sed -n "\|^$g\$|,\$p" "$out" | grep -qE '^  remove-orphans: scanned' && ok abort_next_table_runs || bad abort_next_table_runs "next table not run"

# profile subset: the order stays the fixed one
cat >"$tmp/cwd/zamboni.yml" <<'EOF'
operations: [remove-orphans, expire, apply-properties]
EOF
copy impala-v2-pos-delete "$g"
"$zb" maintenance --dry-run "$g" >"$out" 2>"$err"
order=$(grep -oE '^  [a-z-]+:' "$out" | tr -d ' :' | tr '\n' ' ')
[ "$order" = "apply-properties expire remove-orphans " ] && ok profile_subset_order || bad profile_subset_order "got '$order'"
# the profile's tables: when no TABLE is given
cat >"$tmp/cwd/zamboni.yml" <<EOF
tables: ["$g"]
EOF
"$zb" maintenance --dry-run >"$out" 2>"$err"
got=$?
[ $got -eq 0 ] && grep -qx "$g" "$out" && ok profile_tables || bad profile_tables "exit $got"
rm -f "$tmp/cwd/zamboni.yml"

# config disables an operation
cat >"$tmp/tc2.json" <<EOF
{"version": 2, "warehouse": "acme", "defaults": {"retention": {
  "expire_snapshots": {"enabled": false},
  "remove_orphan_files": {"enabled": false}}}}
EOF
expect config_disabled 0 'expire: disabled in the config \(retention.expire_snapshots.enabled\)' '' -- maintenance --dry-run --table-config "$tmp/tc2.json" "$g"
expect config_disabled_verb 0 'expire_snapshots is disabled in the table config' '' -- expire --table-config "$tmp/tc2.json" "$g"

# --sort-by: the rewritten table's rows come out in that order
s1=$tmp/sorted
copy impala-v2-pos-delete "$s1"
expect sort_by_compacts 0 'rewrote 1 file' '' -- compact --sort-by "id desc" "$s1"
if [ -x "$zb" ] && "$zb" scan "$s1" >"$out" 2>"$err"; then
    ids=$(grep -oE '"id":[0-9]+' "$out" | cut -d: -f2 | tr '\n' ' ')
    [ "$ids" = "$(echo "$ids" | tr ' ' '\n' | grep . | sort -rn | tr '\n' ' ')" ] && ok sort_by_order || bad sort_by_order "ids '$ids'"
fi

# describe and plan on a fixture copy
expect describe 0 'live data files : [0-9]+' '' -- describe "$g"
expect describe_deletes 0 'delete files    : 1 position, 0 equality' '' -- describe "$g"
expect plan 0 'group\(s\), [0-9]+ file\(s\), target 134217728 bytes' '' -- plan "$g"
expect plan_target_flag 0 'target 1000 bytes' '' -- plan --target-file-size-bytes 1000 "$g"
expect describe_missing 1 '' 'describe: /nonexistent' -- describe /nonexistent/t
# the settings lines: each value with where it came from
expect describe_target_default 0 'settings        : target_file_size_bytes 134217728 \(default\)' '' -- describe "$g"
expect plan_target_origin_flag 0 'target_file_size_bytes 1000 \(flag --target-file-size-bytes\)' '' -- plan --target-file-size-bytes 1000 "$g"
# a property that is not a byte count ("128MB") is named and passed over,
# as compaction passes it over: describe once read it as 128 bytes
m=$tmp/malformed
copy impala-v2-pos-delete "$m"
for f in "$m"/metadata/*.metadata.json; do
    sed -i 's/"properties" : {/"properties" : { "write.target-file-size-bytes" : "128MB",/' "$f"
done
expect describe_malformed_target 0 'target_file_size_bytes 134217728 \(default; table property write.target-file-size-bytes="128MB" ignored' '' -- describe "$m"
expect plan_malformed_target 0 'target 134217728 bytes' '' -- plan "$m"
for f in "$m"/metadata/*.metadata.json; do
    sed -i 's/"write.target-file-size-bytes" : "128MB"/"write.target-file-size-bytes" : "5000"/' "$f"
done
expect describe_property_target 0 'target_file_size_bytes 5000 \(table property write.target-file-size-bytes\)' '' -- describe "$m"
expect maintenance_verbose_settings 0 'orphan_older_than_ms 432000000 \(flag --older-than-days\)' '' -- maintenance --verbose --dry-run --older-than-days 5 "$m"

harness_done

#!/usr/bin/env bash
# A moved table maintained through --remap, and `zamboni demo` without a
# folder. The demo is written under $ZAMBONI_ROOT (the original), copied
# whole (the copy's metadata and catalog still name the original's
# paths); then describe, plan, compact and expire on the copy, by folder
# and through the copied catalog, with scan --remap giving the same rows
# before and after; nothing under the original changes (every file's
# checksum); every verb that reads a table takes --remap, --uri and
# --warehouse with one help text, and names --remap in a usage error; a
# moved table whose write.data.path stays outside its new location is
# refused (exit 3), nothing written.
# Usage: cli_remap.sh PATH/TO/zamboni FIXTURES_DIR
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

readers="scan describe plan doctor add-files maintenance compact
apply-properties remove-dangling-deletes rewrite-manifests expire
remove-orphans"

# --- the same table-addressing flags, one help text ---------------------
"$zb" scan --help >"$tmp/help_scan" 2>&1
for f in --remap --uri --warehouse; do
    sed -n "/^  $f /,/^  --/p" "$tmp/help_scan" | sed '$d' >"$tmp/want$f"
    [ -s "$tmp/want$f" ] && ok "scan_help_has_$f" || bad "scan_help_has_$f" "no block"
done
grep -q 'NEW location' "$tmp/want--remap" && ok remap_help_says_where_files_go || bad remap_help_says_where_files_go "no word on new files"
grep -q 'keep OLD' "$tmp/want--remap" && ok remap_help_says_metadata_paths || bad remap_help_says_metadata_paths "no word on metadata paths"
for v in $readers; do
    "$zb" "$v" --help >"$tmp/help" 2>&1
    for f in --remap --uri --warehouse; do
        sed -n "/^  $f /,/^  --/p" "$tmp/help" | sed '$d' >"$tmp/got"
        cmp -s "$tmp/got" "$tmp/want$f" && ok "help_${v}_$f" || bad "help_${v}_$f" "$(diff "$tmp/want$f" "$tmp/got" | head -3)"
    done
done

# --- a bad --remap value: a usage error naming the flag -----------------
t=$tmp/t-pos
copy impala-v2-pos-delete "$t"
before_t=$(snapshot "$t")
for v in $readers; do
    expect "bad_remap_$v" 2 '' "invalid value 'nope' for --remap" -- "$v" "$t" --remap nope
    expect "empty_new_$v" 2 '' "invalid value '/a=' for --remap" -- "$v" "$t" --remap /a=
done
expect remap_needs_value 2 '' "option '--remap' needs a value" -- compact "$t" --remap
[ "$before_t" = "$(snapshot "$t")" ] && ok bad_remap_touched_nothing || bad bad_remap_touched_nothing "changed"

# --- zamboni demo without a folder writes under $ZAMBONI_ROOT -----------
orig=$ZAMBONI_ROOT
expect demo_in_root 0 "demo warehouse ready in $orig" '' -- demo
for f in .zamboni-demo catalog.db zamboni.yml configs/demo/table-config.json; do
    [ -f "$orig/$f" ] && ok "demo_root_has_$f" || bad "demo_root_has_$f" "missing"
done
[ -d "$orig/warehouses/demo/demo/events/metadata" ] && ok demo_root_tables || bad demo_root_tables "no events table"
[ ! -e "$tmp/cwd/zamboni-demo" ] && ok demo_not_in_cwd || bad demo_not_in_cwd "./zamboni-demo made"
expect demo_help_root 0 'ZAMBONI_ROOT' '' -- demo --help

# --- the copy, maintained through --remap -------------------------------
cp_=$tmp/copy
cp -a "$orig" "$cp_"
snap_orig=$(snapshot "$orig")
remap="--remap $orig=$cp_"
ev=$cp_/warehouses/demo/demo/events
rows() { "$zb" scan "$@" 2>"$err" | LC_ALL=C sort; }

# by folder
rows_before=$(rows "$ev" $remap)
[ -n "$rows_before" ] && ok folder_scan || bad folder_scan "no rows"
expect folder_describe 0 'live data files : 240 ' '' -- describe "$ev" $remap
expect folder_plan 0 '3 group\(s\), 240 file\(s\)' '' -- plan "$ev" $remap
expect folder_compact 0 'rewrote 240 file\(s\)' '' -- compact "$ev" $remap
expect folder_expire 0 'expired [0-9]+ snapshot' '' -- expire "$ev" $remap
expect folder_describe_after 0 'live data files : 3 ' '' -- describe "$ev" $remap
rows_after=$(rows "$ev" $remap)
[ "$rows_before" = "$rows_after" ] && ok folder_same_rows || bad folder_same_rows "rows changed"
n_new=$(find "$ev/data" -newer "$cp_/catalog.db" -name '*.parquet' | wc -l)
[ "$n_new" -eq 3 ] && ok folder_new_files_in_copy || bad folder_new_files_in_copy "$n_new new data files in the copy"

# through the copied catalog: its rows still name the original's paths
cat_flags="--uri sqlite:$cp_/catalog.db --warehouse demo $remap"
rows_before=$(rows demo.users $cat_flags)
[ -n "$rows_before" ] && ok catalog_scan || bad catalog_scan "no rows: $(head -2 "$err")"
expect catalog_describe 0 'equality' '' -- describe demo.users $cat_flags
expect catalog_plan 0 'group\(s\)' '' -- plan demo.users $cat_flags
expect catalog_compact 0 'rewrote [0-9]+ file' '' -- compact demo.users $cat_flags
expect catalog_expire 0 'expired [0-9]+ snapshot' '' -- expire demo.users $cat_flags
rows_after=$(rows demo.users $cat_flags)
[ "$rows_before" = "$rows_after" ] && ok catalog_same_rows || bad catalog_same_rows "rows changed"
if command -v sqlite3 >/dev/null; then
    loc=$(sqlite3 "$cp_/catalog.db" "select metadata_location from iceberg_tables where table_name = 'users'")
    case $loc in "$cp_"/*) ok catalog_points_into_copy ;; *) bad catalog_points_into_copy "$loc" ;; esac
fi

[ "$snap_orig" = "$(snapshot "$orig")" ] && ok original_unchanged || bad original_unchanged "$(diff <(echo "$snap_orig") <(snapshot "$orig") | head -4)"

# --- a moved table whose write.data.path stays outside: refused ---------
m=$tmp/moved
copy impala-v2-pos-delete "$m"
sed -i 's#"owner" *: *"tamasmate"#"owner" : "tamasmate", "write.data.path" : "/elsewhere/data"#' "$m/metadata/v2.metadata.json"
grep -q '"write.data.path"' "$m/metadata/v2.metadata.json" && ok moved_prepared || bad moved_prepared "no property set"
before_m=$(snapshot "$m")
expect moved_outside_refused 3 '' 'write.data.path /elsewhere/data lies outside' -- compact "$m"
expect moved_remap_accepted 0 'rewrote 1 file' '' -- compact "$m" --remap "/elsewhere=$m"
[ -n "$(find "$m/data" -newer "$m/metadata/v2.metadata.json" -type f)" ] && ok moved_written_inside || bad moved_written_inside "no new data file under the folder"
[ ! -e /elsewhere ] && ok moved_nothing_outside || bad moved_nothing_outside "/elsewhere exists"
[ "$before_m" != "$(snapshot "$m")" ] && ok moved_committed || bad moved_committed "nothing changed"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

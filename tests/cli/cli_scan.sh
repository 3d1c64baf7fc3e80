#!/usr/bin/env bash
# `zamboni scan`: usage errors and exit codes, a few fixture facts, file:
# URIs, a copied table folder, and truncated or corrupt files (a clear
# message naming the file and exit 1, never a crash).
# Usage: cli_scan.sh PATH/TO/zamboni FIXTURES_DIR
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

t=$fx/impala-v2-pos-delete
expect help 0 '^Usage: zamboni scan' '' -- scan --help
expect help_via_help 0 '^Usage: zamboni scan' '' -- help scan
expect help_lists_scan 0 'scan +print a table' '' -- --help
expect no_table 2 '' 'missing TABLE' -- scan
expect two_tables 2 '' "unexpected argument 'b'" -- scan a b
expect bad_format 2 '' "invalid value 'xml' for --format" -- scan --format xml "$t"
expect format_no_value 2 '' "option '--format' needs a value" -- scan "$t" --format
expect snapshot_no_value 2 '' "option '--snapshot' needs a value" -- scan "$t" --snapshot
expect snapshot_not_number 2 '' "invalid snapshot id '12x'" -- scan --snapshot 12x "$t"
expect remap_no_equals 2 '' "invalid value 'abc' for --remap" -- scan --remap abc "$t"
expect remap_empty_old 2 '' "invalid value '=/x' for --remap" -- scan --remap =/x "$t"
expect remap_empty_new 2 '' "invalid value '/x=' for --remap" -- scan --remap /x= "$t"
expect unknown_option 2 '' "unknown option '--bogus'" -- scan --bogus "$t"
expect catalog_without_database 1 '' "db.events: no catalog database at $tmp/root/catalog.db" -- scan db.events
expect catalog_bad_uri 2 '' "uri 'ftp://x' \\(--uri\\) names no catalog" -- scan --uri ftp://x db.events
expect catalog_secret_flag 2 '' '--token was removed' -- scan --token abc db.events
expect catalog_flag_no_value 2 '' "option '--uri' needs a value" -- scan db.events --uri
expect missing_folder 1 '' "$tmp/nope" -- scan "$tmp/nope"
expect unknown_snapshot 1 '' 'no snapshot 12345 in .*metadata' -- scan --snapshot 12345 "$t"

# Fixture facts (fixtures/README.md): 3 rows, 1 deleted by position.
expect count 0 '^2$' '' -- scan --count "$t"
expect jsonl_row1 0 '^\{"id":1,"data":"a"\}$' '' -- scan "$t"
expect jsonl_row3 0 '^\{"id":3,"data":"c"\}$' '' -- scan "$t"
expect csv_header 0 $'^id,data\r$' '' -- scan --format csv "$t"
expect csv_row 0 $'^3,c\r$' '' -- scan --format csv "$t"
expect all_deleted 0 '^0$' '' -- scan --count "$fx/impala-v2-pos-delete-all"
expect lineitem_count 0 '^17886$' '' -- scan --count "$fx/impala-lineitem-multiblock"
expect snapshot_older 0 '^3$' '' -- scan --count --snapshot 6816997371555012807 "$t"
expect snapshot_equals_form 0 '^3$' '' -- scan --count --snapshot=6816997371555012807 "$t"
expect file_uri 0 '^2$' '' -- scan --count "file://$t"
expect file_uri_hadoop_form 0 '^2$' '' -- scan --count "file:$t"
expect trailing_slash 0 '^2$' '' -- scan --count "$t/"
expect double_dash 0 '^2$' '' -- scan --count -- "$t"

# A copied folder reads in place: its recorded location resolves into it.
cp -r "$t" "$tmp/copied"
expect copied_folder 0 '^2$' '' -- scan --count "$tmp/copied"
# A folder name with a dot is still a folder when it exists.
cp -r "$t" "$tmp/db.copied"
(cd "$tmp" && run scan --count db.copied)
if [ $? -eq 0 ] && grep -q '^2$' "$out"; then
    ok dotted_folder
else
    bad dotted_folder "exit or count"
fi

# namespace.table in the default SQLite catalog ($ZAMBONI_ROOT/catalog.db,
# Iceberg's JDBC catalog tables), made here with the sqlite3 shell.
if command -v sqlite3 >/dev/null; then
    cp -r "$t" "$tmp/root/events"
    sqlite3 "$tmp/root/catalog.db" "
      CREATE TABLE iceberg_tables (catalog_name VARCHAR(255) NOT NULL,
        table_namespace VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT NULL,
        metadata_location VARCHAR(1000), previous_metadata_location VARCHAR(1000),
        iceberg_type VARCHAR(5),
        PRIMARY KEY (catalog_name, table_namespace, table_name));
      CREATE TABLE iceberg_namespace_properties (catalog_name VARCHAR(255) NOT NULL,
        namespace VARCHAR(255) NOT NULL, property_key VARCHAR(255),
        property_value VARCHAR(1000),
        PRIMARY KEY (catalog_name, namespace, property_key));
      INSERT INTO iceberg_tables VALUES ('zamboni', 'db', 'events',
        '$tmp/root/events/metadata/v2.metadata.json', NULL, 'TABLE');"
    loc=/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_v2_delete_positional
    expect catalog_table 0 '^\{"id":3,"data":"c"\}$' '' -- scan --remap "$loc=$tmp/root/events" db.events
    expect catalog_table_count 0 '^2$' '' -- scan --count --remap "$loc=$tmp/root/events" db.events
    expect catalog_table_location_unmapped 1 '' "$loc/metadata/snap-" -- scan db.events
    expect catalog_unknown_table 1 '' 'catalog zamboni \(sqlite\): table db.nope not found' -- scan db.nope
    expect catalog_other_warehouse 1 '' 'table db.events not found in warehouse other' -- scan --warehouse other db.events
else
    echo "SKIP catalog_table: the sqlite3 shell is not installed (needed to make the catalog)"
fi

# Corrupt and truncated files: exit 1 and the file named, never a crash.
cp -r "$t" "$tmp/badmeta"
for m in "$tmp"/badmeta/metadata/*.metadata.json; do head -c 100 "$m" >"$m.tmp" && mv "$m.tmp" "$m"; done
expect truncated_metadata 1 '' 'metadata\.json' -- scan "$tmp/badmeta"
cp -r "$t" "$tmp/baddata"
for d in $(find "$tmp/baddata" -name '*.parq*' -path '*data*' ! -name '*delete*'); do
    head -c 200 "$d" >"$d.tmp" && mv "$d.tmp" "$d"
done
expect truncated_data 1 '' 'baddata/.*\.parq' -- scan "$tmp/baddata"
cp -r "$t" "$tmp/badlist"
for l in "$tmp"/badlist/metadata/snap-*.avro; do head -c 50 "$l" >"$l.tmp" && mv "$l.tmp" "$l"; done
expect truncated_manifest_list 1 '' 'snap-.*\.avro' -- scan "$tmp/badlist"

harness_done

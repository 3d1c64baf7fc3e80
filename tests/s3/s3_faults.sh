#!/usr/bin/env bash
# Maintenance of tables on S3 through the fault proxy, one round per
# fault: a share of 500 and 503 SlowDown replies, connections reset mid-
# body, bodies cut short, replies slower than usual, DeleteObjects
# answering per-key errors. Each round has its own copies of two fixture
# tables (20 small files to compact; 6 snapshots to expire), uploaded with
# the independent client and registered in a SQLite catalog (tables on S3
# commit through a catalog), read and written as moved tables are, with
# --remap from their recorded location to the bucket. In every round:
#   - `zamboni maintenance --json` (compact, apply-properties,
#     remove-dangling-deletes, rewrite-manifests, expire, remove-orphans)
#     and `zamboni scan` either complete (exit 0) or fail with exit 1 and
#     a message naming the store (s3://...); never a crash;
#   - afterwards, without faults, the live rows are unchanged: `zamboni
#     scan` straight to the server, and DuckDB + hyparquet on the objects
#     fetched with the independent client (s3_rows.mjs);
#   - no partial or temporary object (s3_whole.mjs);
#   - the proxy counted every multipart upload initiated as completed or
#     aborted;
#   - nothing reported deleted still exists: no key the proxy passed on
#     for deletion is listed, every key it refused is, and the files
#     maintenance reports deleted are no more than the keys it really
#     deleted.
# Usage: s3_faults.sh PATH/TO/zamboni FIXTURES_DIR  (node: $ZB_NODE)
set -o pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../cli/harness.sh"
. "$here/s3_harness.sh"

bucket=zb-faults
s3_start "$bucket"
proxy_start --seed 16
db=$tmp/catalog.db
sqlite3 "$db" "
  CREATE TABLE iceberg_tables (catalog_name VARCHAR(255) NOT NULL,
    table_namespace VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT NULL,
    metadata_location VARCHAR(1000), previous_metadata_location VARCHAR(1000),
    iceberg_type VARCHAR(5),
    PRIMARY KEY (catalog_name, table_namespace, table_name));
  CREATE TABLE iceberg_namespace_properties (catalog_name VARCHAR(255) NOT NULL,
    namespace VARCHAR(255) NOT NULL, property_key VARCHAR(255),
    property_value VARCHAR(1000),
    PRIMARY KEY (catalog_name, namespace, property_key));" || { echo "FAIL sqlite3"; exit 1; }
export ZAMBONI_URI=sqlite:$db

# name fixture location latest-metadata
tables="np impala-v1-non-partitioned /test-warehouse/iceberg_test/iceberg_non_partitioned v2.metadata.json
ps impala-v2-pos-some-files /test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_v2_positional_not_all_data_files_have_delete_files v7.metadata.json"

current() { sqlite3 "$db" "select metadata_location from iceberg_tables where catalog_name='$1' and table_name='$2'"; }

# round NAME FAULTS_JSON
round() {
    local w=$1 faults=$2 prefix=s3://$bucket/$1 name fixture location meta remaps=() rc
    while read -r name fixture location meta; do
        s3_put "$fx/$fixture" "$prefix/$name" || { bad "${w}_upload_$name" "s3_put failed"; return; }
        sqlite3 "$db" "INSERT INTO iceberg_tables VALUES ('$w', 'db', '$name', '$prefix/$name/metadata/$meta', NULL, 'TABLE')"
        remaps+=(--remap "$location=$prefix/$name")
    done <<<"$tables"
    export ZAMBONI_WAREHOUSE=$w
    # before: zamboni and the independent readers
    use_direct
    for name in np ps; do
        "$zb" scan "db.$name" "${remaps[@]}" 2>"$err" | LC_ALL=C sort >"$tmp/$w-$name.before" || bad "${w}_scan_before_$name" "$(head -2 "$err")"
        independent "$w" "$name" before
    done

    proxy_reset
    proxy_faults "$faults" || { bad "${w}_set_faults" "$faults"; return; }
    use_proxy
    run maintenance db.np db.ps --json "${remaps[@]}" --older-than-days 0 --force --max-snapshot-age-days 0 --min-snapshots-to-keep 1
    rc=$?
    cp "$out" "$tmp/$w.json"; cp "$err" "$tmp/$w.err"
    verdict "${w}_maintenance" "$rc"
    for name in np ps; do
        run scan "db.$name" "${remaps[@]}"
        rc=$?
        verdict "${w}_scan_$name" "$rc"
        if [ "$rc" -eq 0 ]; then
            LC_ALL=C sort "$out" | cmp -s - "$tmp/$w-$name.before" && ok "${w}_scan_rows_$name" || bad "${w}_scan_rows_$name" "rows differ under faults"
        fi
    done
    proxy_stats >"$tmp/$w.stats"
    proxy_faults '{}'
    use_direct
    echo "     $w: exit $(jq -r '[.tables[]?.operations[]? | "\(.operation)=\(.exit)"] | join(" ")' "$tmp/$w.json" 2>/dev/null), faults $(jq -c .faults.byKind "$tmp/$w.stats"), $(jq .requests.total "$tmp/$w.stats") requests"

    # after, without faults
    for name in np ps; do
        "$zb" scan "db.$name" "${remaps[@]}" 2>"$err" | LC_ALL=C sort >"$tmp/$w-$name.after"
        [ -s "$tmp/$w-$name.before" ] && cmp -s "$tmp/$w-$name.before" "$tmp/$w-$name.after" &&
            ok "${w}_rows_unchanged_$name" || bad "${w}_rows_unchanged_$name" "$(diff "$tmp/$w-$name.before" "$tmp/$w-$name.after" | head -4; head -3 "$err")"
        independent "$w" "$name" after
        cmp -s "$tmp/$w-$name.before.ind" "$tmp/$w-$name.after.ind" &&
            ok "${w}_independent_rows_unchanged_$name" || bad "${w}_independent_rows_unchanged_$name" "$(diff "$tmp/$w-$name.before.ind" "$tmp/$w-$name.after.ind" | head -4)"
    done
    if ZAMBONI_S3_ENDPOINT=$s3_url "$node" "$s3_here/s3_whole.mjs" "$prefix" >"$tmp/$w.whole" 2>&1; then
        ok "${w}_no_partial_object"
    else
        bad "${w}_no_partial_object" "$(head -4 "$tmp/$w.whole")"
    fi
    jq -e '.multipart.initiated == .multipart.completed + .multipart.aborted and (.multipart.open | length) == 0' "$tmp/$w.stats" >/dev/null &&
        ok "${w}_no_multipart_open" || bad "${w}_no_multipart_open" "$(jq -c .multipart "$tmp/$w.stats")"
    s3_list "$prefix" | awk '{print $2}' | LC_ALL=C sort >"$tmp/$w.listed"
    jq -r '.deletedKeys[]' "$tmp/$w.stats" | LC_ALL=C sort -u >"$tmp/$w.deleted"
    jq -r '.deleteErrors[]' "$tmp/$w.stats" | LC_ALL=C sort -u >"$tmp/$w.refused"
    local still missing reported gone
    still=$(comm -12 "$tmp/$w.deleted" "$tmp/$w.listed" | head -3)
    [ -z "$still" ] && ok "${w}_deleted_keys_gone" || bad "${w}_deleted_keys_gone" "$still"
    # A round with per-key errors must reach DeleteObjects (the issue:
    # deletes go in batches of up to 1,000 keys).
    if jq -e '.deleteErrorRate // 0 | . > 0' <<<"$faults" >/dev/null; then
        [ "$(jq '.requests.byOp.DeleteObjects // 0' "$tmp/$w.stats")" -gt 0 ] && [ -s "$tmp/$w.refused" ] &&
            ok "${w}_deletes_batched" || bad "${w}_deletes_batched" "no DeleteObjects request ($(jq -c .requests.byOp "$tmp/$w.stats"))"
    fi
    # a refused key may go later, by a delete the proxy passed on (the
    # file expire could not delete is an orphan for remove-orphans)
    missing=$(comm -23 "$tmp/$w.refused" "$tmp/$w.listed" | comm -23 - "$tmp/$w.deleted" | head -3)
    [ -z "$missing" ] && ok "${w}_refused_keys_kept_$(wc -l <"$tmp/$w.refused")" || bad "${w}_refused_keys_kept" "$missing"
    reported=$(jq -r '.tables[]?.operations[]? | select(.operation == "expire" or .operation == "remove-orphans") | .report[]?' "$tmp/$w.json" 2>/dev/null |
        sed -n 's/.*deleted \([0-9][0-9]*\) \(old metadata \)\{0,1\}file(s).*/\1/p' | awk '{s += $1} END {print s + 0}')
    gone=$(comm -23 "$tmp/$w.deleted" "$tmp/$w.listed" | wc -l)
    [ "$reported" -le "$gone" ] && ok "${w}_reported_deleted_${reported}_of_$gone" || bad "${w}_reported_deleted" "maintenance reports $reported deleted, only $gone keys are gone"
}

# verdict NAME EXIT: 0, or 1 with a message naming the store; else a failure.
verdict() {
    if [ "$2" -eq 0 ]; then
        ok "$1_completed"
    elif [ "$2" -eq 1 ] && grep -qE 's3://|S3' "$err" "$out"; then
        ok "$1_failed_clearly"
    else
        bad "$1" "exit $2 (want 0, or 1 naming the store): $(grep -hiE 'abort|error|fail' "$err" "$out" | grep -v '"exit"' | head -3)"
    fi
}

# independent ROUND TABLE TAG: DuckDB + hyparquet rows into ROUND-TABLE.TAG.ind
independent() {
    local w=$1 name=$2 tag=$3 dl=$tmp/dl-$1-$2-$3 m loc
    m=$(current "$w" "$name")
    loc=$(echo "$tables" | awk -v n="$name" '$1 == n {print $3}')
    s3_get "s3://$bucket/$w/$name" "$dl" || { bad "${w}_fetch_${name}_$tag" "s3_get failed"; return; }
    if "$node" "$s3_here/s3_rows.mjs" --metadata "$dl/${m#"s3://$bucket/$w/$name/"}" --remap "$loc=$dl" \
        --remap "s3://$bucket/$w/$name=$dl" "$dl" >"$tmp/$w-$name.$tag.ind" 2>"$tmp/$w-$name.$tag.inderr"; then
        ok "${w}_duckdb_hyparquet_${tag}_$name"
    else
        bad "${w}_duckdb_hyparquet_${tag}_$name" "$(head -3 "$tmp/$w-$name.$tag.inderr")"
    fi
}

round errors '{"rate":0.2,"kinds":["500","503slowdown"]}'
round resets '{"rate":0.1,"kinds":["reset"]}'
round short '{"rate":0.1,"kinds":["short"],"methods":["GET"]}'
round slow '{"rate":0.05,"kinds":["slow"],"slowMs":1500}'
round deletes '{"deleteErrorRate":0.3}'
round mixed '{"rate":0.15,"kinds":["500","503slowdown","reset","short"],"deleteErrorRate":0.2}'

harness_done s3_faults

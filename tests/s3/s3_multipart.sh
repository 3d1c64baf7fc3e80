#!/usr/bin/env bash
# Multipart uploads from the command line, through the fault proxy: the
# threshold setting (--s3-multipart-threshold-bytes, then
# ZAMBONI_S3_MULTIPART_THRESHOLD_BYTES, then s3_multipart_threshold_bytes:
# in zamboni.yml) decides which files of a compaction go in parts, and
# faults during the parts never leave an upload open. Each round compacts
# its own copy of a fixture table (20 small files), registered in a SQLite
# catalog and read with --remap:
#   default    the default threshold (16 MiB): no multipart upload
#   flag, env, profile
#              a threshold of 1 byte from each source (the flag over a
#              zamboni.yml that says 16 MiB): every file written goes in
#              parts, each upload completed
#   faults     500, 503 SlowDown, resets and cut bodies on a share of
#              UploadPart and CompleteMultipartUpload: exit 0, or 1 naming
#              the store
#   lostreply  the reply of the first CompleteMultipartUpload is lost; its
#              retry meets NoSuchUpload (as S3 answers), and the object
#              there, with our parts' ETag, is taken as done: exit 0
# In every round: rows unchanged (zamboni scan and the independent
# readers, DuckDB and hyparquet, on the objects), no partial object, and
# the proxy saw every upload initiated completed or aborted, none open.
# Usage: s3_multipart.sh PATH/TO/zamboni FIXTURES_DIR  (node: $ZB_NODE)
set -o pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../cli/harness.sh"
. "$here/s3_harness.sh"

bucket=zb-multipart
s3_start "$bucket"
proxy_start --seed 3
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
fixture=impala-v1-non-partitioned
location=/test-warehouse/iceberg_test/iceberg_non_partitioned
current() { sqlite3 "$db" "select metadata_location from iceberg_tables where catalog_name='$1'"; }

# round NAME WANT (0: exit 0; 01: 0 or 1 naming the store) FAULTS_JSON
#       MULTIPART (yes|no) [ZAMBONI ARGS...]
round() {
    local w=$1 want=$2 faults=$3 multipart=$4 prefix=s3://$bucket/$1 rc
    shift 4
    s3_put "$fx/$fixture" "$prefix/t" || { bad "${w}_upload" "s3_put failed"; return; }
    sqlite3 "$db" "INSERT INTO iceberg_tables VALUES ('$w', 'db', 't', '$prefix/t/metadata/v2.metadata.json', NULL, 'TABLE')"
    export ZAMBONI_WAREHOUSE=$w
    remap=(--remap "$location=$prefix/t")
    use_direct
    "$zb" scan db.t "${remap[@]}" 2>"$err" | LC_ALL=C sort >"$tmp/$w.before" || bad "${w}_scan_before" "$(head -2 "$err")"
    independent "$w" before
    proxy_reset
    proxy_faults "$faults" || { bad "${w}_set_faults" "$faults"; return; }
    use_proxy
    run compact db.t "${remap[@]}" "$@"
    rc=$?
    proxy_stats >"$tmp/$w.stats"
    proxy_faults '{}'
    use_direct
    echo "     $w: exit $rc, multipart $(jq -c .multipart "$tmp/$w.stats"), faults $(jq -c .faults.byKind "$tmp/$w.stats")"
    if [ "$rc" -eq 0 ]; then
        ok "${w}_completed"
        [ "$(current "$w")" != "$prefix/t/metadata/v2.metadata.json" ] &&
            ok "${w}_committed" || bad "${w}_committed" "the catalog still names v2"
    elif [ "$want" = 01 ] && [ "$rc" -eq 1 ] && grep -qE 's3://|S3' "$err" "$out"; then
        ok "${w}_failed_clearly"
    else
        bad "${w}_exit" "exit $rc (want ${want/01/0 or 1})"
    fi
    local n
    n=$(jq '.multipart.initiated' "$tmp/$w.stats")
    if [ "$multipart" = yes ]; then
        [ "$n" -gt 0 ] && ok "${w}_went_multipart_$n" || bad "${w}_went_multipart" "no upload initiated"
    else
        [ "$n" -eq 0 ] && ok "${w}_no_multipart" || bad "${w}_no_multipart" "$n uploads initiated"
    fi
    jq -e '.multipart.initiated == .multipart.completed + .multipart.aborted and (.multipart.open | length) == 0' "$tmp/$w.stats" >/dev/null &&
        ok "${w}_no_upload_open" || bad "${w}_no_upload_open" "$(jq -c .multipart "$tmp/$w.stats")"
    "$zb" scan db.t "${remap[@]}" 2>"$err" | LC_ALL=C sort >"$tmp/$w.after"
    [ -s "$tmp/$w.before" ] && cmp -s "$tmp/$w.before" "$tmp/$w.after" &&
        ok "${w}_rows_unchanged" || bad "${w}_rows_unchanged" "$(diff "$tmp/$w.before" "$tmp/$w.after" | head -4; head -3 "$err")"
    independent "$w" after
    cmp -s "$tmp/$w.before.ind" "$tmp/$w.after.ind" &&
        ok "${w}_independent_rows_unchanged" || bad "${w}_independent_rows_unchanged" "$(diff "$tmp/$w.before.ind" "$tmp/$w.after.ind" | head -4)"
    if ZAMBONI_S3_ENDPOINT=$s3_url "$node" "$s3_here/s3_whole.mjs" "$prefix" >"$tmp/$w.whole" 2>&1; then
        ok "${w}_no_partial_object"
    else
        bad "${w}_no_partial_object" "$(head -4 "$tmp/$w.whole")"
    fi
}

# independent ROUND TAG: DuckDB + hyparquet rows into ROUND.TAG.ind
independent() {
    local w=$1 tag=$2 dl=$tmp/dl-$1-$2 m
    m=$(current "$w")
    s3_get "s3://$bucket/$w/t" "$dl" || { bad "${w}_fetch_$tag" "s3_get failed"; return; }
    if "$node" "$s3_here/s3_rows.mjs" --metadata "$dl/${m#"s3://$bucket/$w/t/"}" --remap "$location=$dl" \
        --remap "s3://$bucket/$w/t=$dl" "$dl" >"$tmp/$w.$tag.ind" 2>"$tmp/$w.$tag.inderr"; then
        ok "${w}_duckdb_hyparquet_$tag"
    else
        bad "${w}_duckdb_hyparquet_$tag" "$(head -3 "$tmp/$w.$tag.inderr")"
    fi
}

parts='["UploadPart","CompleteMultipartUpload"]'
round default 0 '{}' no
round flag 0 '{}' yes --s3-multipart-threshold-bytes 1
ZAMBONI_S3_MULTIPART_THRESHOLD_BYTES=1 round env 0 '{}' yes
printf 's3_multipart_threshold_bytes: 1\n' >zamboni.yml
round profile 0 '{}' yes
# the flag wins over the file
printf 's3_multipart_threshold_bytes: 16777216\n' >zamboni.yml
round flag_over_profile 0 '{}' yes --s3-multipart-threshold-bytes 1
rm -f zamboni.yml
round faults 01 "{\"rate\":0.3,\"kinds\":[\"500\",\"503slowdown\",\"reset\",\"short\"],\"ops\":$parts}" yes \
    --s3-multipart-threshold-bytes 1
round lostreply 0 '{"rate":1,"kinds":["dropreply"],"ops":["CompleteMultipartUpload"],"maxFaults":1}' yes \
    --s3-multipart-threshold-bytes 1
jq -e '.multipart.repeatedCompletes >= 1 and .faults.byKind.dropreply == 1' "$tmp/lostreply.stats" >/dev/null &&
    ok lostreply_complete_sent_again || bad lostreply_complete_sent_again "$(jq -c '{multipart, faults}' "$tmp/lostreply.stats")"

harness_done s3_multipart

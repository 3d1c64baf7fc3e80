#!/usr/bin/env bash
# The demo warehouse on S3, maintained end to end: `zamboni demo DIR
# --location s3://BUCKET/PREFIX` (the catalog in DIR, every table file in
# the bucket, none on disk), then `zamboni maintenance`; the files zamboni
# wrote are fetched back with the independent client (s3_get.mjs) and
# read by DuckDB and hyparquet (s3_rows.mjs: every live file read alike
# by both, the live rows by the spec's rules): the same rows before and
# after, as `zamboni scan` also says; the table's files are compacted
# (fewer live data files), every object in the bucket is a whole file
# (its size is what the independent client downloads) and no multipart
# upload is left open (the run goes through the fault proxy, with no
# faults, to count them).
# Usage: s3_demo.sh PATH/TO/zamboni [FIXTURES_DIR]  (node: $ZB_NODE)
set -o pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../cli/harness.sh"
. "$here/s3_harness.sh"

bucket=zb-demo
loc=s3://$bucket/lake/wh
s3_start "$bucket"
proxy_start
use_proxy
demo=$tmp/demo
export ZAMBONI_ROOT=$demo

expect demo_on_s3 0 'demo warehouse ready' '' -- demo "$demo" --location "$loc"
[ -f "$demo/catalog.db" ] && ok demo_catalog_local || bad demo_catalog_local "no $demo/catalog.db"
n_local=$(find "$demo" -name '*.parquet' -o -name '*.avro' -o -name '*.metadata.json' | wc -l)
[ "$n_local" -eq 0 ] && ok demo_no_table_file_on_disk || bad demo_no_table_file_on_disk "$n_local table files under $demo"
s3_list "$loc" >"$tmp/objects-demo"
n_pq=$(grep -c '\.parquet$' "$tmp/objects-demo")
[ "$n_pq" -gt 100 ] && ok "demo_data_on_s3_$n_pq" || bad demo_data_on_s3 "$n_pq parquet objects under $loc"

current() {
    sqlite3 "$demo/catalog.db" "select metadata_location from iceberg_tables where table_namespace='demo' and table_name='$1'"
}
for t in events users; do
    case $(current "$t") in
        "$loc"/*) ok "catalog_${t}_on_s3" ;;
        *) bad "catalog_${t}_on_s3" "metadata at '$(current "$t")'" ;;
    esac
done

# independent TABLE TAG: the table fetched from S3 and read by DuckDB and
# hyparquet; its live rows in $tmp/TAG-TABLE.rows.
independent() {
    local t=$1 tag=$2 dl=$tmp/dl-$2 m
    rm -rf "$dl"
    s3_get "$loc" "$dl" || { bad "fetch_${tag}_$t" "s3_get failed"; return; }
    m=$(current "$t")
    m=$dl/${m#"$loc"/}
    if "$node" "$s3_here/s3_rows.mjs" --metadata "$m" --remap "$loc=$dl" "$dl" \
        >"$tmp/$tag-$t.rows" 2>"$tmp/$tag-$t.err"; then
        ok "duckdb_hyparquet_${tag}_$t"
    else
        out=$tmp/$tag-$t.rows err=$tmp/$tag-$t.err bad "duckdb_hyparquet_${tag}_$t" "the independent readers failed"
    fi
}
zscan() { "$zb" scan "demo.$1" 2>"$err" | LC_ALL=C sort; }

for t in events users; do
    independent "$t" before
    zscan "$t" >"$tmp/zb-before-$t" || bad "scan_before_$t" "exit $?"
    n=$(wc -l <"$tmp/before-$t.rows")
    [ "$n" -gt 0 ] && [ "$n" -eq "$(wc -l <"$tmp/zb-before-$t")" ] && ok "rows_before_$t" || bad "rows_before_$t" "$n rows by the readers, $(wc -l <"$tmp/zb-before-$t") by zamboni"
done
run describe demo.events
before_files=$(sed -n 's/^ *live data files *: *\([0-9]*\) .*/\1/p' "$out")

proxy_reset
expect maintenance 0 'compact: rewrote' '' -- maintenance --warehouse demo
cp "$out" "$tmp/maintenance.out"
run describe demo.events
after_files=$(sed -n 's/^ *live data files *: *\([0-9]*\) .*/\1/p' "$out")
[ -n "$after_files" ] && [ "$after_files" -lt "$before_files" ] && ok "compacted_${before_files}_to_$after_files" || bad compacted "live data files $before_files -> $after_files"

for t in events users; do
    independent "$t" after
    if [ -s "$tmp/before-$t.rows" ] && cmp -s "$tmp/before-$t.rows" "$tmp/after-$t.rows"; then
        ok "same_rows_independent_$t"
    else
        bad "same_rows_independent_$t" "$(diff "$tmp/before-$t.rows" "$tmp/after-$t.rows" | head -4)"
    fi
    zscan "$t" >"$tmp/zb-after-$t"
    cmp -s "$tmp/zb-before-$t" "$tmp/zb-after-$t" && ok "same_rows_scan_$t" || bad "same_rows_scan_$t" "$(diff "$tmp/zb-before-$t" "$tmp/zb-after-$t" | head -4)"
done

# The files zamboni wrote during maintenance are in the bucket, whole.
s3_list "$loc" >"$tmp/objects-after"
new=$(comm -13 <(awk '{print $2}' "$tmp/objects-demo" | LC_ALL=C sort) <(awk '{print $2}' "$tmp/objects-after" | LC_ALL=C sort) | grep -c '\.parquet$')
[ "$new" -gt 0 ] && ok "maintenance_wrote_${new}_data_files" || bad maintenance_wrote_data_files "no new parquet object"
sizes_ok=1
while read -r size key; do
    f=$tmp/dl-after/${key#"${loc#s3://$bucket/}"/}
    [ -f "$f" ] && [ "$(stat -c %s "$f")" -eq "$size" ] || { sizes_ok=0; echo "     $key: listed $size, fetched $(stat -c %s "$f" 2>/dev/null)"; }
done <"$tmp/objects-after"
[ "$sizes_ok" -eq 1 ] && ok objects_whole || bad objects_whole "sizes differ"
if grep -qvE '\.(parquet|avro|metadata\.json|puffin|text)$' <(awk '{print $2}' "$tmp/objects-after"); then
    bad no_temporary_objects "$(grep -vE '\.(parquet|avro|metadata\.json|puffin|text)$' <(awk '{print $2}' "$tmp/objects-after") | head -3)"
else
    ok no_temporary_objects
fi
proxy_stats >"$tmp/stats.json"
jq -e '.multipart.initiated == .multipart.completed + .multipart.aborted and (.multipart.open | length) == 0' "$tmp/stats.json" >/dev/null &&
    ok "multipart_none_open_$(jq -c .multipart.initiated "$tmp/stats.json")_initiated" || bad multipart_none_open "$(jq -c .multipart "$tmp/stats.json")"
[ "$(jq '.requests.total' "$tmp/stats.json")" -gt 0 ] && ok maintenance_went_through_proxy || bad maintenance_went_through_proxy "no request counted"

# Expire and remove-orphans deleted objects: none of them is listed.
jq -r '.deletedKeys[]' "$tmp/stats.json" | LC_ALL=C sort -u >"$tmp/deleted"
awk '{print $2}' "$tmp/objects-after" | LC_ALL=C sort >"$tmp/listed"
still=$(comm -12 "$tmp/deleted" "$tmp/listed" | head -3)
[ -z "$still" ] && ok "deleted_are_gone_$(wc -l <"$tmp/deleted")" || bad deleted_are_gone "$still"

harness_done s3_demo

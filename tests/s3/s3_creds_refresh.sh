#!/usr/bin/env bash
# Temporary S3 credentials that expire in the middle of a compaction are
# fetched again, and the run does not fail. zamboni has no keys of its
# own here: only temporary ones, from
#   - container credentials (AWS_CONTAINER_CREDENTIALS_FULL_URI, the fake
#     endpoint tests/s3/cred_endpoints.mjs), the table in a SQLite catalog;
#   - a REST catalog's vended keys (zb-test-rest-server: loadTable's
#     storage-credentials with s3.session-token-expires-at-ms, fresh ones
#     from GET .../tables/t/credentials), the table registered there.
# The fault proxy stands for a store that checks them: a request signed
# with a key past the expiry its id carries gets 400 ExpiredToken, so a
# run that passes used fresh keys after each expiry; the proxy counts the
# requests each key had passed and refused, the endpoints the keys they
# handed out. Two rounds for each source, slowed by a delay per request so
# that the compaction outlives its keys:
#   ahead    keys that live 3 s (the store takes them 1 s longer): fetched
#            again before they expire, none refused
#   refused  keys announced for an hour that the store refuses after 2 s:
#            the refusal (ExpiredToken) fetches new ones and the request
#            goes again
# In every round: exit 0, the compaction committed, more than one key
# used, rows unchanged (zamboni and DuckDB + hyparquet on the objects).
# Usage: s3_creds_refresh.sh ZAMBONI FIXTURES_DIR ZB_TEST_REST_SERVER
set -o pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../cli/harness.sh"
. "$here/s3_harness.sh"
rest_server=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")

bucket=zb-creds
s3_start "$bucket"
proxy_start --seed 5
fixture=impala-v1-non-partitioned
location=/test-warehouse/iceberg_test/iceberg_non_partitioned
delay_ms=${ZB_TEST_CREDS_DELAY_MS:-150}
# zamboni's runs get no keys but the temporary ones
real_zb=$zb
zb=$tmp/zamboni-without-keys
printf '#!/bin/sh\nexec env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY "%s" "$@"\n' "$real_zb" >"$zb"
chmod +x "$zb"
# direct_scan METADATA_URI PREFIX OUT: rows with s3rver's own keys
direct_scan() {
    ZAMBONI_S3_ENDPOINT=$s3_url "$real_zb" scan "$1" --remap "$location=$2" 2>"$err" | LC_ALL=C sort >"$3"
}

# independent NAME METADATA_URI PREFIX TAG: DuckDB + hyparquet rows
independent() {
    local w=$1 m=$2 p=$3 tag=$4 dl=$tmp/dl-$1-$4
    s3_get "$p" "$dl" || { bad "${w}_fetch_$tag" "s3_get failed"; return; }
    if "$node" "$s3_here/s3_rows.mjs" --metadata "$dl/${m#"$p/"}" --remap "$location=$dl" \
        --remap "$p=$dl" "$dl" >"$tmp/$w.$tag.ind" 2>"$tmp/$w.$tag.inderr"; then
        ok "${w}_duckdb_hyparquet_$tag"
    else
        bad "${w}_duckdb_hyparquet_$tag" "$(head -3 "$tmp/$w.$tag.inderr")"
    fi
}

# check_round NAME RC BEFORE_META AFTER_META PREFIX FETCHES MIN_FETCHES
#             REFUSED (0: none may be; +: at least one)
check_round() {
    local w=$1 rc=$2 m0=$3 m1=$4 p=$5 fetches=$6 min=$7 refused=$8 keys n
    proxy_stats >"$tmp/$w.stats"
    keys=$(jq '.tempKeys.passed | length' "$tmp/$w.stats")
    n=$(jq '.tempKeys.refusedTotal' "$tmp/$w.stats")
    echo "     $w: exit $rc, $fetches keys fetched, $keys keys used, $n requests refused as expired, $(jq .requests.total "$tmp/$w.stats") requests"
    [ "$rc" -eq 0 ] && ok "${w}_completed" || bad "${w}_completed" "exit $rc"
    [ -n "$m1" ] && [ "$m1" != "$m0" ] && ok "${w}_committed" || bad "${w}_committed" "the catalog still names $m0"
    [ "$fetches" -ge "$min" ] && ok "${w}_fetched_again_$fetches" || bad "${w}_fetched_again" "$fetches fetches (want >= $min)"
    [ "$keys" -ge 2 ] && ok "${w}_keys_used_$keys" || bad "${w}_keys_used" "$(jq -c .tempKeys "$tmp/$w.stats")"
    if [ "$refused" = 0 ]; then
        [ "$n" -eq 0 ] && ok "${w}_none_refused" || bad "${w}_none_refused" "$(jq -c .tempKeys.refused "$tmp/$w.stats")"
    else
        [ "$n" -ge 1 ] && ok "${w}_refused_then_fresh_$n" || bad "${w}_refused_then_fresh" "no request refused: the keys never ran out"
    fi
    [ -n "$m1" ] || return
    direct_scan "$m1" "$p" "$tmp/$w.after"
    [ -s "$tmp/$w.before" ] && cmp -s "$tmp/$w.before" "$tmp/$w.after" &&
        ok "${w}_rows_unchanged" || bad "${w}_rows_unchanged" "$(diff "$tmp/$w.before" "$tmp/$w.after" | head -4; head -3 "$err")"
    independent "$w" "$m1" "$p" after
    cmp -s "$tmp/$w.before.ind" "$tmp/$w.after.ind" &&
        ok "${w}_independent_rows_unchanged" || bad "${w}_independent_rows_unchanged" "$(diff "$tmp/$w.before.ind" "$tmp/$w.after.ind" | head -4)"
}

# --- container credentials ------------------------------------------------
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
echo unused >"$tmp/web-identity-token"
start_listening creds "$node" "$s3_here/cred_endpoints.mjs" --token-file "$tmp/web-identity-token" \
    --container-token zb-container-token
creds_url=http://127.0.0.1:$creds_port

# container_round NAME LIFETIME_S KEY_EXP_S REFUSED MIN_FETCHES
container_round() {
    local w=$1 p=s3://$bucket/$1/t m0 m1 rc before after
    s3_put "$fx/$fixture" "$p" || { bad "${w}_upload" "s3_put failed"; return; }
    m0=$p/metadata/v2.metadata.json
    sqlite3 "$db" "INSERT INTO iceberg_tables VALUES ('$w', 'db', 't', '$m0', NULL, 'TABLE')"
    direct_scan "$m0" "$p" "$tmp/$w.before" || bad "${w}_scan_before" "$(head -2 "$err")"
    independent "$w" "$m0" "$p" before
    curl -sf "$creds_url/__config?lifetime_s=$2&key_exp_s=$3" >/dev/null
    before=$(curl -sf "$creds_url/__stats" | jq .container)
    proxy_reset
    proxy_faults "{\"delayMs\":$delay_ms}"
    use_proxy
    ZAMBONI_URI=sqlite:$db ZAMBONI_WAREHOUSE=$w \
        AWS_CONTAINER_CREDENTIALS_FULL_URI=$creds_url/container \
        AWS_CONTAINER_AUTHORIZATION_TOKEN=zb-container-token \
        run compact db.t --remap "$location=$p"
    rc=$?
    proxy_faults '{}'
    use_direct
    after=$(curl -sf "$creds_url/__stats" | jq .container)
    m1=$(sqlite3 "$db" "select metadata_location from iceberg_tables where catalog_name='$w'")
    check_round "$w" "$rc" "$m0" "$m1" "$p" $((after - before)) "$5" "$4"
}

container_round container_ahead 3 4 0 3
container_round container_refused 3600 2 + 1

# --- a REST catalog's vended keys -----------------------------------------
# rest_round NAME TTL_MS GRACE_MS REFUSED MIN_FETCHES
rest_round() {
    local w=$1 p=s3://$bucket/$1/t src=$tmp/src-$1 m0 m1 rc uri fetches
    cp -a "$fx/$fixture" "$src"
    # the table's own location on the store: vended keys are for it
    for f in "$src"/metadata/*.metadata.json; do
        jq -c --arg l "$p" '.location = $l' "$f" >"$f.new" && mv "$f.new" "$f"
    done
    s3_put "$src" "$p" || { bad "${w}_upload" "s3_put failed"; return; }
    m0=$p/metadata/v2.metadata.json
    direct_scan "$m0" "$p" "$tmp/$w.before" || bad "${w}_scan_before" "$(head -2 "$err")"
    independent "$w" "$m0" "$p" before
    mkdir -p "$tmp/rest-$w"
    start_listening "rest_$w" "$rest_server" --dir "$tmp/rest-$w" \
        --s3-endpoint "$s3_url" --vend-ttl-ms "$2" --vend-grace-ms "$3"
    local port_var=rest_${w}_port
    uri=http://127.0.0.1:${!port_var}/catalog
    curl -sf -X POST -d '{"namespace":["db"]}' "$uri/v1/namespaces" >/dev/null &&
    curl -sf -X POST -d "{\"name\":\"t\",\"metadata-location\":\"$m0\"}" \
        "$uri/v1/namespaces/db/register" >/dev/null || { bad "${w}_register" "the REST server refused"; return; }
    proxy_reset
    proxy_faults "{\"delayMs\":$delay_ms}"
    use_proxy
    ZAMBONI_URI=$uri ZAMBONI_WAREHOUSE=$w run compact db.t --remap "$location=$p"
    rc=$?
    proxy_faults '{}'
    use_direct
    m1=$(curl -sf "$uri/v1/namespaces/db/tables/t" | jq -r '."metadata-location"')
    fetches=$(curl -sf "${uri%/catalog}/__stats" | jq .credentials)
    check_round "$w" "$rc" "$m0" "$m1" "$p" "$fetches" "$5" "$4"
}

rest_round rest_ahead 3000 1000 0 2
rest_round rest_refused 3600000 -3598000 + 1

harness_done s3_creds_refresh

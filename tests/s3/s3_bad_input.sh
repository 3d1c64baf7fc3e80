#!/usr/bin/env bash
# Bad stores and bad replies: an unknown bucket, an unknown access key id
# (s3rver's 403 InvalidAccessKeyId; s3rver does not check the value of a
# V4 signature, so a wrong secret alone cannot be refused here), an
# endpoint that answers HTML (html_server.mjs), an endpoint where nothing
# listens, a listing reply that is not XML (the proxy's notxml fault): a
# clear error (exit 1) naming the store and the key, never a crash; a
# remove-orphans whose listing fails deletes nothing (exit 4, its safety
# abort). `zamboni doctor`
# names where the credentials came from (AWS_ACCESS_KEY_ID) and no run
# prints the secret.
# Usage: s3_bad_input.sh PATH/TO/zamboni FIXTURES_DIR  (node: $ZB_NODE)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../cli/harness.sh"
. "$here/s3_harness.sh"

bucket=zb-bad
s3_start "$bucket"
proxy_start
t=s3://$bucket/fx/pos
s3_put "$fx/impala-v2-pos-delete" "$t"
# A copy without version-hint.text: loading it lists metadata/.
nohint=$tmp/nohint
cp -r "$fx/impala-v2-pos-delete" "$nohint"
rm -f "$nohint/metadata/version-hint.text"
s3_put "$nohint" "s3://$bucket/fx/nohint"
secret=zb-Secret-Value-7f3a9c
all_out=$tmp/all.out
: >"$all_out"
# check NAME WANT_EXIT ERR_PATTERN -- ARGS: expect, then also no crash and
# the streams kept for the secret check.
check() {
    local name=$1
    expect "$@"
    cat "$out" "$err" >>"$all_out"
}

expect good_store_reads 0 '^2$' '' -- scan --count "$t"
# --- unknown bucket ------------------------------------------------------
check unknown_bucket 1 '' 's3://no-such-bucket/fx/pos' -- scan --count s3://no-such-bucket/fx/pos
grep -qE 'NoSuchBucket|404|not found|no such' "$err" && ok unknown_bucket_says_why || bad unknown_bucket_says_why "no NoSuchBucket/404 in the message"
check unknown_bucket_describe 1 '' 'no-such-bucket' -- describe s3://no-such-bucket/fx/pos
# --- unknown key id: 403 with the store's code ---------------------------
AWS_ACCESS_KEY_ID=NOSUCHKEY check unknown_key_id 1 '' 'InvalidAccessKeyId' -- scan --count "$t"
grep -q '403' "$err" && ok unknown_key_id_status || bad unknown_key_id_status "no 403 in the message"
grep -q "s3://$bucket/fx/pos" "$err" && ok unknown_key_id_names_table || bad unknown_key_id_names_table "no $t in the message"
AWS_SECRET_ACCESS_KEY=$secret check wrong_secret_signs 0 '^2$' '' -- scan --count "$t"
AWS_ACCESS_KEY_ID=NOSUCHKEY AWS_SECRET_ACCESS_KEY=$secret check wrong_key_and_secret 1 '' 'InvalidAccessKeyId' -- describe "$t"
# --- an endpoint that answers HTML ---------------------------------------
start_listening html "$node" "$s3_here/html_server.mjs"
ZAMBONI_S3_ENDPOINT=http://127.0.0.1:$html_port check html_endpoint 1 '' "s3://$bucket/fx/pos" -- scan --count "$t"
ZAMBONI_S3_ENDPOINT=http://127.0.0.1:$html_port check html_endpoint_flag 1 '' "s3://$bucket/fx/pos" -- describe --s3-endpoint "http://127.0.0.1:$html_port" "$t"
ZAMBONI_S3_ENDPOINT=http://127.0.0.1:$html_port check html_endpoint_listing 1 '' "s3://$bucket/fx/nohint" -- scan --count "s3://$bucket/fx/nohint"
# --- nothing listening -----------------------------------------------------
closed=$("$node" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();})')
ZAMBONI_S3_ENDPOINT=http://127.0.0.1:$closed check nothing_listening 1 '' "127.0.0.1:$closed|s3://$bucket" -- scan --count "$t"
# --- a listing that is not XML -------------------------------------------
use_proxy
expect nohint_reads_through_proxy 0 '^2$' '' -- scan --count "s3://$bucket/fx/nohint"
proxy_faults '{"rate":1,"kinds":["notxml"]}'
check listing_not_xml 1 '' "s3://$bucket/fx/nohint" -- scan --count "s3://$bucket/fx/nohint"
grep -qiE 'xml|pars|malformed|listing' "$err" && ok listing_not_xml_says_why || bad listing_not_xml_says_why "no word on the reply"
[ "$(proxy_stats | jq '.faults.byKind.notxml // 0')" -gt 0 ] && ok listing_not_xml_injected || bad listing_not_xml_injected "no listing was answered"
# remove-orphans on a catalog table with a bad listing deletes nothing.
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
    PRIMARY KEY (catalog_name, namespace, property_key));
  INSERT INTO iceberg_tables VALUES ('w', 'db', 'pos', '$t/metadata/v2.metadata.json', NULL, 'TABLE');"
loc=/test-warehouse/iceberg_test/hadoop_catalog/ice/iceberg_v2_delete_positional
before=$(s3_list "s3://$bucket")
# A listing that fails is remove-orphans' safety abort: exit 4, nothing deleted.
check orphans_listing_not_xml 4 '' "nothing deleted.*s3://$bucket" -- remove-orphans db.pos --uri "sqlite:$db" --warehouse w --remap "$loc=$t" --older-than-days 0 --force
[ "$before" = "$(s3_list "s3://$bucket")" ] && ok orphans_bad_listing_deleted_nothing || bad orphans_bad_listing_deleted_nothing "objects changed"
proxy_faults '{}'
use_direct
# --- doctor names the credentials source, never the secret --------------
AWS_SECRET_ACCESS_KEY=$secret check doctor_table_on_s3 0 '' '' -- doctor "$t"
grep -q 'AWS_ACCESS_KEY_ID' "$out" && ok doctor_names_credentials_source || bad doctor_names_credentials_source "no AWS_ACCESS_KEY_ID in doctor's report"
AWS_SECRET_ACCESS_KEY=$secret check verbose_dry_run 0 '' '' -- compact --dry-run --verbose "$t"
cat "$out" "$err" | grep -q 'AWS_ACCESS_KEY_ID' && ok verbose_names_credentials_source || bad verbose_names_credentials_source "no AWS_ACCESS_KEY_ID in --verbose's lines"
AWS_SECRET_ACCESS_KEY=$secret check doctor_json 0 '' '' -- doctor --json "$t"
grep -qF "$secret" "$all_out" && bad secret_never_printed "the secret is in an output" || ok secret_never_printed

harness_done s3_bad_input

#!/usr/bin/env bash
# The S3 settings and rules that need no S3 server (issue 16):
#   --help of every S3 flag with its default; bad values of
#   --s3-path-style-access, ZAMBONI_S3_MAX_ATTEMPTS, --s3-max-retry-seconds,
#   --s3-multipart-threshold-bytes and a key id without its secret (exit 2,
#   naming the setting);
#   a table folder on an object store is read-only: every verb that would
#   commit or delete refuses it with exit 3 and a message that says why and
#   what to do, before any request (the endpoint is a closed loopback port);
#   secrets (ZAMBONI_S3_SECRET_ACCESS_KEY, ZAMBONI_S3_SESSION_TOKEN) appear
#   in no output of any run: --json, --verbose, doctor, errors.
# Usage: cli_s3_offline.sh PATH/TO/zamboni FIXTURES_DIR
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

# --- help ----------------------------------------------------------------
expect help 0 '' '' -- compact --help
for f in --s3-endpoint --s3-region --s3-path-style-access --s3-max-attempts \
         --s3-max-retry-seconds --s3-multipart-threshold-bytes \
         --s3-access-key-id; do
    if awk -v f="$f" '$1 == f {getline; h = $0; while ((getline) > 0 &&
           $0 ~ /^      /) h = h $0; print h; exit}' "$out" |
       grep -q default; then ok "help_default_$f"
    else bad "help_default_$f" "no default given"; fi
done
if awk 'length > 80 {bad = 1} END {exit bad}' "$out"; then ok help_width
else bad help_width "a line over 80"; fi
expect help_demo_location 0 '^  --location URI' '' -- demo --help

# --- bad values ----------------------------------------------------------
t=s3://zb-offline-bucket/wh/db/t
ep=(--s3-endpoint http://127.0.0.1:9 --s3-max-attempts 1)
expect bad_path_style 2 '' "s3_path_style_access 'yes' \(--s3-path-style-access\) must be true or false" \
    -- describe "$t" --s3-path-style-access yes
ZAMBONI_S3_MAX_ATTEMPTS=0 expect bad_attempts 2 '' \
    "s3_max_attempts '0' \(ZAMBONI_S3_MAX_ATTEMPTS \(environment\)\) must be a whole number from 1 to 100" \
    -- describe "$t"
expect bad_retry_seconds 2 '' 's3_max_retry_seconds .* must be a whole number' \
    -- describe "$t" --s3-max-retry-seconds 0
expect bad_timeout_seconds 2 '' "s3_timeout_seconds '3601' \(--s3-timeout-seconds\) must be a whole number from 1 to 3600" \
    -- describe "$t" --s3-timeout-seconds 3601
expect bad_multipart_threshold 2 '' "s3_multipart_threshold_bytes '0' \(--s3-multipart-threshold-bytes\) must be a whole number from 1 to 5368709120" \
    -- describe "$t" --s3-multipart-threshold-bytes 0
ZAMBONI_S3_MULTIPART_THRESHOLD_BYTES=16MiB expect bad_multipart_threshold_env 2 '' \
    "s3_multipart_threshold_bytes '16MiB' \(ZAMBONI_S3_MULTIPART_THRESHOLD_BYTES \(environment\)\) must be a whole number" \
    -- describe "$t"
ZAMBONI_S3_ACCESS_KEY_ID=AKIDONLY expect key_without_secret 2 '' \
    's3_access_key_id is set .* but ZAMBONI_S3_SECRET_ACCESS_KEY is not' \
    -- describe "$t"
expect bad_location 2 '' '--location takes an object store' \
    -- demo "$tmp/demo" --location /not/a/bucket

# --- a table folder on an object store is read-only -----------------------
why='on an object store and has no catalog: it is read-only'
what='Register the table in a SQL or REST catalog'
for v in compact apply-properties remove-dangling-deletes rewrite-manifests \
         expire remove-orphans; do
    expect "refuse_$v" 3 '' "$why" -- "$v" "$t" "${ep[@]}"
    grep -q "$what" "$err" && ok "refuse_${v}_what" || bad "refuse_${v}_what" "no advice"
    grep -q 'concurrent' "$err" && ok "refuse_${v}_why" || bad "refuse_${v}_why" "no reason"
done
expect refuse_maintenance 3 '' "$why" -- maintenance "$t" "${ep[@]}"
for a in s3a://zb-offline-bucket/wh/t s3n://zb-offline-bucket/wh/t/; do
    expect "refuse_scheme_${a%%:*}" 3 '' "$why" -- compact "$a" "${ep[@]}"
done
mkdir -p "$tmp/src"
expect refuse_add_files 3 '' "$why" -- add-files "$t" --source "$tmp/src" "${ep[@]}"
# a local folder is not refused for being a folder
if [ -n "$fx" ]; then
    copy impala-v2-pos-partitioned "$tmp/pos"
    expect local_folder_commits 0 '' '' -- apply-properties "$tmp/pos"
fi

# --- no secret in any output -----------------------------------------------
export ZAMBONI_S3_ACCESS_KEY_ID=AKIDOFFLINETEST
export ZAMBONI_S3_SECRET_ACCESS_KEY=zbOfflineSecretValue0123456789
export ZAMBONI_S3_SESSION_TOKEN=zbOfflineSessionToken9876543210
all=$tmp/all
: >"$all"
keep() { cat "$out" "$err" >>"$all"; }
run maintenance "$t" --json "${ep[@]}"; keep
run maintenance "$t" --json --verbose --dry-run "${ep[@]}"; keep
run compact "$t" --verbose --dry-run "${ep[@]}"; keep
run doctor "$t" "${ep[@]}"; keep
run doctor "$t" --json "${ep[@]}"; keep
run describe "$t" "${ep[@]}"; keep
if [ -n "$fx" ]; then
    run maintenance "$tmp/pos" --json --verbose; keep
    grep -q '"table"' "$out" && ok json_report || bad json_report "no --json report"
    run doctor "$tmp/pos" --json; keep
fi
if [ -s "$all" ]; then ok outputs_captured; else bad outputs_captured "no output"; fi
if grep -qF "$ZAMBONI_S3_SECRET_ACCESS_KEY" "$all"; then
    bad no_secret_key "the secret access key appears in an output"
else ok no_secret_key; fi
if grep -qF "$ZAMBONI_S3_SESSION_TOKEN" "$all"; then
    bad no_session_token "the session token appears in an output"
else ok no_session_token; fi
harness_done cli_s3_offline

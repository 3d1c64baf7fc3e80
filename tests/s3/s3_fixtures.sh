#!/usr/bin/env bash
# Every fixture table (../shared/fixtures, enumerated as
# tests/interop/scan_compare.mjs does: a folder with metadata/, or its
# subfolders with one) uploaded to s3rver with the independent client,
# then read as a user would, by its s3:// folder (a path table: its
# recorded location resolves into the folder, as on disk; the multi-
# location table gets the README's --remap, pointed at S3): `scan`
# (JSON lines, sorted), `scan --count`, `describe` and `plan` print what
# they print for the folder on disk (paths under the fixtures folder read
# as the same paths under the bucket) and exit the same. Then a path
# table on S3 is read-only: every verb that would commit exits 3 with a
# message saying to use a catalog, and no object of the bucket changes.
# Usage: s3_fixtures.sh PATH/TO/zamboni FIXTURES_DIR  (node: $ZB_NODE)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../cli/harness.sh"
. "$here/s3_harness.sh"

bucket=zb-fixtures
base=s3://$bucket/fx
s3_start "$bucket"
s3_put "$fx" "$base" || { echo "FAIL upload of the fixtures"; exit 1; }
n_local=$(find "$fx" -type f | wc -l)
n_s3=$(s3_list "$base" | wc -l)
[ "$n_local" -eq "$n_s3" ] && ok "uploaded_$n_s3" || bad uploaded "$n_s3 objects for $n_local files"

tables=""
for d in "$fx"/*/; do
    d=${d%/}
    name=$(basename "$d")
    if [ -d "$d/metadata" ]; then
        tables="$tables $name"
    else
        for s in "$d"/*/; do
            s=${s%/}
            [ -d "$s/metadata" ] && tables="$tables $name/$(basename "$s")"
        done
    fi
done

# side WHERE VERB ARGS... : zamboni on the table, its exit in $tmp/WHERE.rc,
# its stdout (fixture paths written as the bucket's, sorted for scan) in
# $tmp/WHERE.out, stderr in $tmp/WHERE.err.
side() {
    local where=$1
    shift
    "$zb" "$@" >"$tmp/$where.raw" 2>"$tmp/$where.err" </dev/null
    echo $? >"$tmp/$where.rc"
    sed "s#$fx#$base#g" "$tmp/$where.raw" >"$tmp/$where.out"
    case $1 in scan) LC_ALL=C sort -o "$tmp/$where.out" "$tmp/$where.out" ;; esac
}

compare() {
    local name=$1 rl rs
    rl=$(cat "$tmp/local.rc") rs=$(cat "$tmp/s3.rc")
    if [ "$rs" -ge 128 ]; then
        out=$tmp/s3.out err=$tmp/s3.err bad "$name" "crashed (exit $rs)"
    elif [ "$rl" != "$rs" ]; then
        out=$tmp/s3.out err=$tmp/s3.err bad "$name" "exit $rs from S3, $rl from disk"
    elif ! cmp -s "$tmp/local.out" "$tmp/s3.out"; then
        out=$tmp/s3.out err=$tmp/s3.err bad "$name" "output differs: $(diff "$tmp/local.out" "$tmp/s3.out" | head -6)"
    elif [ "$rl" -ne 0 ] && ! grep -q "$base" "$tmp/s3.err"; then
        out=$tmp/s3.out err=$tmp/s3.err bad "$name" "failed (exit $rs, as on disk) without naming the S3 path"
    else
        ok "$name"
    fi
}

for t in $tables; do
    local_t=$fx/$t
    s3_t=$base/$t
    lremap=() sremap=()
    case $t in impala-multi-location/*)
        lremap=(--remap "/test-warehouse/iceberg_test/hadoop_catalog/ice=$fx/impala-multi-location")
        sremap=(--remap "/test-warehouse/iceberg_test/hadoop_catalog/ice=$base/impala-multi-location") ;;
    esac
    id=${t//\//_}
    side local scan --format jsonl "${lremap[@]}" "$local_t"
    side s3 scan --format jsonl "${sremap[@]}" "$s3_t"
    [ "$(cat "$tmp/local.rc")" -ne 0 ] || [ -s "$tmp/local.out" ] || [ "$t" = impala-v2-pos-delete-all ] ||
        bad "scan_${id}_has_rows" "no rows on disk"
    compare "scan_$id"
    side local scan --count "${lremap[@]}" "$local_t"
    side s3 scan --count "${sremap[@]}" "$s3_t"
    compare "count_$id"
    side local describe "${lremap[@]}" "$local_t"
    side s3 describe "${sremap[@]}" "$s3_t"
    compare "describe_$id"
    side local plan "${lremap[@]}" "$local_t"
    side s3 plan "${sremap[@]}" "$s3_t"
    compare "plan_$id"
done

# --- a path table on S3 is read-only ------------------------------------
before=$(s3_list "s3://$bucket")
for t in impala-v1-non-partitioned impala-v2-pos-delete; do
    s3_t=$base/$t
    for v in compact expire rewrite-manifests remove-orphans remove-dangling-deletes maintenance; do
        expect "readonly_${v}_$t" 3 '' 'catalog' -- "$v" "$s3_t"
        grep -q "$s3_t" "$err" && ok "readonly_${v}_${t}_names_table" || bad "readonly_${v}_${t}_names_table" "no $s3_t in the message"
    done
    expect "readonly_apply-properties_$t" 3 '' 'catalog' -- apply-properties "$s3_t"
    expect "readonly_add-files_$t" 3 '' 'catalog' -- add-files "$s3_t" --source "$base/impala-v1-non-partitioned/data"
done
[ "$before" = "$(s3_list "s3://$bucket")" ] && ok readonly_nothing_written || bad readonly_nothing_written "$(diff <(echo "$before") <(s3_list "s3://$bucket") | head -6)"

harness_done s3_fixtures

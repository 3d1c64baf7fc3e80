#!/usr/bin/env bash
# `zamboni doctor [TABLE]` and `zamboni table-config from-catalog CAT`:
#   doctor --help (every flag with its default), usage errors (exit 2);
#   fixture tables usable (exit 0, "usable: True", counts that match the
#   fixture README: 3 position deletes, 2 deletion vectors), no byte of
#   the table changed; a missing table, corrupt metadata, a missing
#   manifest, encryption keys, an unknown transform, a budget over the
#   memory limit, an unwritable temporary folder and a bad profile each
#   "usable: False" with exit 1 and a reason naming the problem; --json
#   parses; then on the demo warehouse: doctor with and without TABLE,
#   from-catalog writing a file `table-config validate` accepts (with and
#   without --no-evolution) and its usage errors.
# Usage: cli_doctor.sh PATH/TO/zamboni FIXTURES_DIR
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
have_python=0
command -v python3 >/dev/null 2>&1 && have_python=1

# --- help and usage ----------------------------------------------------
expect help 0 '^Usage: zamboni doctor \[TABLE\]' '' -- doctor --help
for f in --json --memory-budget-bytes --threads --temp-directory --warehouse --uri \
         --profile --env --table-config; do
    if awk -v f="$f" '$1 == f {getline; h = $0; while ((getline) > 0 &&
           $0 ~ /^      /) h = h $0; print h; exit}' "$out" |
       grep -q default; then ok "help_default_$f"
    else bad "help_default_$f" "no default given"; fi
done
if awk 'length > 80 {bad = 1} END {exit bad}' "$out"; then ok help_width
else bad help_width "a line over 80"; fi
expect listed 0 '^  doctor ' '' -- --help
expect help_tc_from_catalog 0 'from-catalog CAT' '' -- table-config --help
grep -qE -- '^  --no-evolution' "$out" && ok help_no_evolution || bad help_no_evolution "no flag line"
expect usage_two_tables 2 '' 'unexpected argument' -- doctor a/b c/d
expect usage_unknown_flag 2 '' "unknown option '--yes'" -- doctor --yes

# --- fixture tables ----------------------------------------------------
copy impala-v2-pos-partitioned "$tmp/pos"
before=$(snapshot "$tmp/pos")
expect fixture_usable 0 '^usable: True$' '' -- doctor "$tmp/pos"
grep -qx 'reason: none' "$out" && ok fixture_reason_none || bad fixture_reason_none "reason"
grep -qE '^snapshot: [0-9]+ planned: .* 3 data file\(s\), 3 position, 0 equality' "$out" \
    && ok fixture_counts || bad fixture_counts "want 3 data files, 3 position deletes"
grep -qE '^format: version 2 ' "$out" && ok fixture_format || bad fixture_format "no format line"
for c in config catalog tmpdir memory codecs table format features snapshot; do
    grep -qE "^$c: " "$out" && ok "line_$c" || bad "line_$c" "no $c line"
done
grep -qE '^codecs: read and write: .*ZSTD' "$out" && ok codecs_zstd || bad codecs_zstd "no zstd"
grep -qE '^tmpdir: .* free; spill compression auto \(default\)$' "$out" \
    && ok tmpdir_spill_compression || bad tmpdir_spill_compression "no spill compression"
ZAMBONI_SPILL_COMPRESSION=never expect spill_compression_env 0 \
    '^tmpdir: .*; spill compression never \(ZAMBONI_SPILL_COMPRESSION \(environment\)\)$' '' \
    -- doctor "$tmp/pos"
[ "$(snapshot "$tmp/pos")" = "$before" ] && ok fixture_untouched || bad fixture_untouched "bytes changed"
expect fixture_dv 0 ' 5 data file\(s\), 0 position, 0 equality, 2 DV' '' \
    -- doctor "$fx/impala-v3-deletion-vectors"
expect fixture_v1 0 '^format: version 1 ' '' -- doctor "$fx/impala-v1-partitioned"

expect json 0 '"usable": true' '' -- doctor --json "$tmp/pos"
if [ $have_python = 1 ]; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
assert d["usable"] is True and d["reason"] is None
assert [c["check"] for c in d["checks"]][-4:] == ["table","format","features","snapshot"]
assert all(c["status"] in ("ok","warning") for c in d["checks"])' "$out" \
        && ok json_parses || bad json_parses "not the document"
fi

# --- not usable: exit 1 and a reason naming the problem -----------------
expect missing_table 1 "^reason: table: $tmp/nope not found: .*$tmp/nope" '' \
    -- doctor "$tmp/nope"
grep -qx 'usable: False' "$out" && ok missing_usable_false || bad missing_usable_false "usable"

copy impala-v2-pos-partitioned "$tmp/corrupt"
for f in "$tmp"/corrupt/metadata/*.metadata.json; do
    head -c 200 "$f" >"$f.t" && mv "$f.t" "$f"
done
expect corrupt_metadata 1 "^reason: table: .*does not load: .*v3\.metadata\.json.*malformed JSON" '' \
    -- doctor "$tmp/corrupt"
grep -qx 'usable: False' "$out" && ok corrupt_usable_false || bad corrupt_usable_false "usable"

copy impala-v2-pos-partitioned "$tmp/nomanifest"
rm "$tmp"/nomanifest/metadata/464c179e-*-m0.avro
expect missing_manifest 1 '^reason: snapshot: snapshot [0-9]+ does not plan: .*464c179e-.*-m0\.avro' '' \
    -- doctor "$tmp/nomanifest"

copy impala-v2-pos-partitioned "$tmp/v4"
sed -i 's/"format-version" : 2,/"format-version" : 4,/' "$tmp/v4/metadata/v3.metadata.json"
expect format_unsupported 1 '^reason: table: .*format-version 4 is not supported' '' \
    -- doctor "$tmp/v4"

copy impala-v2-pos-partitioned "$tmp/enc"
sed -i 's/^  "format-version" : 2,/  "format-version" : 2,\n  "encryption-keys" : [ { "key-id" : "k1", "encrypted-key-metadata" : "AAAA" } ],/' \
    "$tmp/enc/metadata/v3.metadata.json"
expect encrypted 1 '^reason: features: encryption \(1 key' '' -- doctor "$tmp/enc"

copy impala-v2-pos-partitioned "$tmp/tr"
sed -i 's/"transform" : "identity"/"transform" : "zorder"/' "$tmp/tr/metadata/v3.metadata.json"
expect unknown_transform 1 "^reason: features: partition spec 0 .*'zorder', unknown" '' \
    -- doctor "$tmp/tr"

expect budget_over_limit 1 '^reason: memory: budget .* exceeds the memory limit' '' \
    -- doctor --memory-budget-bytes 1000000000000000000 "$tmp/pos"
expect tmpdir_missing 1 "^reason: tmpdir: $tmp/no-such-dir is not a folder" '' \
    -- doctor --temp-directory "$tmp/no-such-dir" "$tmp/pos"
if [ "$(id -u)" != 0 ]; then
    mkdir -p "$tmp/ro" && chmod 500 "$tmp/ro"
    expect tmpdir_readonly 1 "^reason: tmpdir: $tmp/ro is not writable" '' \
        -- doctor --temp-directory "$tmp/ro" "$tmp/pos"
fi
printf 'colour: blue\n' >"$tmp/bad.yml"
expect bad_profile 1 '^reason: config: .*colour' '' -- doctor --profile "$tmp/bad.yml" "$tmp/pos"
expect no_catalog 1 '^reason: catalog: cannot open the catalog: no catalog database' '' -- doctor

# --- the demo warehouse --------------------------------------------------
d=$tmp/demo
if "$zb" demo "$d" >"$out" 2>"$err"; then
    ok demo_built
    export ZAMBONI_ROOT=$d
    expect demo_doctor 0 '^usable: True$' '' -- doctor --warehouse demo
    grep -qE "^catalog: sqlite catalog 'demo' reachable, 1 namespace" "$out" \
        && ok demo_catalog_line || bad demo_catalog_line "no catalog line"
    expect demo_table 0 ' 240 data file\(s\), [1-9][0-9]* position' '' \
        -- doctor --warehouse demo demo.events
    expect demo_missing_table 1 '^reason: table: demo.nope not found' '' \
        -- doctor --warehouse demo demo.nope

    cat_db=$d/catalog.db
    expect from_catalog 0 "^$tmp/fc.json: 2 table\\(s\\) of warehouse demo" '' \
        -- table-config from-catalog "$cat_db" --warehouse demo -o "$tmp/fc.json"
    expect from_catalog_valid 0 'valid \(warehouse demo, 2 table' '' \
        -- table-config validate --warehouse demo "$tmp/fc.json"
    expect from_catalog_summary 0 'partition_evolution +enabled, day -> month after 90 days' '' \
        -- table-config summary "$tmp/fc.json"
    grep -q '"transform": "identity"' "$tmp/fc.json" && ok from_catalog_partition \
        || bad from_catalog_partition "no spec"
    expect from_catalog_no_evolution 0 '' '' -- table-config from-catalog \
        "sqlite:$cat_db" --db demo --namespace demo --no-evolution -o "$tmp/fc2.json"
    expect from_catalog_no_evolution_valid 0 'valid' '' -- validate-config "$tmp/fc2.json"
    expect from_catalog_no_evolution_summary 0 'partition_evolution +disabled' '' \
        -- table-config summary "$tmp/fc2.json"
    expect from_catalog_keeps_file 2 '' 'exists' -- table-config from-catalog \
        "$cat_db" --warehouse demo -o "$tmp/fc.json"
    expect from_catalog_no_cat 2 '' 'from-catalog needs CAT' -- table-config from-catalog
    expect from_catalog_bad_cat 2 '' 'neither a catalog URI nor a SQLite' \
        -- table-config from-catalog "$tmp/none.db" --warehouse demo
    expect from_catalog_uri_clash 2 '' 'disagree' -- table-config from-catalog \
        "$cat_db" --uri sqlite:/elsewhere.db --warehouse demo
    unset ZAMBONI_ROOT
    export ZAMBONI_ROOT=$tmp/root
    expect from_catalog_needs_warehouse 2 '' 'needs --warehouse' \
        -- table-config from-catalog "$cat_db" -o "$tmp/fc3.json"
    expect generate_no_evolution 2 '' 'goes with from-catalog' \
        -- table-config generate --no-evolution --warehouse demo
else
    bad demo_built "zamboni demo failed"
fi

harness_done cli_doctor

#!/usr/bin/env bash
# tools/checksrc refuses what it is there to refuse: each case lays out a
# small src/ tree with one deliberate fault and expects exit 1 with the
# fault named; the clean tree passes. Usage: checksrc_test.sh CHECKSRC
set -u
checksrc=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0

tree() {            # a clean tree: one file per layer used below
    rm -rf "$work/src"
    mkdir -p "$work/src/util" "$work/src/table/metadata" \
             "$work/src/table/commit" "$work/src/ops" \
             "$work/src/format/parquet" "$work/src/format/avro" \
             "$work/src/format/codec"
    printf '#include "util/err.h"\n' > "$work/src/util/err.c"
    : > "$work/src/util/err.h"
    : > "$work/src/table/metadata/metadata_int.h"
    printf '#include "table/metadata/metadata_int.h"\n#include "util/err.h"\n' \
        > "$work/src/table/metadata/metadata_parse.c"
    printf '#include "table/metadata/metadata.h"\n' \
        > "$work/src/table/commit/commit_apply.c"
    printf '#include "table/commit/commit.h"\n#include "zamboni/io.h"\n' \
        > "$work/src/ops/expire.c"
    printf '#include "format/codec/codec.h"\n' \
        > "$work/src/format/parquet/pq_reader.c"
    printf '#include "format/codec/codec.h"\n' \
        > "$work/src/format/avro/avro.c"
}

expect() {          # expect NAME CODE TEXT: exit code and a line with TEXT
    local name=$1 code=$2 text=$3 out rc
    out=$(bash "$checksrc" "$work/src" 2>&1); rc=$?
    if [ "$rc" -eq "$code" ] && printf '%s\n' "$out" | grep -qF -- "$text"; then
        echo "ok $name"; pass=$((pass + 1))
    else
        echo "FAIL $name: exit $rc, wanted $code and '$text' in:"
        printf '%s\n' "$out" | sed 's/^/    /'
        fail=$((fail + 1))
    fi
}

tree
expect clean_tree 0 "is clean"

tree
printf '#include "ops/expire.h"\n' >> "$work/src/util/err.c"
expect upward_include 1 "util/err.c:2: util/ includes ops/expire.h, of the higher layer ops/"

tree
printf '#include "zamboni/ops.h"\n' >> "$work/src/table/commit/commit_apply.c"
expect upward_public_header 1 "includes zamboni/ops.h, of the higher layer ops/"

tree
printf '#include "zamboni/nonesuch.h"\n' >> "$work/src/ops/expire.c"
expect unknown_public_header 1 "unknown public header zamboni/nonesuch.h"

tree
printf '#include "table/metadata/metadata_int.h"\n' \
    >> "$work/src/table/commit/commit_apply.c"
expect private_header 1 "includes table/metadata/metadata_int.h, private to table/metadata/"

tree
printf '#include "format/avro/avro.h"\n' >> "$work/src/format/parquet/pq_reader.c"
expect formats_apart 1 "the formats never include each other"

tree
printf 'x = malloc(4);\n' >> "$work/src/ops/expire.c"
expect banned_call 1 "banned calls"

tree
: > "$work/src/table/commit/metadata_parse.c"
expect duplicate_name 1 "file names used twice"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

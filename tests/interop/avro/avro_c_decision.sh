#!/usr/bin/env bash
# The test behind the decision at the top of src/format/avro/avro.c:
# does Debian's avro-c keep Iceberg's schema attributes when it writes?
# Writes one file with avro-c and one with zb_avro from the same schema
# (field-id on record fields, element-id on an array, key-id/value-id on
# a map, doc and default), reads each file's header schema back with avsc
# (an independent reader) and prints which attributes survived.
# Needs libavro-dev (apt-get install libavro-dev), avsc (npm ci) and a
# built zb-avro-cat's sibling library. Not run by ctest: the project does
# not depend on avro-c. Usage: avro_c_decision.sh BUILD_DIR
set -eu
build=${1:?usage: avro_c_decision.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
schema='{"type":"record","name":"manifest_file","fields":[{"name":"manifest_path","type":"string","field-id":500,"doc":"Location URI"},{"name":"partitions","type":["null",{"type":"array","items":"int","element-id":508}],"default":null,"field-id":507},{"name":"m","type":{"type":"map","values":"long","key-id":1,"value-id":2},"field-id":3}]}'
cat > "$work/avroc.c" <<C
#include <avro.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    const char *js = argv[2];
    avro_schema_t s;
    avro_file_writer_t w;
    (void)argc;
    if (avro_schema_from_json_length(js, strlen(js), &s) ||
        avro_file_writer_create(argv[1], s, &w)) {
        fprintf(stderr, "%s\n", avro_strerror());
        return 1;
    }
    avro_file_writer_close(w);
    return 0;
}
C
cat > "$work/ours.c" <<C
#include "format/avro/avro.h"
#include "io/io.h"
int main(int argc, char **argv)
{
    zb_ctx ctx; zb_io *io; zb_avro_writer *w;
    (void)argc;
    zb_ctx_init(&ctx);
    if (zb_io_new(&io, &ctx) < 0 ||
        zb_avro_writer_open(&w, io, &ctx, argv[1], argv[2], 0, 0, 0) < 0 ||
        zb_avro_writer_commit(w, &ctx) < 0)
        return 1;
    zb_io_free(io);
    return 0;
}
C
cc -o "$work/avroc" "$work/avroc.c" $(pkg-config --cflags --libs avro-c)
cc -std=c11 -D_POSIX_C_SOURCE=200809L -I"$root/include" -I"$root/src" \
   -o "$work/ours" "$work/ours.c" "$build/libzb_avro.a" "$build/libzb_io.a" \
   "$build/libzb_util.a" $(pkg-config --libs jansson libzstd snappy zlib) -lm -lpthread
"$work/avroc" "$work/avroc.avro" "$schema"
"$work/ours" "$work/ours.avro" "$schema"
cat > "$work/check.mjs" <<JS
import { readAvro } from '$here/avsc_read.mjs';
for (const f of process.argv.slice(2)) {
  const { schemaText } = await readAvro(f);
  const kept = ['field-id', 'element-id', 'key-id', 'value-id', 'doc', 'default']
    .filter((a) => schemaText.includes('"' + a + '"'));
  console.log(f.split('/').pop() + ': header schema ' + schemaText);
  console.log(f.split('/').pop() + ': attributes kept: ' + (kept.join(', ') || 'none'));
}
JS
cd "$root" && node "$work/check.mjs" "$work/avroc.avro" "$work/ours.avro"

/*
 * zb-avro-cat - prints the records of an Avro object container file as
 * JSON lines, in the canonical form that tests/interop/avro/compare_avro.mjs
 * gives the records avsc decodes, so that the two can be compared value
 * by value:
 *
 *   null, booleans and strings as themselves; int as a number; long as a
 *   decimal string; float and double as numbers with 17 significant digits
 *   (NaN and infinities as "NaN", "Infinity", "-Infinity"); bytes and
 *   fixed as "0x" + lowercase hex; enum as its symbol; record as an object
 *   keyed by field name; array as an array; map as an object; a union as
 *   the value of its branch.
 *
 * Usage: zb-avro-cat [--schema] [--meta KEY] FILE
 *   --schema    print the header's avro.schema text instead of records
 *   --meta KEY  print the metadata value KEY instead of records
 * Exit: 0, 1 on a read error (message on stderr), 2 on usage.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "format/avro/avro.h"
#include "io/io.h"

static void put_str(FILE *out, const char *s, size_t n)
{
    size_t i;

    fputc('"', out);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void put_double(FILE *out, double d)
{
    if (isnan(d))
        fputs("\"NaN\"", out);
    else if (isinf(d))
        fputs(d > 0 ? "\"Infinity\"" : "\"-Infinity\"", out);
    else
        fprintf(out, "%.17g", d);
}

static void put_value(FILE *out, const zb_avro_node *n,
                      const zb_avro_value *v)
{
    size_t i;

    switch (n->type) {
    case ZB_AVRO_NULL:
        fputs("null", out);
        break;
    case ZB_AVRO_BOOLEAN:
        fputs(v->v.boolean ? "true" : "false", out);
        break;
    case ZB_AVRO_INT:
        fprintf(out, "%d", (int)v->v.i32);
        break;
    case ZB_AVRO_LONG:
        fprintf(out, "\"%lld\"", (long long)v->v.i64);
        break;
    case ZB_AVRO_FLOAT:
        put_double(out, (double)v->v.f32);
        break;
    case ZB_AVRO_DOUBLE:
        put_double(out, v->v.f64);
        break;
    case ZB_AVRO_BYTES:
    case ZB_AVRO_FIXED:
        fputs("\"0x", out);
        for (i = 0; i < v->v.bytes.len; i++)
            fprintf(out, "%02x", v->v.bytes.ptr[i]);
        fputc('"', out);
        break;
    case ZB_AVRO_STRING:
        put_str(out, v->v.str.ptr, v->v.str.len);
        break;
    case ZB_AVRO_ENUM:
        put_str(out, n->symbols[v->v.i32], strlen(n->symbols[v->v.i32]));
        break;
    case ZB_AVRO_RECORD:
        fputc('{', out);
        for (i = 0; i < n->n; i++) {
            if (i)
                fputc(',', out);
            put_str(out, n->fields[i].name, strlen(n->fields[i].name));
            fputc(':', out);
            put_value(out, n->fields[i].type, &v->v.list.items[i]);
        }
        fputc('}', out);
        break;
    case ZB_AVRO_ARRAY:
        fputc('[', out);
        for (i = 0; i < v->v.list.n; i++) {
            if (i)
                fputc(',', out);
            put_value(out, n->items, &v->v.list.items[i]);
        }
        fputc(']', out);
        break;
    case ZB_AVRO_MAP:
        fputc('{', out);
        for (i = 0; i < v->v.map.n; i++) {
            if (i)
                fputc(',', out);
            put_str(out, v->v.map.entries[i].key, v->v.map.entries[i].key_len);
            fputc(':', out);
            put_value(out, n->items, v->v.map.entries[i].value);
        }
        fputc('}', out);
        break;
    case ZB_AVRO_UNION:
        put_value(out, n->branches[v->v.u.branch], v->v.u.value);
        break;
    }
}

int main(int argc, char **argv)
{
    const char *path = NULL, *meta_key = NULL;
    int want_schema = 0, i, rc, status = 0;
    zb_avro_reader *r = NULL;
    const zb_avro_value *v;
    zb_io *io = NULL;
    zb_ctx ctx;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--schema") == 0)
            want_schema = 1;
        else if (strcmp(argv[i], "--meta") == 0 && i + 1 < argc)
            meta_key = argv[++i];
        else if (argv[i][0] != '-' && path == NULL)
            path = argv[i];
        else
            path = NULL, i = argc;
    }
    if (path == NULL) {
        fprintf(stderr, "usage: zb-avro-cat [--schema] [--meta KEY] FILE\n");
        return 2;
    }
    zb_ctx_init(&ctx);
    if ((rc = zb_io_new(&io, &ctx)) < 0 ||
        (rc = zb_avro_reader_open(&r, io, &ctx, path, NULL)) < 0) {
        fprintf(stderr, "zb-avro-cat: %s\n", ctx.err.msg);
        zb_io_free(io);
        return 1;
    }
    if (want_schema) {
        printf("%s\n", zb_avro_schema_json(zb_avro_reader_schema(r)));
    } else if (meta_key) {
        size_t len;
        const char *val = zb_avro_reader_meta_get(r, meta_key, &len);
        if (val == NULL)
            status = 1;
        else
            fwrite(val, 1, len, stdout);
    } else {
        const zb_avro_node *root =
            zb_avro_schema_root(zb_avro_reader_schema(r));
        while ((rc = zb_avro_reader_next(r, &ctx, &v)) == 1) {
            put_value(stdout, root, v);
            fputc('\n', stdout);
        }
        if (rc < 0) {
            fprintf(stderr, "zb-avro-cat: %s\n", ctx.err.msg);
            status = 1;
        }
    }
    zb_avro_reader_free(r);
    zb_io_free(io);
    return status;
}

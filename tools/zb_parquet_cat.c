/*
 * zb-parquet-cat - prints the rows of a Parquet file as JSON lines, one
 * object per row keyed by column name, every value in the canonical form
 * that tests/interop/canonical.mjs gives the values of independent readers
 * (DuckDB, hyparquet), so that the two can be compared value by value:
 *
 *   integers as decimal strings; floats as numbers with 17 significant
 *   digits, NaN and infinities as "NaN", "Infinity", "-Infinity"; strings
 *   as strings; binary and fixed as "0x" + lowercase hex; uuid dashed;
 *   decimals as exact strings with the scale's digits; dates as day
 *   numbers; times and timestamps as nanosecond strings; intervals as
 *   {"months", "days", "nanos"} strings; structs as
 *   objects; lists as arrays; maps as arrays of {"key", "value"}.
 *
 * Usage: zb-parquet-cat [--batch-rows N] [--columns a,b,...] FILE
 * Exit: 0, 1 on a read error (message on stderr), 2 on usage.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/parquet/parquet.h"
#include "io/io.h"
#include "util/alloc.h"

typedef __int128 i128;

static void put_i128(FILE *out, i128 v)
{
    char digits[48];
    int n = 0;
    unsigned __int128 u = v < 0 ? (unsigned __int128)0 - (unsigned __int128)v
                                : (unsigned __int128)v;

    do {
        digits[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    if (v < 0)
        fputc('-', out);
    while (n)
        fputc(digits[--n], out);
}

static void put_decimal(FILE *out, i128 v, int scale)
{
    char digits[64];
    int n = 0, i;
    unsigned __int128 u = v < 0 ? (unsigned __int128)0 - (unsigned __int128)v
                                : (unsigned __int128)v;

    do {
        digits[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (n <= scale)
        digits[n++] = '0';
    fputc('"', out);
    if (v < 0)
        fputc('-', out);
    for (i = n - 1; i >= 0; i--) {
        fputc(digits[i], out);
        if (i == scale && scale > 0)
            fputc('.', out);
    }
    fputc('"', out);
}

static void put_string(FILE *out, const uint8_t *p, size_t n)
{
    size_t i;

    fputc('"', out);
    for (i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", out);
        else if (c == '\r')
            fputs("\\r", out);
        else if (c == '\t')
            fputs("\\t", out);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void put_hex(FILE *out, const uint8_t *p, size_t n, int uuid)
{
    size_t i;

    fputs(uuid ? "\"" : "\"0x", out);
    for (i = 0; i < n; i++) {
        if (uuid && (i == 4 || i == 6 || i == 8 || i == 10))
            fputc('-', out);
        fprintf(out, "%02x", p[i]);
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

static int valid(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *bits = a->buffers[0];

    return bits == NULL || zb_arrow_bit(bits, a->offset + i);
}

/* Whether Arrow metadata names the arrow.uuid extension type. */
static int is_uuid(const char *meta)
{
    char ext[32];

    return zb_arrow_metadata_get(ext, sizeof ext, meta,
                                 "ARROW:extension:name") &&
           strcmp(ext, "arrow.uuid") == 0;
}

static int64_t unit_to_ns(char unit)
{
    return unit == 's' ? 1000000000LL : unit == 'm' ? 1000000LL
           : unit == 'u' ? 1000LL : 1LL;
}

static void put_value(FILE *out, const struct ArrowSchema *s,
                      const struct ArrowArray *a, int64_t i)
{
    const char *f = s->format;
    int64_t j = a->offset + i, k;

    if (!valid(a, i)) {
        fputs("null", out);
        return;
    }
    switch (f[0]) {
    case 'b':
        fputs(zb_arrow_bit(a->buffers[1], j) ? "true" : "false", out);
        return;
    case 'c': fprintf(out, "\"%d\"", ((const int8_t *)a->buffers[1])[j]); return;
    case 'C': fprintf(out, "\"%u\"", ((const uint8_t *)a->buffers[1])[j]); return;
    case 's': fprintf(out, "\"%d\"", ((const int16_t *)a->buffers[1])[j]); return;
    case 'S': fprintf(out, "\"%u\"", ((const uint16_t *)a->buffers[1])[j]); return;
    case 'i': fprintf(out, "\"%d\"", ((const int32_t *)a->buffers[1])[j]); return;
    case 'I': fprintf(out, "\"%u\"", ((const uint32_t *)a->buffers[1])[j]); return;
    case 'l': fprintf(out, "\"%lld\"", (long long)((const int64_t *)a->buffers[1])[j]); return;
    case 'L': fprintf(out, "\"%llu\"", (unsigned long long)((const uint64_t *)a->buffers[1])[j]); return;
    case 'f': put_double(out, ((const float *)a->buffers[1])[j]); return;
    case 'g': put_double(out, ((const double *)a->buffers[1])[j]); return;
    case 'u':
    case 'z': {
        const int32_t *o = a->buffers[1];
        const uint8_t *d = a->buffers[2];
        if (f[0] == 'u')
            put_string(out, d + o[j], (size_t)(o[j + 1] - o[j]));
        else
            put_hex(out, d + o[j], (size_t)(o[j + 1] - o[j]), 0);
        return;
    }
    case 'w': {
        int w = atoi(f + 2);
        int uuid = w == 16 && is_uuid(s->metadata);
        put_hex(out, (const uint8_t *)a->buffers[1] + (size_t)j * (size_t)w,
                (size_t)w, uuid);
        return;
    }
    case 'd': {
        const char *comma = strchr(f, ',');
        i128 v;
        memcpy(&v, (const uint8_t *)a->buffers[1] + j * 16, 16);
        put_decimal(out, v, comma ? atoi(comma + 1) : 0);
        return;
    }
    case 't':
        if (f[1] == 'd') {
            fprintf(out, "%d", ((const int32_t *)a->buffers[1])[j]);
            return;
        }
        if (f[1] == 't') {
            i128 v = f[2] == 'm' || f[2] == 's'
                         ? (i128)((const int32_t *)a->buffers[1])[j]
                         : (i128)((const int64_t *)a->buffers[1])[j];
            fputc('"', out);
            put_i128(out, v * unit_to_ns(f[2]));
            fputc('"', out);
            return;
        }
        if (f[1] == 'i' && f[2] == 'n') {
            const uint8_t *p = (const uint8_t *)a->buffers[1] + j * 16;
            int32_t months, days;
            int64_t nanos;
            memcpy(&months, p, 4);
            memcpy(&days, p + 4, 4);
            memcpy(&nanos, p + 8, 8);
            fprintf(out, "{\"months\":\"%d\",\"days\":\"%d\","
                    "\"nanos\":\"%lld\"}", months, days, (long long)nanos);
            return;
        }
        if (f[1] == 's') {
            i128 v = (i128)((const int64_t *)a->buffers[1])[j];
            fputc('"', out);
            put_i128(out, v * unit_to_ns(f[2]));
            fputc('"', out);
            return;
        }
        break;
    case '+':
        if (f[1] == 's') {
            fputc('{', out);
            for (k = 0; k < s->n_children; k++) {
                if (k)
                    fputc(',', out);
                put_string(out, (const uint8_t *)s->children[k]->name,
                           strlen(s->children[k]->name));
                fputc(':', out);
                put_value(out, s->children[k], a->children[k], j);
            }
            fputc('}', out);
            return;
        }
        if (f[1] == 'l' || f[1] == 'm') {
            const int32_t *o = a->buffers[1];
            fputc('[', out);
            for (k = o[j]; k < o[j + 1]; k++) {
                if (k > o[j])
                    fputc(',', out);
                if (f[1] == 'l') {
                    put_value(out, s->children[0], a->children[0], k);
                } else {
                    const struct ArrowSchema *e = s->children[0];
                    const struct ArrowArray *ea = a->children[0];
                    fputs("{\"key\":", out);
                    put_value(out, e->children[0], ea->children[0],
                              ea->offset + k);
                    fputs(",\"value\":", out);
                    put_value(out, e->children[1], ea->children[1],
                              ea->offset + k);
                    fputc('}', out);
                }
            }
            fputc(']', out);
            return;
        }
        break;
    default:
        break;
    }
    fprintf(out, "\"unprintable:%s\"", f);
}

static int usage(void)
{
    fputs("usage: zb-parquet-cat [--batch-rows N] [--columns a,b] FILE\n",
          stderr);
    return 2;
}

int main(int argc, char **argv)
{
    pq_reader_opts opts = PQ_READER_OPTS_INIT;
    const char *file = NULL;
    char *cols_copy = NULL;
    const char *cols[256];
    struct ArrowSchema schema;
    struct ArrowArray batch;
    pq_reader *r = NULL;
    zb_io *io = NULL;
    zb_ctx ctx;
    int i, rc;

    zb_alloc_tune_process();
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--batch-rows") == 0 && i + 1 < argc) {
            opts.batch_rows = (size_t)strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--columns") == 0 && i + 1 < argc) {
            char *tok, *save = NULL;
            cols_copy = strdup(argv[++i]);
            opts.n_columns = 0;
            for (tok = strtok_r(cols_copy, ",", &save); tok && opts.n_columns < 256;
                 tok = strtok_r(NULL, ",", &save))
                cols[opts.n_columns++] = tok;
            opts.columns = cols;
        } else if (argv[i][0] == '-' || file) {
            return usage();
        } else {
            file = argv[i];
        }
    }
    if (file == NULL)
        return usage();
    zb_ctx_init(&ctx);
    if ((rc = zb_io_new(&io, &ctx)) < 0 ||
        (rc = pq_reader_open(&r, io, &ctx, file, &opts)) < 0 ||
        (rc = pq_reader_arrow_schema(&schema, r, &ctx)) < 0) {
        fprintf(stderr, "zb-parquet-cat: %s\n", ctx.err.msg);
        pq_reader_free(r);
        zb_io_free(io);
        free(cols_copy);
        return 1;
    }
    while ((rc = pq_reader_next(r, &ctx, &batch)) == 1) {
        int64_t row;
        for (row = 0; row < batch.length; row++) {
            int64_t c;
            fputc('{', stdout);
            for (c = 0; c < schema.n_children; c++) {
                if (c)
                    fputc(',', stdout);
                put_string(stdout, (const uint8_t *)schema.children[c]->name,
                           strlen(schema.children[c]->name));
                fputc(':', stdout);
                put_value(stdout, schema.children[c], batch.children[c], row);
            }
            fputs("}\n", stdout);
        }
        batch.release(&batch);
    }
    if (rc < 0)
        fprintf(stderr, "zb-parquet-cat: %s\n", ctx.err.msg);
    schema.release(&schema);
    pq_reader_free(r);
    zb_io_free(io);
    free(cols_copy);
    return rc < 0 ? 1 : 0;
}

/*
 * zb-table-gen - builds an Iceberg table the way streaming ingest does,
 * through Zamboni's table-writing API (ops/ingest/table_write.h): many small
 * append commits, from several processes at once, optionally followed by
 * a position delete and an equality delete. Tests check the result with
 * independent readers (tests/interop/table_write.mjs reads it with
 * icebird); benchmarks and the demo use it to make input.
 *
 * Every row is (id long, proc int, payload string): id = proc * 1e9 +
 * append * rows + row, payload "p<proc>-a<append>-r<row>" or null for
 * every seventh row. --delete-pos deletes row 0 of the first data file
 * by position; --delete-eq deletes the row with id 1 (proc 0, append 0,
 * row 1) by equality on id. Both need format version 2 or later.
 *
 * Usage: zb-table-gen --sqlite DB --table NS.NAME --location DIR
 *          [--warehouse W] [--procs N] [--appends K] [--rows R]
 *          [--format-version V] [--delete-pos] [--delete-eq]
 * Prints the final metadata location. Exit 0, 1 on an error, 2 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "catalog/catalog.h"
#include "ops/ingest/table_write.h"
#include "util/alloc.h"

typedef struct gen_opts {
    const char *sqlite, *table, *location, *warehouse;
    int procs, appends, rows, format_version, delete_pos, delete_eq;
} gen_opts;

static const char SCHEMA[] =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"proc\",\"required\":true,\"type\":\"int\"},"
    "{\"id\":3,\"name\":\"payload\",\"required\":false,\"type\":\"string\"}"
    "]}";

static int make_schema(struct ArrowSchema *s, int only_id)
{
    if (zb_arrow_schema_init(s, "+s", "", NULL, 0, 0, only_id ? 1 : 3) < 0 ||
        zb_arrow_schema_field(s->children[0], "l", "id", 1, 0, 0) < 0)
        return -1;
    if (only_id)
        return 0;
    if (zb_arrow_schema_field(s->children[1], "i", "proc", 2, 0, 0) < 0 ||
        zb_arrow_schema_field(s->children[2], "u", "payload", 3, 1, 0) < 0)
        return -1;
    return 0;
}

/* The batch of one append: rows rows of proc p, append a. */
static int make_batch(struct ArrowArray *b, int p, int a, int rows)
{
    struct ArrowArray *ids, *procs, *pay;
    int64_t *idv;
    int32_t *pv, *off;
    uint8_t *valid;
    char *chars;
    int i, at = 0;

    if (zb_arrow_array_init(b, 1, 3) < 0)
        return -1;
    ids = b->children[0];
    procs = b->children[1];
    pay = b->children[2];
    if (zb_arrow_array_init(ids, 2, 0) < 0 ||
        zb_arrow_array_init(procs, 2, 0) < 0 ||
        zb_arrow_array_init(pay, 3, 0) < 0)
        return -1;
    idv = zb_malloc((size_t)rows * sizeof *idv + 1);
    pv = zb_malloc((size_t)rows * sizeof *pv + 1);
    off = zb_malloc(((size_t)rows + 1) * sizeof *off);
    valid = zb_calloc((size_t)rows / 8 + 1, 1);
    chars = zb_malloc((size_t)rows * 40 + 1);
    ids->buffers[1] = idv;
    procs->buffers[1] = pv;
    pay->buffers[0] = valid;
    pay->buffers[1] = off;
    pay->buffers[2] = chars;
    if (!idv || !pv || !off || !valid || !chars)
        return -1;
    off[0] = 0;
    pay->null_count = 0;
    for (i = 0; i < rows; i++) {
        idv[i] = (int64_t)p * 1000000000 + (int64_t)a * rows + i;
        pv[i] = p;
        if (i % 7 == 6) {
            pay->null_count++;
        } else {
            zb_arrow_set_bit(valid, i);
            at += snprintf(chars + at, 40, "p%d-a%d-r%d", p, a, i);
        }
        off[i + 1] = at;
    }
    b->length = ids->length = procs->length = pay->length = rows;
    return 0;
}

static int open_catalog(zb_catalog **cat, zb_io **io, zb_ctx *ctx,
                        const gen_opts *o)
{
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;

    cfg.kind = ZB_CATALOG_SQLITE;
    cfg.name = o->warehouse;
    cfg.warehouse = o->warehouse;
    cfg.sqlite_path = o->sqlite;
    cfg.warehouse_location = o->location;
    if (zb_io_new(io, ctx) < 0)
        return -1;
    return zb_catalog_open(cat, ctx, *io, &cfg) < 0 ? -1 : 0;
}

/* One process's appends. */
static int run_appends(const gen_opts *o, int p)
{
    zb_ctx ctx;
    zb_io *io = NULL;
    zb_catalog *cat = NULL;
    zb_table *t = NULL;
    struct ArrowSchema s;
    int a, rc = -1;

    zb_ctx_init(&ctx);
    memset(&s, 0, sizeof s);
    if (open_catalog(&cat, &io, &ctx, o) < 0 || make_schema(&s, 0) < 0 ||
        zb_catalog_load_table(cat, &ctx, o->table, &t) < 0)
        goto out;
    for (a = 0; a < o->appends; a++) {
        struct ArrowArray b;
        memset(&b, 0, sizeof b);
        if (make_batch(&b, p, a, o->rows) < 0) {
            zb_arrow_array_release(&b);
            fprintf(stderr, "zb-table-gen: out of memory\n");
            goto done;
        }
        rc = zb_ingest_append(&t, cat, io, &ctx, &s, &b, 1, NULL);
        zb_arrow_array_release(&b);
        if (rc < 0)
            goto out;
    }
    rc = 0;
    goto done;
out:
    if (ctx.err.code != ZB_OK)
        fprintf(stderr, "zb-table-gen: proc %d: %s\n", p, ctx.err.msg);
    rc = -1;
done:
    zb_arrow_schema_release(&s);
    zb_table_free(t);
    zb_catalog_free(cat);
    zb_io_free(io);
    return rc;
}

/* Deletes and the final report, in the parent. */
static int finish(const gen_opts *o)
{
    zb_ctx ctx;
    zb_io *io = NULL;
    zb_catalog *cat = NULL;
    zb_table *t = NULL;
    struct ArrowSchema s;
    struct ArrowArray b;
    int rc = -1;

    zb_ctx_init(&ctx);
    memset(&s, 0, sizeof s);
    memset(&b, 0, sizeof b);
    if (open_catalog(&cat, &io, &ctx, o) < 0 ||
        zb_catalog_load_table(cat, &ctx, o->table, &t) < 0)
        goto out;
    if (o->delete_pos) {
        /* Row 0 of the first data file the current snapshot lists. */
        ice_snapshot_iter *it = NULL;
        const ice_manifest_entry *e;
        const ice_manifest_file *mf;
        char *path = NULL;
        int64_t pos = 0;
        if (ice_snapshot_iter_open(&it, io, &ctx, t->meta,
                                   ice_metadata_current_snapshot(t->meta),
                                   &t->paths) < 0)
            goto out;
        while (path == NULL && ice_snapshot_iter_next(it, &ctx, &e, &mf) > 0)
            if (e->data_file.content == ICE_CONTENT_DATA)
                path = zb_strdup(e->data_file.file_path);
        ice_snapshot_iter_free(it);
        if (path == NULL)
            goto out;
        rc = zb_ingest_delete_positions(&t, cat, io, &ctx,
                                        (const char *const *)&path, &pos, 1,
                                        NULL);
        zb_free(path);
        if (rc < 0)
            goto out;
    }
    if (o->delete_eq) {
        int32_t eq = 1;
        int64_t *idv;
        if (make_schema(&s, 1) < 0 || zb_arrow_array_init(&b, 1, 1) < 0 ||
            zb_arrow_array_init(b.children[0], 2, 0) < 0 ||
            (idv = zb_malloc(sizeof *idv)) == NULL)
            goto out;
        *idv = 1;
        b.children[0]->buffers[1] = idv;
        b.length = b.children[0]->length = 1;
        if (zb_ingest_delete_equal(&t, cat, io, &ctx, &eq, 1, &s, &b, NULL) < 0)
            goto out;
    }
    printf("%s\n", t->metadata_location);
    rc = 0;
out:
    if (rc < 0 && ctx.err.code != ZB_OK)
        fprintf(stderr, "zb-table-gen: %s\n", ctx.err.msg);
    zb_arrow_array_release(&b);
    zb_arrow_schema_release(&s);
    zb_table_free(t);
    zb_catalog_free(cat);
    zb_io_free(io);
    return rc;
}

static int create(const gen_opts *o)
{
    zb_ctx ctx;
    zb_io *io = NULL;
    zb_catalog *cat = NULL;
    zb_table *t = NULL;
    json_t *schema = json_loads(SCHEMA, 0, NULL);
    char ns[256];
    const char *dot = strrchr(o->table, '.');
    int rc = -1;

    zb_ctx_init(&ctx);
    if (schema == NULL || dot == NULL || (size_t)(dot - o->table) >= sizeof ns)
        goto out;
    memcpy(ns, o->table, (size_t)(dot - o->table));
    ns[dot - o->table] = '\0';
    if (open_catalog(&cat, &io, &ctx, o) < 0)
        goto out;
    if (zb_catalog_create_namespace(cat, &ctx, ns) < 0 &&
        ctx.err.code != ZB_EEXISTS)
        goto out;
    rc = zb_ingest_create(&t, cat, &ctx, o->table, NULL, (const zb_json *)schema,
                          NULL, NULL,
                          0, o->format_version);
out:
    if (rc < 0)
        fprintf(stderr, "zb-table-gen: creating %s: %s\n", o->table,
                ctx.err.msg);
    json_decref(schema);
    zb_table_free(t);
    zb_catalog_free(cat);
    zb_io_free(io);
    return rc;
}

static int usage(void)
{
    fprintf(stderr, "usage: zb-table-gen --sqlite DB --table NS.NAME "
                    "--location DIR [--warehouse W] [--procs N] "
                    "[--appends K] [--rows R] [--format-version V] "
                    "[--delete-pos] [--delete-eq]\n");
    return 2;
}

int main(int argc, char **argv)
{
    gen_opts o = { NULL, NULL, NULL, "zamboni", 1, 1, 100, 2, 0, 0 };
    int i, p, failed = 0;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--delete-pos")) { o.delete_pos = 1; continue; }
        if (!strcmp(a, "--delete-eq")) { o.delete_eq = 1; continue; }
        if (v == NULL)
            return usage();
        i++;
        if (!strcmp(a, "--sqlite")) o.sqlite = v;
        else if (!strcmp(a, "--table")) o.table = v;
        else if (!strcmp(a, "--location")) o.location = v;
        else if (!strcmp(a, "--warehouse")) o.warehouse = v;
        else if (!strcmp(a, "--procs")) o.procs = (int)strtol(v, NULL, 10);
        else if (!strcmp(a, "--appends")) o.appends = (int)strtol(v, NULL, 10);
        else if (!strcmp(a, "--rows")) o.rows = (int)strtol(v, NULL, 10);
        else if (!strcmp(a, "--format-version"))
            o.format_version = (int)strtol(v, NULL, 10);
        else
            return usage();
    }
    if (!o.sqlite || !o.table || !o.location || o.procs < 1 ||
        o.appends < 0 || o.rows < 1 || o.rows > 10000000)
        return usage();
    if (create(&o) < 0)
        return 1;
    for (p = 0; p < o.procs; p++) {
        pid_t pid = fork();
        if (pid < 0) {
            fprintf(stderr, "zb-table-gen: fork: %s\n", strerror(errno));
            return 1;
        }
        if (pid == 0)
            _exit(run_appends(&o, p) < 0 ? 1 : 0);
    }
    for (p = 0; p < o.procs; p++) {
        int st;
        if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            failed++;
    }
    if (failed) {
        fprintf(stderr, "zb-table-gen: %d of %d processes failed\n", failed,
                o.procs);
        return 1;
    }
    return finish(&o) < 0 ? 1 : 0;
}

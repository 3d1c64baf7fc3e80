/*
 * zb-hot-writer - a hot table's writer for compaction's scenario test
 * (issue 21, tests/interop/compact_hot.mjs): appends a small file and
 * deletes rows by position, every --every-ms (default 40) for --seconds
 * (default 25), on a table of (id long, day int, payload string)
 * partitioned by identity(day) over two days, through Zamboni's
 * table-writing API (ops/ingest/table_write.h): position delete files on
 * v2, deletion vectors on v3.
 *
 * It keeps its own account of the live rows from what its commits say:
 * it deletes only from files it appended, and after each delete commit
 * it reads the replace snapshots among the ancestors of that commit (not
 * read yet) for the data files they removed. A delete against a file a
 * replace removed before it names a file no longer in the table: it
 * deletes nothing, and the rows stay live (in the rewritten file). Any
 * other delete removed its rows, whatever compaction does afterwards.
 *
 * --merge-dvs 1 (v3): deletes again from files that have a DV, as Spark
 * does: one overwrite commit removes the file's DV and adds one holding
 * its old positions and the new ones (at most one DV a data file).
 *
 * Usage: zb-hot-writer (--dir DIR | --sqlite DB --table NS.NAME
 *          --location DIR [--warehouse W]) [--format 2|3] [--seconds S]
 *          [--every-ms M] [--rows R] [--seed N] [--merge-dvs 0|1]
 *          --expect FILE
 * Creates the table (commit.retry.num-retries 60, min-wait-ms 20,
 * max-wait-ms 400: a hot table's settings, whose retries span about
 * 15 s, so that a compaction started while the writer runs is still
 * retrying when it stops), then writes. Prints
 *   appends A deletes D applied P dangling X rows_deleted R expected_rows E
 *   merged_dvs M
 * and writes the ids it expects live to FILE, one a line.
 * Exit 0, 1 on an error, 2 usage.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "catalog/catalog.h"
#include "exec/arrow/arrow.h"
#include "ops/ingest/table_write.h"
#include "table/manifest/manifest.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/err.h"

#define DAY0 20000

typedef struct hw_file {
    char *path;
    int day;
    int64_t first;                 /* ids first.. */
    int n;
    char *dead;                    /* per row */
    int deleted_once;              /* v3: it has a DV */
    char *dv;                      /* --merge-dvs: its DV's Puffin file */
} hw_file;

typedef struct hw {
    const char *dir, *sqlite, *table, *location, *warehouse, *expect;
    int format, seconds, every_ms, rows, merge_dvs;
    unsigned seed;
    zb_ctx ctx;
    zb_io *io;
    zb_catalog *cat;
    zb_table *t;
    const char *ident;
    hw_file *files;
    size_t n_files, cap;
    json_t *removed;               /* data file path -> true */
    json_t *seen;                  /* snapshot id text -> true */
    long appends, deletes, applied, dangling, rows_deleted, merged;
} hw;

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int create(hw *h)
{
    static const char SCHEMA[] =
        "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        "{\"id\":2,\"name\":\"day\",\"required\":true,\"type\":\"int\"},"
        "{\"id\":3,\"name\":\"payload\",\"required\":false,"
        "\"type\":\"string\"}]}";
    static const char SPEC[] =
        "{\"spec-id\":0,\"fields\":[{\"source-id\":2,\"field-id\":1000,"
        "\"name\":\"day\",\"transform\":\"identity\"}]}";
    /* A hot table's commit retries: more of them, and shorter waits,
     * than the defaults (4, from 100 ms), for the writer and compaction
     * alike. */
    static const ice_kv props[] = {
        { "commit.retry.num-retries", "60" },
        { "commit.retry.min-wait-ms", "20" },
        { "commit.retry.max-wait-ms", "400" },
    };
    json_t *schema = json_loads(SCHEMA, 0, NULL);
    json_t *spec = json_loads(SPEC, 0, NULL);
    int rc = -1;

    if (schema == NULL || spec == NULL)
        goto out;
    if (h->dir == NULL) {
        const char *dot = strrchr(h->table, '.');
        char ns[256];

        if (dot == NULL || (size_t)(dot - h->table) >= sizeof ns)
            goto out;
        memcpy(ns, h->table, (size_t)(dot - h->table));
        ns[dot - h->table] = '\0';
        if (zb_catalog_create_namespace(h->cat, &h->ctx, ns) < 0 &&
            h->ctx.err.code != ZB_EEXISTS)
            goto out;
        zb_err_clear(&h->ctx.err);
    }
    rc = zb_ingest_create(&h->t, h->cat, &h->ctx, h->ident, h->dir,
                          (const zb_json *)schema, (const zb_json *)spec,
                          props, sizeof props / sizeof props[0], h->format);
out:
    json_decref(schema);
    json_decref(spec);
    return rc;
}

/* The batch of ids first..first+n of day. */
static int batch(struct ArrowSchema *sc, struct ArrowArray *b,
                 int64_t first, int n, int day)
{
    struct ArrowArray *c;
    int32_t *off;
    char *chars;
    int i;

    if (zb_arrow_schema_init(sc, "+s", "", NULL, 0, 0, 3) < 0 ||
        zb_arrow_schema_field(sc->children[0], "l", "id", 1, 0, 0) < 0 ||
        zb_arrow_schema_field(sc->children[1], "i", "day", 2, 0, 0) < 0 ||
        zb_arrow_schema_field(sc->children[2], "u", "payload", 3, 1, 0) < 0 ||
        zb_arrow_array_init(b, 1, 3) < 0 ||
        zb_arrow_array_init(b->children[0], 2, 0) < 0 ||
        zb_arrow_array_init(b->children[1], 2, 0) < 0 ||
        zb_arrow_array_init(b->children[2], 3, 0) < 0)
        return -1;
    c = b->children[0];
    if ((c->buffers[1] = zb_malloc((size_t)n * 8)) == NULL)
        return -1;
    c = b->children[1];
    if ((c->buffers[1] = zb_malloc((size_t)n * 4)) == NULL)
        return -1;
    c = b->children[2];
    off = zb_malloc(((size_t)n + 1) * sizeof *off);
    chars = zb_malloc((size_t)n * 24 + 1);
    c->buffers[1] = off;
    c->buffers[2] = chars;
    if (off == NULL || chars == NULL)
        return -1;
    off[0] = 0;
    for (i = 0; i < n; i++) {
        ((int64_t *)b->children[0]->buffers[1])[i] = first + i;
        ((int32_t *)b->children[1]->buffers[1])[i] = day;
        off[i + 1] = off[i] + snprintf(chars + off[i], 24, "p%lld",
                                       (long long)(first + i));
    }
    for (i = 0; i < 3; i++)
        b->children[i]->length = n;
    b->length = n;
    return 0;
}

static int append(hw *h, int64_t first, int day)
{
    struct ArrowSchema sc;
    struct ArrowArray b;
    zb_arena *arena = NULL;
    ice_value v = ice_value_int(day);
    zb_write_partition wp = { -1, 1, NULL, NULL };
    ice_data_file f;
    int32_t spec = -1;
    hw_file *hf;
    int rc = -1;

    wp.values = &v;
    memset(&sc, 0, sizeof sc);
    memset(&b, 0, sizeof b);
    if (batch(&sc, &b, first, h->rows, day) < 0 ||
        zb_arena_new(&arena, (size_t)64 << 20) < 0)
        goto out;
    if ((rc = zb_ingest_write_parquet(&f, arena, h->io, &h->ctx, h->t,
                                      ICE_CONTENT_DATA, &sc, &b, 1,
                                      &wp)) < 0 ||
        (rc = zb_ingest_commit_files(&h->t, h->cat, h->io, &h->ctx, &f,
                                     &spec, 1)) < 0)
        goto out;
    rc = -1;
    if (h->n_files == h->cap) {
        size_t c = h->cap ? h->cap * 2 : 256;
        hw_file *p = zb_realloc(h->files, c * sizeof *p);
        if (p == NULL)
            goto out;
        h->files = p;
        h->cap = c;
    }
    hf = &h->files[h->n_files];
    memset(hf, 0, sizeof *hf);
    hf->path = zb_strdup(f.file_path);
    hf->dead = zb_calloc((size_t)h->rows, 1);
    if (hf->path == NULL || hf->dead == NULL)
        goto out;
    hf->day = day;
    hf->first = first;
    hf->n = h->rows;
    h->n_files++;
    h->appends++;
    rc = 0;
out:
    zb_arrow_array_release(&b);
    zb_arrow_schema_release(&sc);
    zb_arena_free(arena);
    return rc;
}

/* The data files the replace snapshot s removed, into h->removed. */
static int read_replace(hw *h, const ice_snapshot *s)
{
    const zb_table *t = h->t;
    ice_manifest_list_reader *lr = NULL;
    ice_manifest_reader *r = NULL;
    const ice_manifest_file *mf;
    const ice_manifest_entry *e;
    int rc;

    if (s->manifest_list == NULL)
        return 0;
    if ((rc = ice_manifest_list_open(&lr, h->io, &h->ctx, s->manifest_list,
                                     t->meta->format_version,
                                     &t->paths)) < 0)
        return rc;
    while ((rc = ice_manifest_list_next(lr, &h->ctx, &mf)) > 0) {
        if (mf->added_snapshot_id != s->snapshot_id)
            continue;
        if ((rc = ice_manifest_open(&r, h->io, &h->ctx, mf, NULL,
                                    t->meta->format_version,
                                    &t->paths)) < 0)
            break;
        while ((rc = ice_manifest_next(r, &h->ctx, &e)) > 0)
            if (e->status == ICE_STATUS_DELETED &&
                e->snapshot_id == s->snapshot_id &&
                e->data_file.content == ICE_CONTENT_DATA)
                json_object_set_new(h->removed, e->data_file.file_path,
                                    json_true());
        ice_manifest_free(r);
        r = NULL;
        if (rc < 0)
            break;
    }
    ice_manifest_list_free(lr);
    return rc < 0 ? rc : 0;
}

/* Every replace among the ancestors of the table's head not read yet. */
static int catch_up(hw *h)
{
    const ice_metadata *m = h->t->meta;
    const ice_snapshot *head = ice_metadata_current_snapshot(m), **chain;
    size_t n, i;
    int rc = 0;

    if (head == NULL)
        return 0;
    n = ice_metadata_ancestors(NULL, 0, m, head->snapshot_id);
    if ((chain = zb_calloc(n + 1, sizeof *chain)) == NULL)
        return -1;
    n = ice_metadata_ancestors(chain, n, m, head->snapshot_id);
    for (i = 0; i < n && rc == 0; i++) {
        char id[32];

        snprintf(id, sizeof id, "%lld", (long long)chain[i]->snapshot_id);
        if (json_object_get(h->seen, id) != NULL)
            break;                 /* and every older one */
        json_object_set_new(h->seen, id, json_true());
        if (chain[i]->operation != NULL &&
            strcmp(chain[i]->operation, "replace") == 0)
            rc = read_replace(h, chain[i]);
    }
    zb_free(chain);
    return rc;
}

static int delete_some(hw *h)
{
    hw_file *f = NULL;
    const char *paths[3];
    int64_t pos[3], *all = NULL;
    char *dv = NULL;
    size_t n_all = 0;
    int k = 1 + rand() % 3, got = 0, tries, i;
    ice_value v;
    zb_write_partition wp = { -1, 1, NULL, NULL };
    int rc;

    /* A file of ours, live as far as we know, with live rows. */
    for (tries = 0; tries < 50 && f == NULL; tries++) {
        hw_file *c = &h->files[(size_t)rand() % h->n_files];

        if (json_object_get(h->removed, c->path) != NULL ||
            (h->format >= 3 && c->deleted_once &&
             (!h->merge_dvs || c->dv == NULL)))
            continue;
        f = c;
    }
    if (f == NULL)
        return 0;
    for (tries = 0; tries < 20 && got < k; tries++) {
        int p = rand() % f->n;

        for (i = 0; i < got && pos[i] != p; i++)
            ;
        if (i < got || f->dead[p])
            continue;
        paths[got] = f->path;
        pos[got++] = p;
    }
    if (got == 0)
        return 0;
    v = ice_value_int(f->day);
    wp.values = &v;
    if (h->merge_dvs && h->format >= 3) {
        /* The DV's positions are exactly the rows marked dead: a delete
         * marks them only when it applied (not dangling). */
        if ((all = zb_malloc(((size_t)f->n + 3) * sizeof *all)) == NULL)
            return zb_fail_oom(&h->ctx);
        for (i = 0; i < f->n; i++)
            if (f->dead[i])
                all[n_all++] = i;
        for (i = 0; i < got; i++)
            all[n_all++] = pos[i];
        rc = zb_ingest_replace_dv(&h->t, h->cat, h->io, &h->ctx, f->dv,
                                  f->path, all, n_all, &wp, &dv);
        zb_free(all);
        if (rc == ZB_OK) {
            h->merged += f->dv != NULL;
            zb_free(f->dv);
            f->dv = dv;
        }
    } else {
        rc = zb_ingest_delete_positions(&h->t, h->cat, h->io, &h->ctx,
                                        paths, pos, (size_t)got, &wp);
    }
    if (rc == ZB_ECONFLICT || rc == ZB_EUNSUPPORTED) {
        /* Lost every retry, or (v3) a vector came meanwhile, or (merge)
         * a replace removed the file's vector: nothing committed. */
        fprintf(stderr, "zb-hot-writer: delete not committed: %s\n",
                h->ctx.err.msg);
        zb_err_clear(&h->ctx.err);
        return 0;
    }
    if (rc < 0)
        return rc;
    h->deletes++;
    f->deleted_once = 1;
    if ((rc = catch_up(h)) < 0)
        return rc;
    if (json_object_get(h->removed, f->path) != NULL) {
        h->dangling++;             /* the file was already replaced */
        return 0;
    }
    h->applied++;
    for (i = 0; i < got; i++)
        if (!f->dead[pos[i]]) {
            f->dead[pos[i]] = 1;
            h->rows_deleted++;
        }
    return 0;
}

static int run(hw *h)
{
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    double start, next;
    int64_t id = 0;
    long iter = 0;
    FILE *out;
    size_t i;
    int j;

    if (h->dir != NULL) {
        cfg.kind = ZB_CATALOG_PATH;
        h->ident = h->dir;
    } else {
        cfg.kind = ZB_CATALOG_SQLITE;
        cfg.name = h->warehouse;
        cfg.warehouse = h->warehouse;
        cfg.sqlite_path = h->sqlite;
        cfg.warehouse_location = h->location;
        h->ident = h->table;
    }
    if (zb_io_new(&h->io, &h->ctx) < 0 ||
        zb_catalog_open(&h->cat, &h->ctx, h->io, &cfg) < 0 || create(h) < 0)
        return -1;
    /* A first file in each day. */
    for (j = 0; j < 2; j++, id += h->rows)
        if (append(h, id, DAY0 + j) < 0)
            return -1;
    start = next = now_ms();
    while (now_ms() - start < (double)h->seconds * 1e3) {
        double wait;

        if (append(h, id, DAY0 + (int)(iter % 2)) < 0 || delete_some(h) < 0)
            return -1;
        id += h->rows;
        iter++;
        next += h->every_ms;
        wait = next - now_ms();
        if (wait > 0) {
            struct timespec ts;

            ts.tv_sec = (time_t)(wait / 1e3);
            ts.tv_nsec = (long)((wait - (double)ts.tv_sec * 1e3) * 1e6);
            nanosleep(&ts, NULL);
        } else {
            next = now_ms();       /* behind: no burst to catch up */
        }
    }
    if ((out = fopen(h->expect, "w")) == NULL)
        return -1;
    for (i = 0; i < h->n_files; i++)
        for (j = 0; j < h->files[i].n; j++)
            if (!h->files[i].dead[j])
                fprintf(out, "%lld\n", (long long)(h->files[i].first + j));
    fclose(out);
    printf("appends %ld deletes %ld applied %ld dangling %ld rows_deleted "
           "%ld expected_rows %lld merged_dvs %ld\n", h->appends, h->deletes,
           h->applied, h->dangling, h->rows_deleted,
           (long long)((int64_t)h->appends * h->rows - h->rows_deleted),
           h->merged);
    return 0;
}

int main(int argc, char **argv)
{
    hw h;
    size_t i;
    int a, rc;

    memset(&h, 0, sizeof h);
    h.format = 2;
    h.seconds = 25;
    h.every_ms = 40;
    h.rows = 20;
    h.seed = 21;
    h.warehouse = "zamboni";
    for (a = 1; a < argc; a++) {
        const char *k = argv[a], *v = a + 1 < argc ? argv[a + 1] : NULL;

        if (v == NULL)
            goto usage;
        a++;
        if (strcmp(k, "--dir") == 0) h.dir = v;
        else if (strcmp(k, "--sqlite") == 0) h.sqlite = v;
        else if (strcmp(k, "--table") == 0) h.table = v;
        else if (strcmp(k, "--location") == 0) h.location = v;
        else if (strcmp(k, "--warehouse") == 0) h.warehouse = v;
        else if (strcmp(k, "--expect") == 0) h.expect = v;
        else if (strcmp(k, "--format") == 0) h.format = atoi(v);
        else if (strcmp(k, "--seconds") == 0) h.seconds = atoi(v);
        else if (strcmp(k, "--every-ms") == 0) h.every_ms = atoi(v);
        else if (strcmp(k, "--rows") == 0) h.rows = atoi(v);
        else if (strcmp(k, "--seed") == 0) h.seed = (unsigned)atoi(v);
        else if (strcmp(k, "--merge-dvs") == 0) h.merge_dvs = atoi(v);
        else goto usage;
    }
    if (h.expect == NULL || h.rows < 1 || h.every_ms < 1 ||
        (h.format != 2 && h.format != 3) ||
        (h.dir == NULL && (h.sqlite == NULL || h.table == NULL ||
                           h.location == NULL)))
        goto usage;
    srand(h.seed);
    zb_ctx_init(&h.ctx);
    h.removed = json_object();
    h.seen = json_object();
    rc = h.removed != NULL && h.seen != NULL ? run(&h) : -1;
    if (rc < 0)
        fprintf(stderr, "zb-hot-writer: %s\n", h.ctx.err.msg);
    for (i = 0; i < h.n_files; i++) {
        zb_free(h.files[i].path);
        zb_free(h.files[i].dead);
        zb_free(h.files[i].dv);
    }
    zb_free(h.files);
    json_decref(h.removed);
    json_decref(h.seen);
    zb_table_free(h.t);
    zb_catalog_free(h.cat);
    zb_io_free(h.io);
    return rc < 0 ? 1 : 0;
usage:
    fprintf(stderr, "usage: zb-hot-writer (--dir DIR | --sqlite DB --table "
            "NS.NAME --location DIR) [--format 2|3] [--seconds S] "
            "[--every-ms M] [--rows R] [--seed N] [--merge-dvs 0|1] "
            "--expect FILE\n");
    return 2;
}

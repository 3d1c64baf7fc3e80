/*
 * zb-stream-gen - builds an Iceberg table the way a streaming job leaves
 * it, through Zamboni's table-writing API (ops/ingest/table_write.h) and the
 * SQLite catalog: many small append commits of a few rows per file, with
 * position deletes and equality deletes committed between them, and
 * mid-way a schema change and (partitioned) a partition spec change,
 * appends going on in the new schema and spec. One process, seeded, so
 * a run is repeatable. tests/interop/compact_stream.mjs compacts such
 * tables and compares their rows with an independent reader.
 *
 * Rows: id long (unique, increasing), k1 int, k2 string "u<0..39>",
 * payload string ("r<id>", null every seventh row), and after the schema
 * change region int (id % 5, null every eleventh row; field id 5). The
 * equality deletes are on (k1, k2), so one removes every row of that pair
 * appended before it, and none appended after.
 *
 * Unpartitioned: each append commit adds --files files of --rows rows of
 * mixed k1 (id % 4). With --partitioned: spec 0 is identity(k1) and each
 * commit adds one file per k1 in 0..3 (a streaming writer's fanout); the
 * spec change adds bucket[2](id), files then split per (k1, bucket).
 *
 * Every --pos-every commits, a position delete pass: --pos-files data
 * files picked at random among all appended so far (some again later),
 * one or two positions each, one delete file per partition (two files
 * when unpartitioned). Every --eq-every commits, one equality delete
 * file of three (k1, k2) pairs, in a partition of the current spec or,
 * after the spec change, every other time in spec 0 (an older writer).
 *
 * The tool keeps its own account of which rows the deletes remove (by
 * the spec's sequence number and partition rules) and prints
 *   metadata <location>
 *   expected_rows <n> appended_rows <n> data_files <n> delete_files <n>
 *   commits <n>
 * and with --expect FILE writes the ids of the rows it expects live there,
 * one a line.
 *
 * Usage: zb-stream-gen --sqlite DB --table NS.NAME --location DIR
 *          [--warehouse W] [--partitioned] [--commits N] [--files F]
 *          [--rows R] [--evolve-at C] [--pos-every P] [--pos-files K]
 *          [--eq-every E] [--seed S] [--expect FILE]
 * Exit 0, 1 on an error, 2 usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "catalog/catalog.h"
#include "ops/ingest/table_write.h"
#include "table/value/transform.h"
#include "util/alloc.h"

#define N_K1 4
#define N_K2 40
#define BUCKETS 2

typedef struct sg_opts {
    const char *sqlite, *table, *location, *warehouse, *expect;
    int partitioned, commits, files, rows, evolve_at, pos_every, pos_files;
    int eq_every;
    unsigned seed;
} sg_opts;

typedef struct sg_row {
    int64_t id;
    int32_t k1, k2;
    int64_t seq;        /* data sequence number of its file */
    int32_t file;
    char dead;
} sg_row;

typedef struct sg_file {
    char *path;
    int32_t spec, k1, bucket;   /* bucket -1 in spec 0 */
    size_t first, n;            /* its rows in the row table */
} sg_file;

typedef struct sg_state {
    const sg_opts *o;
    zb_ctx ctx;
    zb_io *io;
    zb_catalog *cat;
    zb_table *t;
    sg_row *rows;
    size_t n_rows, cap_rows;
    sg_file *files;
    size_t n_files, cap_files;
    int64_t seq;            /* of the last commit */
    int64_t next_id;
    int evolved;
    size_t n_deletes;
    unsigned rnd;
} sg_state;

static unsigned rnd(sg_state *s)
{
    s->rnd = s->rnd * 1103515245u + 12345u;
    return (s->rnd >> 8) & 0xffffffu;
}

/* Partition key used for the tool's own delete accounting. */
static int same_part(const sg_file *f, int32_t spec, int32_t k1,
                     int32_t bucket)
{
    return f->spec == spec && f->k1 == k1 && f->bucket == bucket;
}

static int bucket_of(sg_state *s, int64_t id, int32_t *out)
{
    ice_transform tr;
    ice_value in = ice_value_long(id), v;

    if (ice_transform_parse(&tr, &s->ctx, "bucket[2]") < 0 ||
        ice_transform_apply(&v, &s->ctx, &tr, &in) < 0)
        return -1;
    *out = v.u.i;
    return 0;
}

/* ---- Arrow batches ------------------------------------------------------ */

static int data_schema(struct ArrowSchema *sc, int evolved)
{
    if (zb_arrow_schema_init(sc, "+s", "", NULL, 0, 0, evolved ? 5 : 4) < 0 ||
        zb_arrow_schema_field(sc->children[0], "l", "id", 1, 0, 0) < 0 ||
        zb_arrow_schema_field(sc->children[1], "i", "k1", 2, 0, 0) < 0 ||
        zb_arrow_schema_field(sc->children[2], "u", "k2", 3, 0, 0) < 0 ||
        zb_arrow_schema_field(sc->children[3], "u", "payload", 4, 1, 0) < 0)
        return -1;
    if (evolved &&
        zb_arrow_schema_field(sc->children[4], "i", "region", 5, 1, 0) < 0)
        return -1;
    return 0;
}

static int int_col(struct ArrowArray *c, size_t n, int width)
{
    if (zb_arrow_array_init(c, 2, 0) < 0 ||
        (c->buffers[1] = zb_calloc(n + 1, (size_t)width)) == NULL)
        return -1;
    c->length = (int64_t)n;
    return 0;
}

static int str_col(struct ArrowArray *c, size_t n, int nullable)
{
    if (zb_arrow_array_init(c, 3, 0) < 0 ||
        (c->buffers[1] = zb_calloc(n + 1, sizeof(int32_t))) == NULL ||
        (c->buffers[2] = zb_malloc(n * 24 + 1)) == NULL)
        return -1;
    if (nullable && (c->buffers[0] = zb_calloc(n / 8 + 1, 1)) == NULL)
        return -1;
    c->length = (int64_t)n;
    return 0;
}

static void str_set(struct ArrowArray *c, size_t i, const char *v)
{
    int32_t *off = (int32_t *)c->buffers[1];
    char *chars = (char *)c->buffers[2];
    size_t len = v ? strlen(v) : 0;

    if (v != NULL) {
        memcpy(chars + off[i], v, len);
        if (c->buffers[0] != NULL)
            zb_arrow_set_bit((uint8_t *)c->buffers[0], (int64_t)i);
    } else {
        c->null_count++;
    }
    off[i + 1] = off[i] + (int32_t)len;
}

/* The batch of rows [first, first + n) of the row table. */
static int data_batch(struct ArrowArray *b, const sg_state *s, size_t first,
                      size_t n)
{
    int ncol = s->evolved ? 5 : 4;
    size_t i;

    if (zb_arrow_array_init(b, 1, ncol) < 0 ||
        int_col(b->children[0], n, 8) < 0 ||
        int_col(b->children[1], n, 4) < 0 ||
        str_col(b->children[2], n, 0) < 0 ||
        str_col(b->children[3], n, 1) < 0)
        return -1;
    if (s->evolved) {
        struct ArrowArray *r = b->children[4];
        if (int_col(r, n, 4) < 0 ||
            (r->buffers[0] = zb_calloc(n / 8 + 1, 1)) == NULL)
            return -1;
    }
    for (i = 0; i < n; i++) {
        const sg_row *r = &s->rows[first + i];
        char k2[16], pay[32];

        ((int64_t *)b->children[0]->buffers[1])[i] = r->id;
        ((int32_t *)b->children[1]->buffers[1])[i] = r->k1;
        snprintf(k2, sizeof k2, "u%d", (int)r->k2);
        str_set(b->children[2], i, k2);
        snprintf(pay, sizeof pay, "r%lld", (long long)r->id);
        str_set(b->children[3], i, r->id % 7 == 6 ? NULL : pay);
        if (s->evolved) {
            struct ArrowArray *c = b->children[4];
            ((int32_t *)c->buffers[1])[i] = (int32_t)(r->id % 5);
            if (r->id % 11 == 10)
                c->null_count++;
            else
                zb_arrow_set_bit((uint8_t *)c->buffers[0], (int64_t)i);
        }
    }
    b->length = (int64_t)n;
    return 0;
}

/* ---- bookkeeping -------------------------------------------------------- */

static int grow(void **v, size_t *cap, size_t need, size_t size)
{
    void *p;
    size_t c = *cap ? *cap : 256;

    if (need <= *cap)
        return 0;
    while (c < need)
        c *= 2;
    if ((p = zb_realloc(*v, c * size)) == NULL)
        return -1;
    *v = p;
    *cap = c;
    return 0;
}

/* The partition of a write: values and folder in the caller's buffers. */
static void partition_of(zb_write_partition *wp, ice_value vals[2],
                         char *folder, size_t fsz, int32_t spec, int32_t k1,
                         int32_t bucket)
{
    vals[0] = ice_value_int(k1);
    vals[1] = ice_value_int(bucket);
    wp->spec_id = spec;
    wp->values = vals;
    wp->n_values = spec == 0 ? 1 : 2;
    if (spec == 0)
        snprintf(folder, fsz, "k1=%d", (int)k1);
    else
        snprintf(folder, fsz, "k1=%d/id_bucket=%d", (int)k1, (int)bucket);
    wp->folder = folder;
}

/* Adds n new rows of k1 (-1: id % 4) to the row table; returns the first. */
static int new_rows(sg_state *s, size_t n, int32_t k1, size_t *first)
{
    size_t i;

    if (grow((void **)&s->rows, &s->cap_rows, s->n_rows + n,
             sizeof *s->rows) < 0)
        return -1;
    *first = s->n_rows;
    for (i = 0; i < n; i++) {
        sg_row *r = &s->rows[s->n_rows++];
        r->id = s->next_id++;
        r->k1 = k1 >= 0 ? k1 : (int32_t)(r->id % N_K1);
        r->k2 = (int32_t)(rnd(s) % N_K2);
        r->seq = 0;
        r->file = -1;
        r->dead = 0;
    }
    return 0;
}

/* ---- commits ------------------------------------------------------------ */

typedef struct sg_pending {
    size_t first, n;
    int32_t spec, k1, bucket;
} sg_pending;

/* One append commit: the files of pend, written then committed together. */
static int append_commit(sg_state *s, const sg_pending *pend, size_t n_pend)
{
    zb_arena *arena = NULL;
    ice_data_file *df = NULL;
    int32_t *specs = NULL;
    struct ArrowSchema sc;
    size_t i, j;
    int rc = -1;

    memset(&sc, 0, sizeof sc);
    if (zb_arena_new(&arena, (size_t)64 << 20) < 0 ||
        data_schema(&sc, s->evolved) < 0 ||
        (df = zb_calloc(n_pend, sizeof *df)) == NULL ||
        (specs = zb_calloc(n_pend, sizeof *specs)) == NULL ||
        grow((void **)&s->files, &s->cap_files, s->n_files + n_pend,
             sizeof *s->files) < 0)
        goto out;
    for (i = 0; i < n_pend; i++) {
        const sg_pending *p = &pend[i];
        struct ArrowArray b;
        zb_write_partition wp;
        ice_value vals[2];
        char folder[64];

        memset(&b, 0, sizeof b);
        if (s->o->partitioned)
            partition_of(&wp, vals, folder, sizeof folder, p->spec, p->k1,
                         p->bucket);
        if (data_batch(&b, s, p->first, p->n) < 0) {
            zb_arrow_array_release(&b);
            goto out;
        }
        rc = zb_ingest_write_parquet(&df[i], arena, s->io, &s->ctx, s->t,
                                     ICE_CONTENT_DATA, &sc, &b, 1,
                                     s->o->partitioned ? &wp : NULL);
        zb_arrow_array_release(&b);
        if (rc < 0)
            goto out;
        rc = -1;
        specs[i] = s->o->partitioned ? p->spec : -1;
    }
    if (zb_ingest_commit_files(&s->t, s->cat, s->io, &s->ctx, df, specs,
                               n_pend) < 0)
        goto out;
    s->seq++;
    for (i = 0; i < n_pend; i++) {
        sg_file *f = &s->files[s->n_files];

        if ((f->path = zb_strdup(df[i].file_path)) == NULL)
            goto out;
        f->spec = s->o->partitioned ? pend[i].spec : 0;
        f->k1 = s->o->partitioned ? pend[i].k1 : -1;
        f->bucket = s->o->partitioned ? pend[i].bucket : -1;
        f->first = pend[i].first;
        f->n = pend[i].n;
        for (j = 0; j < f->n; j++) {
            s->rows[f->first + j].seq = s->seq;
            s->rows[f->first + j].file = (int32_t)s->n_files;
        }
        s->n_files++;
    }
    rc = 0;
out:
    zb_arrow_schema_release(&sc);
    zb_free(specs);
    zb_free(df);
    zb_arena_free(arena);
    return rc;
}

static int append_round(sg_state *s)
{
    sg_pending pend[N_K1 * BUCKETS + 16];
    size_t n = 0, i, first;
    int32_t k, b;

    if (!s->o->partitioned) {
        for (i = 0; i < (size_t)s->o->files && n < 16; i++) {
            if (new_rows(s, (size_t)s->o->rows, -1, &first) < 0)
                return -1;
            pend[n++] = (sg_pending){ first, (size_t)s->o->rows, 0, -1, -1 };
        }
        return append_commit(s, pend, n);
    }
    for (k = 0; k < N_K1; k++) {
        if (new_rows(s, (size_t)s->o->rows, k, &first) < 0)
            return -1;
        if (!s->evolved) {
            pend[n++] = (sg_pending){ first, (size_t)s->o->rows, 0, k, -1 };
            continue;
        }
        /* spec 1: the rows grouped by bucket, one file per bucket */
        {
            sg_row tmp[256];
            size_t m = (size_t)s->o->rows, at = 0;
            for (b = 0; b < BUCKETS; b++) {
                size_t start = at;
                for (i = 0; i < m; i++) {
                    int32_t bk;
                    if (bucket_of(s, s->rows[first + i].id, &bk) < 0)
                        return -1;
                    if (bk == b)
                        tmp[at++] = s->rows[first + i];
                }
                if (at > start)
                    pend[n++] = (sg_pending){ first + start, at - start, 1,
                                              k, b };
            }
            memcpy(&s->rows[first], tmp, m * sizeof *tmp);
        }
    }
    return append_commit(s, pend, n);
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* One position delete file over the picked files of one partition. */
static int pos_delete_file(sg_state *s, const size_t *pick, size_t n_pick)
{
    const char **paths = NULL;
    int64_t *pos = NULL;
    size_t i, n = 0;
    int rc = -1;
    zb_write_partition wp;
    ice_value vals[2];
    char folder[64];
    const sg_file *f0 = &s->files[pick[0]];

    if ((paths = zb_calloc(2 * n_pick, sizeof *paths)) == NULL ||
        (pos = zb_calloc(2 * n_pick, sizeof *pos)) == NULL)
        goto out;
    for (i = 0; i < n_pick; i++) {
        const sg_file *f = &s->files[pick[i]];
        int64_t p0 = (int64_t)(rnd(s) % f->n), p1 = (int64_t)(rnd(s) % f->n);

        paths[n] = f->path;
        pos[n++] = p0;
        if (p1 != p0 && (rnd(s) & 1)) {
            paths[n] = f->path;
            pos[n++] = p1;
        }
    }
    if (s->o->partitioned)
        partition_of(&wp, vals, folder, sizeof folder, f0->spec, f0->k1,
                     f0->bucket);
    if (zb_ingest_delete_positions(&s->t, s->cat, s->io, &s->ctx, paths, pos,
                                   n, s->o->partitioned ? &wp : NULL) < 0)
        goto out;
    s->seq++;
    s->n_deletes++;
    for (i = 0; i < n; i++) {
        size_t fi;
        for (fi = 0; fi < s->n_files; fi++)
            if (s->files[fi].path == paths[i])
                break;
        s->rows[s->files[fi].first + (size_t)pos[i]].dead = 1;
    }
    rc = 0;
out:
    zb_free(paths);
    zb_free(pos);
    return rc;
}

static int pos_delete_pass(sg_state *s)
{
    size_t want = (size_t)s->o->pos_files, n = 0, i, j;
    size_t *pick = zb_calloc(want + 1, sizeof *pick);
    size_t *group = zb_calloc(want + 1, sizeof *group);
    char *used = zb_calloc(s->n_files + 1, 1);
    int rc = -1;

    if (pick == NULL || group == NULL || used == NULL)
        goto out;
    for (i = 0; i < want * 4 && n < want && n < s->n_files; i++) {
        size_t fi = rnd(s) % s->n_files;
        if (!used[fi]) {
            used[fi] = 1;
            pick[n++] = fi;
        }
    }
    qsort(pick, n, sizeof *pick, cmp_size);
    if (!s->o->partitioned) {
        /* two delete files, each over half of the picked files */
        size_t h = n / 2;
        if (h > 0 && pos_delete_file(s, pick, h) < 0)
            goto out;
        if (n > h && pos_delete_file(s, pick + h, n - h) < 0)
            goto out;
        rc = 0;
        goto out;
    }
    memset(used, 0, s->n_files + 1);
    for (i = 0; i < n; i++) {
        size_t m = 0;
        const sg_file *a = &s->files[pick[i]];
        if (used[pick[i]])
            continue;
        for (j = i; j < n; j++)
            if (!used[pick[j]] && same_part(&s->files[pick[j]], a->spec, a->k1,
                                            a->bucket)) {
                used[pick[j]] = 1;
                group[m++] = pick[j];
            }
        if (pos_delete_file(s, group, m) < 0)
            goto out;
    }
    rc = 0;
out:
    zb_free(pick);
    zb_free(group);
    zb_free(used);
    return rc;
}

static int eq_delete(sg_state *s, int round)
{
    struct ArrowSchema sc;
    struct ArrowArray b;
    int32_t eq[2] = { 2, 3 };
    int32_t spec = 0, k1 = -1, bucket = -1, k2[3];
    zb_write_partition wp;
    ice_value vals[2];
    char folder[64];
    size_t i, n = 3;
    int rc = -1;

    memset(&sc, 0, sizeof sc);
    memset(&b, 0, sizeof b);
    if (s->o->partitioned) {
        k1 = (int32_t)(rnd(s) % N_K1);
        if (s->evolved && round % 2 == 0) {
            spec = 1;
            bucket = (int32_t)(rnd(s) % BUCKETS);
        }
        partition_of(&wp, vals, folder, sizeof folder, spec, k1, bucket);
    }
    if (zb_arrow_schema_init(&sc, "+s", "", NULL, 0, 0, 2) < 0 ||
        zb_arrow_schema_field(sc.children[0], "i", "k1", 2, 0, 0) < 0 ||
        zb_arrow_schema_field(sc.children[1], "u", "k2", 3, 0, 0) < 0 ||
        zb_arrow_array_init(&b, 1, 2) < 0 || int_col(b.children[0], n, 4) < 0 ||
        str_col(b.children[1], n, 0) < 0)
        goto out;
    for (i = 0; i < n; i++) {
        char v[16];
        int32_t kk = k1 >= 0 ? k1 : (int32_t)(rnd(s) % N_K1);
        k2[i] = (int32_t)((rnd(s) % N_K2 + i) % N_K2);
        ((int32_t *)b.children[0]->buffers[1])[i] = kk;
        snprintf(v, sizeof v, "u%d", (int)k2[i]);
        str_set(b.children[1], i, v);
    }
    b.length = (int64_t)n;
    if (zb_ingest_delete_equal(&s->t, s->cat, s->io, &s->ctx, eq, 2, &sc, &b,
                               s->o->partitioned ? &wp : NULL) < 0)
        goto out;
    s->seq++;
    s->n_deletes++;
    for (i = 0; i < n; i++) {
        int32_t kk = ((int32_t *)b.children[0]->buffers[1])[i];
        size_t r;
        for (r = 0; r < s->n_rows; r++) {
            sg_row *row = &s->rows[r];
            if (row->seq >= s->seq || row->k1 != kk || row->k2 != k2[i])
                continue;
            if (s->o->partitioned &&
                !same_part(&s->files[row->file], spec, k1, bucket))
                continue;
            row->dead = 1;
        }
    }
    rc = 0;
out:
    zb_arrow_array_release(&b);
    zb_arrow_schema_release(&sc);
    return rc;
}

/* The schema change (add column region) and, partitioned, the spec
 * change (add bucket[2](id)): one metadata commit, no snapshot. */
static int evolve(sg_state *s)
{
    char upd[2048];
    json_t *reqs = json_array(), *updates;
    zb_table *t2 = NULL;
    int rc;

    snprintf(upd, sizeof upd,
             "[{\"action\":\"add-schema\",\"last-column-id\":5,\"schema\":"
             "{\"type\":\"struct\",\"schema-id\":1,\"fields\":["
             "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
             "{\"id\":2,\"name\":\"k1\",\"required\":true,\"type\":\"int\"},"
             "{\"id\":3,\"name\":\"k2\",\"required\":true,\"type\":\"string\"},"
             "{\"id\":4,\"name\":\"payload\",\"required\":false,"
             "\"type\":\"string\"},"
             "{\"id\":5,\"name\":\"region\",\"required\":false,"
             "\"type\":\"int\"}]}},"
             "{\"action\":\"set-current-schema\",\"schema-id\":-1}%s]",
             s->o->partitioned
                 ? ",{\"action\":\"add-spec\",\"spec\":{\"spec-id\":1,"
                   "\"fields\":[{\"source-id\":2,\"field-id\":1000,"
                   "\"name\":\"k1\",\"transform\":\"identity\"},"
                   "{\"source-id\":1,\"field-id\":1001,\"name\":\"id_bucket\","
                   "\"transform\":\"bucket[2]\"}]}},"
                   "{\"action\":\"set-default-spec\",\"spec-id\":-1}"
                 : "");
    updates = json_loads(upd, 0, NULL);
    if (reqs == NULL || updates == NULL) {
        json_decref(reqs);
        json_decref(updates);
        fprintf(stderr, "zb-stream-gen: bad update JSON\n");
        return -1;
    }
    rc = zb_catalog_commit(s->cat, &s->ctx, s->t, (const zb_json *)reqs,
                           (const zb_json *)updates, &t2);
    json_decref(reqs);
    json_decref(updates);
    if (rc < 0)
        return -1;
    zb_table_free(s->t);
    s->t = t2;
    s->evolved = 1;
    return 0;
}

static int create(sg_state *s)
{
    static const char SCHEMA[] =
        "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        "{\"id\":2,\"name\":\"k1\",\"required\":true,\"type\":\"int\"},"
        "{\"id\":3,\"name\":\"k2\",\"required\":true,\"type\":\"string\"},"
        "{\"id\":4,\"name\":\"payload\",\"required\":false,\"type\":\"string\"}"
        "]}";
    static const char SPEC[] =
        "{\"spec-id\":0,\"fields\":[{\"source-id\":2,\"field-id\":1000,"
        "\"name\":\"k1\",\"transform\":\"identity\"}]}";
    json_t *schema = json_loads(SCHEMA, 0, NULL);
    json_t *spec = s->o->partitioned ? json_loads(SPEC, 0, NULL) : NULL;
    const char *dot = strrchr(s->o->table, '.');
    char ns[256];
    int rc = -1;

    if (schema == NULL || (s->o->partitioned && spec == NULL) || dot == NULL ||
        (size_t)(dot - s->o->table) >= sizeof ns)
        goto out;
    memcpy(ns, s->o->table, (size_t)(dot - s->o->table));
    ns[dot - s->o->table] = '\0';
    if (zb_catalog_create_namespace(s->cat, &s->ctx, ns) < 0 &&
        s->ctx.err.code != ZB_EEXISTS)
        goto out;
    zb_err_clear(&s->ctx.err);
    rc = zb_ingest_create(&s->t, s->cat, &s->ctx, s->o->table, NULL,
                          (const zb_json *)schema,
                          (const zb_json *)spec, NULL, 0, 2);
out:
    json_decref(schema);
    json_decref(spec);
    return rc;
}

static int run(sg_state *s)
{
    const sg_opts *o = s->o;
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    size_t i, live = 0;
    int c, eq_round = 0;

    cfg.kind = ZB_CATALOG_SQLITE;
    cfg.name = o->warehouse;
    cfg.warehouse = o->warehouse;
    cfg.sqlite_path = o->sqlite;
    cfg.warehouse_location = o->location;
    if (zb_io_new(&s->io, &s->ctx) < 0 ||
        zb_catalog_open(&s->cat, &s->ctx, s->io, &cfg) < 0 || create(s) < 0)
        return -1;
    for (c = 1; c <= o->commits; c++) {
        if (c == o->evolve_at && evolve(s) < 0)
            return -1;
        if (append_round(s) < 0)
            return -1;
        if (o->pos_every > 0 && c % o->pos_every == 0 && pos_delete_pass(s) < 0)
            return -1;
        if (o->eq_every > 0 && c % o->eq_every == 0 &&
            eq_delete(s, eq_round++) < 0)
            return -1;
    }
    for (i = 0; i < s->n_rows; i++)
        live += !s->rows[i].dead;
    if (o->expect != NULL) {
        FILE *f = fopen(o->expect, "w");
        int bad = f == NULL;
        for (i = 0; f != NULL && i < s->n_rows; i++)
            if (!s->rows[i].dead)
                bad |= fprintf(f, "%lld\n", (long long)s->rows[i].id) < 0;
        if (f != NULL && fclose(f) != 0)
            bad = 1;
        if (bad) {
            fprintf(stderr, "zb-stream-gen: writing %s failed\n", o->expect);
            return -1;
        }
    }
    printf("metadata %s\n", s->t->metadata_location);
    printf("expected_rows %zu appended_rows %zu data_files %zu "
           "delete_files %zu commits %lld\n", live, s->n_rows, s->n_files,
           s->n_deletes, (long long)s->seq);
    return 0;
}

static int num(const char *v)
{
    return (int)strtol(v, NULL, 10);
}

static int usage(void)
{
    fprintf(stderr,
            "usage: zb-stream-gen --sqlite DB --table NS.NAME --location DIR "
            "[--warehouse W] [--partitioned] [--commits N] [--files F] "
            "[--rows R] [--evolve-at C] [--pos-every P] [--pos-files K] "
            "[--eq-every E] [--seed S] [--expect FILE]\n");
    return 2;
}

int main(int argc, char **argv)
{
    sg_opts o = { NULL, NULL, NULL, "zamboni", NULL, 0, 100, 4, 5, -1, 10, 12,
                  7, 1 };
    sg_state s;
    size_t i;
    int a, rc;

    for (a = 1; a < argc; a++) {
        const char *k = argv[a], *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(k, "--partitioned")) { o.partitioned = 1; continue; }
        if (v == NULL)
            return usage();
        a++;
        if (!strcmp(k, "--sqlite")) o.sqlite = v;
        else if (!strcmp(k, "--table")) o.table = v;
        else if (!strcmp(k, "--location")) o.location = v;
        else if (!strcmp(k, "--warehouse")) o.warehouse = v;
        else if (!strcmp(k, "--expect")) o.expect = v;
        else if (!strcmp(k, "--commits")) o.commits = num(v);
        else if (!strcmp(k, "--files")) o.files = num(v);
        else if (!strcmp(k, "--rows")) o.rows = num(v);
        else if (!strcmp(k, "--evolve-at")) o.evolve_at = num(v);
        else if (!strcmp(k, "--pos-every")) o.pos_every = num(v);
        else if (!strcmp(k, "--pos-files")) o.pos_files = num(v);
        else if (!strcmp(k, "--eq-every")) o.eq_every = num(v);
        else if (!strcmp(k, "--seed")) o.seed = (unsigned)strtoul(v, NULL, 10);
        else
            return usage();
    }
    if (!o.sqlite || !o.table || !o.location || o.commits < 1 ||
        o.files < 1 || o.files > 16 || o.rows < 1 || o.rows > 256 ||
        o.pos_files < 1)
        return usage();
    if (o.evolve_at < 0)
        o.evolve_at = o.commits / 2 + 1;
    memset(&s, 0, sizeof s);
    s.o = &o;
    s.rnd = o.seed;
    zb_ctx_init(&s.ctx);
    rc = run(&s);
    if (rc < 0)
        fprintf(stderr, "zb-stream-gen: %s: %s\n", o.table,
                s.ctx.err.code != ZB_OK ? s.ctx.err.msg : "out of memory");
    for (i = 0; i < s.n_files; i++)
        zb_free(s.files[i].path);
    zb_free(s.files);
    zb_free(s.rows);
    zb_table_free(s.t);
    zb_catalog_free(s.cat);
    zb_io_free(s.io);
    return rc < 0 ? 1 : 0;
}

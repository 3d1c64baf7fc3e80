/*
 * tests/unit/ops/tidy_util.c - helpers of the tidy suites (tidy_test.h).
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "exec/arrow/arrow.h"
#include "ops/ingest/table_write.h"
#include "plan/scan/scan_plan.h"
#include "plan/read/scan_read.h"
#include "tidy_test.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/buf.h"

void tt_open(tt_env *e, const char *name)
{
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;

    memset(e, 0, sizeof *e);
    zb_ctx_init(&e->ctx);
    snprintf(e->dir, sizeof e->dir, "%s/%s", zbt_tmpdir(), name);
    ZBT_OK_CTX(zb_io_new(&e->io, &e->ctx), &e->ctx);
    cfg.kind = ZB_CATALOG_PATH;
    cfg.name = "tidy";
    ZBT_OK_CTX(zb_catalog_open(&e->cat, &e->ctx, e->io, &cfg), &e->ctx);
    e->t.catalog = e->cat;
    e->t.io = e->io;
    e->t.ident = e->dir;
}

int tt_fixture(tt_env *e, const char *name)
{
    char src[1024], cmd[3400];
    struct stat st;

    tt_open(e, name);
    snprintf(src, sizeof src, "%s/%s", ZB_FIXTURES_DIR, name);
    if (stat(src, &st) != 0) {
        printf("  (skipped: no fixture %s)\n", src);
        return 0;
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -R '%s' '%s'", e->dir, src,
             e->dir);
    ZBT_EQ_INT(system(cmd), 0);
    return 1;
}

void tt_close(tt_env *e)
{
    zb_catalog_free(e->cat);
    zb_io_free(e->io);
    memset(e, 0, sizeof *e);
}

zb_table *tt_load(tt_env *e)
{
    zb_table *t = NULL;

    ZBT_OK_CTX(zb_catalog_load_table(e->cat, &e->ctx, e->dir, &t), &e->ctx);
    return t;
}

/* ---- generated tables ------------------------------------------------------ */

static const char SCHEMA[] =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"part\",\"required\":true,\"type\":\"int\"},"
    "{\"id\":3,\"name\":\"payload\",\"required\":false,\"type\":\"string\"}"
    "]}";

static const char SPEC[] =
    "{\"spec-id\":0,\"fields\":[{\"source-id\":2,\"field-id\":1000,"
    "\"name\":\"part\",\"transform\":\"identity\"}]}";

static void field(struct ArrowSchema *s, const char *fmt, const char *name,
                  int id, int nullable)
{
    char idtext[16], *md = NULL;
    size_t md_len = 0;
    const char *kv[] = { "PARQUET:field_id", idtext, NULL };

    snprintf(idtext, sizeof idtext, "%d", id);
    ZBT_CHECK(zb_arrow_metadata(&md, &md_len, kv) == 0);
    ZBT_CHECK(zb_arrow_schema_init(s, fmt, name, md, md_len,
                                   nullable ? ARROW_FLAG_NULLABLE : 0,
                                   0) == 0);
    zb_free(md);
}

static void make_schema(struct ArrowSchema *s)
{
    memset(s, 0, sizeof *s);
    ZBT_CHECK(zb_arrow_schema_init(s, "+s", "", NULL, 0, 0, 3) == 0);
    field(s->children[0], "l", "id", 1, 0);
    field(s->children[1], "i", "part", 2, 0);
    field(s->children[2], "u", "payload", 3, 1);
}

static void make_batch(struct ArrowArray *b, int64_t first, int rows,
                       int part)
{
    struct ArrowArray *ids, *parts, *pay;
    int64_t *idv;
    int32_t *pv, *off;
    uint8_t *valid;
    char *chars;
    int i, at = 0;

    memset(b, 0, sizeof *b);
    ZBT_CHECK(zb_arrow_array_init(b, 1, 3) == 0);
    ids = b->children[0];
    parts = b->children[1];
    pay = b->children[2];
    ZBT_CHECK(zb_arrow_array_init(ids, 2, 0) == 0);
    ZBT_CHECK(zb_arrow_array_init(parts, 2, 0) == 0);
    ZBT_CHECK(zb_arrow_array_init(pay, 3, 0) == 0);
    idv = zb_malloc((size_t)rows * sizeof *idv + 1);
    pv = zb_malloc((size_t)rows * sizeof *pv + 1);
    off = zb_malloc(((size_t)rows + 1) * sizeof *off);
    valid = zb_calloc((size_t)rows / 8 + 1, 1);
    chars = zb_malloc((size_t)rows * 24 + 1);
    ZBT_CHECK(idv && pv && off && valid && chars);
    ids->buffers[1] = idv;
    parts->buffers[1] = pv;
    pay->buffers[0] = valid;
    pay->buffers[1] = off;
    pay->buffers[2] = chars;
    off[0] = 0;
    pay->null_count = 0;
    for (i = 0; i < rows; i++) {
        idv[i] = first + i;
        pv[i] = part < 0 ? 0 : part;
        if (i % 5 == 4) {
            pay->null_count++;
        } else {
            zb_arrow_set_bit(valid, i);
            at += snprintf(chars + at, 24, "row-%lld", (long long)(first + i));
        }
        off[i + 1] = at;
    }
    b->length = ids->length = parts->length = pay->length = rows;
}

int tt_append_rc(tt_env *e, int part, int64_t first, int rows)
{
    struct ArrowSchema s;
    struct ArrowArray b;
    zb_table *t = NULL;
    zb_write_partition wp;
    ice_value v = ice_value_int(part);
    char folder[32];
    int rc;

    if ((rc = zb_catalog_load_table(e->cat, &e->ctx, e->dir, &t)) < 0)
        return rc;
    make_schema(&s);
    make_batch(&b, first, rows, part);
    memset(&wp, 0, sizeof wp);
    wp.spec_id = -1;
    wp.n_values = 1;
    wp.values = &v;
    snprintf(folder, sizeof folder, "part=%d", part);
    wp.folder = folder;
    rc = zb_table_append(&t, e->cat, e->io, &e->ctx, &s, &b, 1,
                         part < 0 ? NULL : &wp);
    zb_arrow_array_release(&b);
    zb_arrow_schema_release(&s);
    zb_table_free(t);
    return rc;
}

void tt_append(tt_env *e, int part, int64_t first, int rows)
{
    ZBT_OK_CTX(tt_append_rc(e, part, first, rows), &e->ctx);
}

void tt_make_table(tt_env *e, int fv, int partitioned, int n_parts,
                   int n_appends, int rows)
{
    json_t *schema = json_loads(SCHEMA, 0, NULL);
    json_t *spec = partitioned ? json_loads(SPEC, 0, NULL) : NULL;
    zb_table *t = NULL;
    int a;

    ZBT_CHECK(schema != NULL && (!partitioned || spec != NULL));
    ZBT_OK_CTX(zb_table_create(&t, e->cat, &e->ctx, e->dir, NULL,
                               (const zb_json *)schema,
                               (const zb_json *)spec, NULL, 0, fv), &e->ctx);
    json_decref(schema);
    json_decref(spec);
    zb_table_free(t);
    for (a = 0; a < n_appends; a++)
        tt_append(e, partitioned ? a % n_parts : -1, (int64_t)a * rows, rows);
}

/* ---- live entries ------------------------------------------------------------ */

static int cmp_item(const void *pa, const void *pb)
{
    const tt_item *a = pa, *b = pb;
    int c = strcmp(a->path, b->path);

    if (c != 0)
        return c;
    return a->offset < b->offset ? -1 : a->offset > b->offset;
}

void tt_live(tt_items *out, tt_env *e)
{
    zb_table *t = tt_load(e);
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *en;
    const ice_manifest_file *mf;
    const ice_snapshot *s = ice_metadata_current_snapshot(t->meta);
    size_t cap = 0;
    int rc;

    memset(out, 0, sizeof *out);
    if (s == NULL) {
        zb_table_free(t);
        return;
    }
    ZBT_OK_CTX(ice_snapshot_iter_open(&it, e->io, &e->ctx, t->meta, s,
                                      &t->paths), &e->ctx);
    while ((rc = ice_snapshot_iter_next(it, &e->ctx, &en, &mf)) > 0) {
        tt_item *x;

        if (out->n == cap) {
            cap = cap ? 2 * cap : 64;
            out->v = zb_realloc(out->v, cap * sizeof *out->v);
            ZBT_CHECK(out->v != NULL);
        }
        x = &out->v[out->n++];
        x->path = zb_strdup(en->data_file.file_path);
        x->content = (int)en->data_file.content;
        x->spec_id = mf->partition_spec_id;
        x->seq = en->sequence_number;
        x->fseq = en->file_sequence_number;
        x->snap = en->snapshot_id;
        x->first_row_id = en->data_file.first_row_id;
        x->records = en->data_file.record_count;
        x->offset = en->data_file.content_offset;
        x->size = en->data_file.file_size_in_bytes;
    }
    ZBT_OK_CTX(rc, &e->ctx);
    ice_snapshot_iter_free(it);
    zb_table_free(t);
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, cmp_item);
}

void tt_items_free(tt_items *it)
{
    size_t i;

    for (i = 0; i < it->n; i++)
        zb_free(it->v[i].path);
    zb_free(it->v);
    memset(it, 0, sizeof *it);
}

size_t tt_count(const tt_items *it, int content)
{
    size_t i, n = 0;

    for (i = 0; i < it->n; i++)
        n += it->v[i].content == content;
    return n;
}

void tt_items_same(const tt_items *a, const tt_items *b,
                   const char *const *skip, size_t n_skip)
{
    size_t i, j = 0, k, skipped = 0;

    for (i = 0; i < a->n; i++) {
        const tt_item *x = &a->v[i], *y;
        int gone = 0;

        for (k = 0; k < n_skip; k++)
            gone |= strcmp(skip[k], x->path) == 0;
        if (gone) {
            skipped++;
            ZBT_CHECK(j >= b->n || strcmp(b->v[j].path, x->path) != 0);
            continue;
        }
        ZBT_CHECK(j < b->n);
        y = &b->v[j++];
        ZBT_EQ_STR(y->path, x->path);
        ZBT_EQ_INT(y->content, x->content);
        ZBT_EQ_INT(y->spec_id, x->spec_id);
        ZBT_CHECK(y->seq == x->seq);
        ZBT_CHECK(y->fseq == x->fseq);
        ZBT_CHECK(y->snap == x->snap);
        ZBT_CHECK(y->first_row_id == x->first_row_id);
        ZBT_CHECK(y->records == x->records);
        ZBT_CHECK(y->offset == x->offset);
        ZBT_CHECK(y->size == x->size);
    }
    ZBT_EQ_U64(j, b->n);
    ZBT_EQ_U64(a->n - skipped, b->n);
}

/* ---- snapshots ------------------------------------------------------------- */

char *tt_summary(tt_env *e, const char *key)
{
    zb_table *t = tt_load(e);
    const ice_snapshot *s = ice_metadata_current_snapshot(t->meta);
    char *v = NULL;
    size_t i;

    for (i = 0; s && i < s->n_summary; i++)
        if (strcmp(s->summary[i].key, key) == 0)
            v = zb_strdup(s->summary[i].value);
    zb_table_free(t);
    return v;
}

int64_t tt_current_id(tt_env *e)
{
    zb_table *t = tt_load(e);
    int64_t id = t->meta->current_snapshot_id;

    zb_table_free(t);
    return id;
}

size_t tt_snapshot_count(tt_env *e)
{
    zb_table *t = tt_load(e);
    size_t n = t->meta->n_snapshots;

    zb_table_free(t);
    return n;
}

size_t tt_manifests(tt_env *e, size_t *data, size_t *deletes)
{
    zb_table *t = tt_load(e);
    const ice_snapshot *s = ice_metadata_current_snapshot(t->meta);
    ice_manifest_list_reader *lr = NULL;
    const ice_manifest_file *mf;
    int rc;

    *data = *deletes = 0;
    if (s != NULL && s->manifest_list != NULL) {
        ZBT_OK_CTX(ice_manifest_list_open(&lr, e->io, &e->ctx,
                                          s->manifest_list,
                                          t->meta->format_version,
                                          &t->paths), &e->ctx);
        while ((rc = ice_manifest_list_next(lr, &e->ctx, &mf)) > 0) {
            if (mf->content == ICE_MANIFEST_DELETES)
                (*deletes)++;
            else
                (*data)++;
        }
        ZBT_OK_CTX(rc, &e->ctx);
        ice_manifest_list_free(lr);
    }
    zb_table_free(t);
    return *data + *deletes;
}

/* ---- rows ------------------------------------------------------------------ */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    size_t i;

    for (i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

static int is_valid(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *v = a->buffers[0];

    if (a->null_count == 0 || v == NULL)
        return 1;
    i += a->offset;
    return (v[i >> 3] >> (i & 7)) & 1;
}

/* A column value's contribution to the row hash (tidy_test.h). */
uint64_t tt_hash_value(uint64_t h, const struct ArrowSchema *s,
                       const struct ArrowArray *a, int64_t row)
{
    const char *f = s->format;
    int64_t i = row + a->offset;
    size_t w = 0;

    if (!is_valid(a, row))
        return fnv(h, "\xff", 1);
    if (f[0] == 'u' || f[0] == 'z') {
        const int32_t *off = a->buffers[1];
        return fnv(h, (const char *)a->buffers[2] + off[i],
                   (size_t)(off[i + 1] - off[i]));
    }
    if (f[0] == 'b') {
        const uint8_t *v = a->buffers[1];
        uint8_t bit = (v[i >> 3] >> (i & 7)) & 1;
        return fnv(h, &bit, 1);
    }
    if (strcmp(f, "c") == 0 || strcmp(f, "C") == 0)
        w = 1;
    else if (strcmp(f, "s") == 0 || strcmp(f, "S") == 0)
        w = 2;
    else if (strcmp(f, "i") == 0 || strcmp(f, "I") == 0 ||
             strcmp(f, "f") == 0 || strcmp(f, "tdD") == 0 ||
             strcmp(f, "tts") == 0 || strcmp(f, "ttm") == 0)
        w = 4;
    else if (strcmp(f, "l") == 0 || strcmp(f, "L") == 0 ||
             strcmp(f, "g") == 0 || strncmp(f, "ts", 2) == 0 ||
             strcmp(f, "ttu") == 0 || strcmp(f, "ttn") == 0)
        w = 8;
    else if (strncmp(f, "d:", 2) == 0)
        w = 16;
    else if (strncmp(f, "w:", 2) == 0)
        w = (size_t)strtoul(f + 2, NULL, 10);
    if (w == 0)                    /* nested: its presence only */
        return fnv(h, "n", 1);
    return fnv(h, (const uint8_t *)a->buffers[1] + (size_t)i * w, w);
}

/* Every scan task of snapshot s of t, copied into *arena (the caller
 * frees both the array and the arena). */
zb_scan_task *tt_plan_tasks(tt_env *e, const zb_table *t,
                            const ice_snapshot *s, zb_arena **arena,
                            size_t *n_out)
{
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_scan_plan *p = NULL;
    const zb_scan_task *task;
    zb_scan_task *tasks = NULL;
    size_t n = 0, cap = 0;
    int rc;

    ZBT_CHECK(zb_arena_new(arena, (size_t)1 << 30) == 0);
    po.manifest = &t->paths;
    ZBT_OK_CTX(zb_scan_plan_open(&p, e->io, &e->ctx, t->meta, s, &po),
               &e->ctx);
    while ((rc = zb_scan_plan_next(p, &e->ctx, &task)) > 0) {
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            tasks = zb_realloc(tasks, cap * sizeof *tasks);
            ZBT_CHECK(tasks != NULL);
        }
        ZBT_OK_CTX(zb_scan_task_copy(&tasks[n++], &e->ctx, *arena, task),
                   &e->ctx);
    }
    ZBT_OK_CTX(rc, &e->ctx);
    zb_scan_plan_free(p);
    *n_out = n;
    return tasks;
}

void tt_rows(tt_env *e, uint64_t *rows, uint64_t *hash)
{
    zb_table *t = tt_load(e);
    const ice_snapshot *s = ice_metadata_current_snapshot(t->meta);
    zb_rowstream_opts ro = ZB_ROWSTREAM_OPTS_INIT;
    zb_rowstream *rs = NULL;
    zb_scan_task *tasks = NULL;
    zb_arena *arena = NULL;
    size_t n = 0;
    struct ArrowArray b;
    struct ArrowSchema sch;
    int rc;

    *rows = *hash = 0;
    if (s == NULL) {
        zb_table_free(t);
        return;
    }
    tasks = tt_plan_tasks(e, t, s, &arena, &n);
    ro.meta = t->meta;
    ro.paths = &t->paths;
    ZBT_OK_CTX(zb_rowstream_open(&rs, e->io, &e->ctx, &ro, tasks, n),
               &e->ctx);
    while ((rc = zb_rowstream_next(rs, &e->ctx, &b, &sch)) == 1) {
        int64_t r;
        int64_t c;

        for (r = 0; r < b.length; r++) {
            uint64_t h = 14695981039346656037ull;

            for (c = 0; c < b.n_children; c++)
                h = tt_hash_value(h, sch.children[c], b.children[c],
                               r + b.offset);
            *hash += h;
            (*rows)++;
        }
        b.release(&b);
        sch.release(&sch);
    }
    ZBT_OK_CTX(rc, &e->ctx);
    zb_rowstream_free(rs);
    zb_free(tasks);
    zb_arena_free(arena);
    zb_table_free(t);
}

/* ---- files ------------------------------------------------------------------ */

static int exists_uri(tt_env *e, const zb_table *t, const char *path)
{
    zb_buf b;
    struct stat st;
    const char *u;
    int ok;

    zb_buf_init(&b, 1 << 16);
    ZBT_OK_CTX(zb_table_resolve(&b, &e->ctx, t, path), &e->ctx);
    u = zb_buf_cstr(&b);
    if (strncmp(u, "file://", 7) == 0)
        u += 7;
    ok = stat(u, &st) == 0;
    if (!ok)
        printf("  missing: %s (%s)\n", path, zb_buf_cstr(&b));
    zb_buf_free(&b);
    return ok;
}

size_t tt_check_files(tt_env *e)
{
    zb_table *t = tt_load(e);
    const ice_snapshot *s = ice_metadata_current_snapshot(t->meta);
    ice_manifest_list_reader *lr = NULL;
    ice_snapshot_iter *it = NULL;
    const ice_manifest_file *mf;
    const ice_manifest_entry *en;
    size_t n = 0;
    int rc;

    if (s == NULL || s->manifest_list == NULL) {
        zb_table_free(t);
        return 0;
    }
    ZBT_CHECK(exists_uri(e, t, s->manifest_list));
    n++;
    ZBT_OK_CTX(ice_manifest_list_open(&lr, e->io, &e->ctx, s->manifest_list,
                                      t->meta->format_version, &t->paths),
               &e->ctx);
    while ((rc = ice_manifest_list_next(lr, &e->ctx, &mf)) > 0) {
        ZBT_CHECK(exists_uri(e, t, mf->manifest_path));
        n++;
    }
    ZBT_OK_CTX(rc, &e->ctx);
    ice_manifest_list_free(lr);
    ZBT_OK_CTX(ice_snapshot_iter_open(&it, e->io, &e->ctx, t->meta, s,
                                      &t->paths), &e->ctx);
    while ((rc = ice_snapshot_iter_next(it, &e->ctx, &en, &mf)) > 0) {
        ZBT_CHECK(exists_uri(e, t, en->data_file.file_path));
        n++;
    }
    ZBT_OK_CTX(rc, &e->ctx);
    ice_snapshot_iter_free(it);
    zb_table_free(t);
    return n;
}

static zb_buf *g_list;

static int list_one(const char *path, const struct stat *st, int flag,
                    struct FTW *ftw)
{
    (void)ftw;
    if (flag == FTW_F)
        zb_buf_appendf(g_list, "%s %lld %lld.%09ld\n", path,
                       (long long)st->st_size, (long long)st->st_mtim.tv_sec,
                       st->st_mtim.tv_nsec);
    return 0;
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *tt_listing(const char *dir)
{
    zb_buf b, out;
    char **lines = NULL, *p, *text;
    size_t n = 0, i;

    zb_buf_init(&b, (size_t)1 << 30);
    zb_buf_init(&out, (size_t)1 << 30);
    g_list = &b;
    ZBT_EQ_INT(nftw(dir, list_one, 16, FTW_PHYS), 0);
    g_list = NULL;
    text = zb_buf_detach(&b);
    ZBT_CHECK(text != NULL);
    for (p = text; *p; p++)
        n += *p == '\n';
    lines = zb_calloc(n + 1, sizeof *lines);
    ZBT_CHECK(lines != NULL);
    for (i = 0, p = strtok(text, "\n"); p; p = strtok(NULL, "\n"))
        lines[i++] = p;
    qsort(lines, i, sizeof *lines, cmp_line);
    for (n = 0; n < i; n++)
        zb_buf_appendf(&out, "%s\n", lines[n]);
    zb_free(lines);
    zb_free(text);
    p = zb_buf_detach(&out);
    return p ? p : zb_strdup("");
}

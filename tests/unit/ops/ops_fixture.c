/*
 * tests/unit/ops/ops_fixture.c - the fixture kit of the operation suites
 * (ops_fixture.h).
 *
 * One catalog opener, one table generator for both layouts (narrow
 * tables for the expire suites, wide partitioned ones for the others),
 * direct commits, and one planner and row stream reader with a soft form
 * (-1 when the stream cannot read a snapshot) and a checked one. The
 * files half is ops_fixture_files.c. What the suites free with zb_free
 * comes from zb_malloc, everything else from malloc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ops/ingest/table_write.h"
#include "ops_fixture.h"
#include "plan/scan/scan_plan.h"
#include "plan/read/scan_read.h"
#include "table/commit/commit.h"
#include "util/alloc.h"

/* ---- catalogs --------------------------------------------------------- */

static void attach(of_env *e, const zb_catalog_config *cfg)
{
    ZBT_OK_CTX(zb_io_new(&e->io, &e->ctx), &e->ctx);
    ZBT_OK_CTX(zb_catalog_open(&e->cat, &e->ctx, e->io, cfg), &e->ctx);
    e->t.catalog = e->cat;
    e->t.io = e->io;
    e->t.ident = e->dir;
}

void of_open(of_env *e, const char *name)
{
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    int n;

    memset(e, 0, sizeof *e);
    zb_ctx_init(&e->ctx);
    n = snprintf(e->dir, sizeof e->dir, "%s/%s", zbt_tmpdir(), name);
    ZBT_CHECK(n > 0 && (size_t)n < sizeof e->dir);
    e->layout = OF_ID_PART_PAYLOAD;
    cfg.kind = ZB_CATALOG_PATH;
    attach(e, &cfg);
}

void of_open_catalog(of_env *e, int sqlite)
{
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    char db[700];
    int n;

    memset(e, 0, sizeof *e);
    zb_ctx_init(&e->ctx);
    n = snprintf(e->dir, sizeof e->dir, "%s", zbt_tmpdir());
    ZBT_CHECK(n > 0 && (size_t)n < sizeof e->dir);
    e->layout = OF_ID_PAYLOAD;
    if (sqlite) {
        snprintf(db, sizeof db, "%s/catalog.db", e->dir);
        cfg.kind = ZB_CATALOG_SQLITE;
        cfg.name = "wh";
        cfg.warehouse = "wh";
        cfg.sqlite_path = db;
        cfg.warehouse_location = e->dir;
    } else {
        cfg.kind = ZB_CATALOG_PATH;
    }
    attach(e, &cfg);
}

int of_fixture(of_env *e, const char *name)
{
    char src[1024], cmd[2200];
    struct stat st;

    of_open(e, name);
    snprintf(src, sizeof src, "%s/%s", ZB_FIXTURES_DIR, name);
    if (stat(src, &st) != 0) {
        printf("  (skipped: no fixture %s)\n", src);
        return 0;
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", e->dir);
    ZBT_EQ_INT(system(cmd), 0);
    of_copy(src, e->dir);
    return 1;
}

void of_close(of_env *e)
{
    zb_catalog_free(e->cat);
    zb_io_free(e->io);
    memset(e, 0, sizeof *e);
}

int64_t of_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- generated tables -------------------------------------------------- */

static const char SCHEMA_ID_PAYLOAD[] =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"payload\",\"required\":false,\"type\":\"string\"}"
    "]}";

static const char SCHEMA_ID_PART_PAYLOAD[] =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"part\",\"required\":true,\"type\":\"int\"},"
    "{\"id\":3,\"name\":\"payload\",\"required\":false,\"type\":\"string\"}"
    "]}";

static const char SPEC_PART[] =
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

static void make_schema(struct ArrowSchema *s, of_layout layout)
{
    int wide = layout == OF_ID_PART_PAYLOAD;

    memset(s, 0, sizeof *s);
    ZBT_CHECK(zb_arrow_schema_init(s, "+s", "", NULL, 0, 0,
                                   wide ? 3 : 2) == 0);
    field(s->children[0], "l", "id", 1, 0);
    if (wide)
        field(s->children[1], "i", "part", 2, 0);
    field(s->children[wide ? 2 : 1], "u", "payload", wide ? 3 : 2, 1);
}

static void make_batch(struct ArrowArray *b, of_layout layout, int64_t first,
                       int rows, int part)
{
    int wide = layout == OF_ID_PART_PAYLOAD;
    struct ArrowArray *ids, *parts = NULL, *pay;
    int64_t *idv;
    int32_t *pv = NULL, *off;
    uint8_t *valid;
    char *chars;
    int i, at = 0;

    memset(b, 0, sizeof *b);
    ZBT_CHECK(zb_arrow_array_init(b, 1, wide ? 3 : 2) == 0);
    ids = b->children[0];
    pay = b->children[wide ? 2 : 1];
    ZBT_CHECK(zb_arrow_array_init(ids, 2, 0) == 0);
    if (wide) {
        parts = b->children[1];
        ZBT_CHECK(zb_arrow_array_init(parts, 2, 0) == 0);
    }
    ZBT_CHECK(zb_arrow_array_init(pay, 3, 0) == 0);
    idv = zb_malloc((size_t)rows * sizeof *idv + 1);
    if (wide) {
        pv = zb_malloc((size_t)rows * sizeof *pv + 1);
        ZBT_CHECK(pv != NULL);
        parts->buffers[1] = pv;
        parts->length = rows;
    }
    off = zb_malloc(((size_t)rows + 1) * sizeof *off);
    valid = zb_calloc((size_t)rows / 8 + 1, 1);
    chars = zb_malloc((size_t)rows * 24 + 1);
    ZBT_CHECK(idv && off && valid && chars);
    ids->buffers[1] = idv;
    pay->buffers[0] = valid;
    pay->buffers[1] = off;
    pay->buffers[2] = chars;
    off[0] = 0;
    pay->null_count = 0;
    for (i = 0; i < rows; i++) {
        idv[i] = first + i;
        if (wide)
            pv[i] = part < 0 ? 0 : part;
        if (wide && i % 5 == 4) {
            pay->null_count++;
        } else {
            zb_arrow_set_bit(valid, i);
            at += snprintf(chars + at, 24, "row-%lld", (long long)(first + i));
        }
        off[i + 1] = at;
    }
    b->length = ids->length = pay->length = rows;
}

/* One append to *t (no checks: child processes call it). */
static int append_rc(of_env *e, zb_table **t, int part, int64_t first,
                     int rows)
{
    struct ArrowSchema s;
    struct ArrowArray b;
    zb_write_partition wp;
    ice_value v = ice_value_int(part);
    char folder[32];
    int rc;

    make_schema(&s, e->layout);
    make_batch(&b, e->layout, first, rows, part);
    memset(&wp, 0, sizeof wp);
    wp.spec_id = -1;
    wp.n_values = 1;
    wp.values = &v;
    snprintf(folder, sizeof folder, "part=%d", part);
    wp.folder = folder;
    rc = zb_ingest_append(t, e->cat, e->io, &e->ctx, &s, &b, 1,
                          part < 0 ? NULL : &wp);
    zb_arrow_array_release(&b);
    zb_arrow_schema_release(&s);
    return rc;
}

void of_append_to(of_env *e, zb_table **t, int part, int64_t first,
                  int rows)
{
    ZBT_OK_CTX(append_rc(e, t, part, first, rows), &e->ctx);
}

int of_append_rc(of_env *e, int part, int64_t first, int rows)
{
    zb_table *t = NULL;
    int rc;

    if ((rc = zb_catalog_load_table(e->cat, &e->ctx, e->dir, &t)) < 0)
        return rc;
    rc = append_rc(e, &t, part, first, rows);
    zb_table_free(t);
    return rc;
}

void of_append(of_env *e, int part, int64_t first, int rows)
{
    ZBT_OK_CTX(of_append_rc(e, part, first, rows), &e->ctx);
}

/* An empty table of e's layout. */
static zb_table *create(of_env *e, const char *ident, const char *location,
                        int partitioned, int fv)
{
    int wide = e->layout == OF_ID_PART_PAYLOAD;
    json_t *schema = json_loads(wide ? SCHEMA_ID_PART_PAYLOAD
                                     : SCHEMA_ID_PAYLOAD, 0, NULL);
    json_t *spec = partitioned ? json_loads(SPEC_PART, 0, NULL) : NULL;
    zb_table *t = NULL;

    ZBT_CHECK(schema != NULL && (!partitioned || (wide && spec != NULL)));
    ZBT_OK_CTX(zb_ingest_create(&t, e->cat, &e->ctx, ident, location,
                                (const zb_json *)schema,
                                (const zb_json *)spec, NULL, 0, fv), &e->ctx);
    json_decref(schema);
    json_decref(spec);
    return t;
}

zb_table *of_make_catalog_table(of_env *e, const char *ident,
                                const char *location, int n_appends,
                                int rows)
{
    zb_table *t = NULL;
    char ns[128], loc[1024];
    const char *dot = strrchr(ident, ident[0] == '/' ? '/' : '.');
    int a;

    ZBT_CHECK(dot != NULL);
    if (ident[0] != '/') {       /* a PATH table is its folder */
        snprintf(ns, sizeof ns, "%.*s", (int)(dot - ident), ident);
        if (location == NULL) {
            snprintf(loc, sizeof loc, "%s/%s", e->dir, dot + 1);
            location = loc;
        }
        if (zb_catalog_create_namespace(e->cat, &e->ctx, ns) < 0)
            ZBT_EQ_INT(e->ctx.err.code, ZB_EEXISTS);
    } else if (location == NULL) {
        /* Given: a PATH table created without one records "". */
        location = ident;
    }
    t = create(e, ident, location, 0, 2);
    for (a = 0; a < n_appends; a++)
        of_append_to(e, &t, -1, (int64_t)a * rows, rows);
    return t;
}

void of_make_table(of_env *e, int fv, int partitioned, int n_parts,
                   int n_appends, int rows)
{
    int a;

    zb_table_free(create(e, e->dir, NULL, partitioned, fv));
    for (a = 0; a < n_appends; a++)
        of_append(e, partitioned ? a % n_parts : -1, (int64_t)a * rows, rows);
}

zb_table *of_load(of_env *e)
{
    zb_table *t = NULL;

    ZBT_OK_CTX(zb_catalog_load_table(e->cat, &e->ctx, e->dir, &t), &e->ctx);
    return t;
}

void of_reload(of_env *e, zb_table **t, const char *ident)
{
    zb_table_free(*t);
    *t = NULL;
    ZBT_OK_CTX(zb_catalog_load_table(e->cat, &e->ctx, ident, t), &e->ctx);
}

/* ---- commits ------------------------------------------------------------ */

char *of_data_file(of_env *e, const zb_table *t, size_t i)
{
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *en;
    const ice_manifest_file *mf;
    char *path = NULL;
    size_t k = 0;

    ZBT_OK_CTX(ice_snapshot_iter_open(&it, e->io, &e->ctx, t->meta,
                                      ice_metadata_current_snapshot(t->meta),
                                      &t->paths),
               &e->ctx);
    while (path == NULL && ice_snapshot_iter_next(it, &e->ctx, &en, &mf) > 0)
        if (en->data_file.content == ICE_CONTENT_DATA && k++ == i)
            path = strdup(en->data_file.file_path);
    ice_snapshot_iter_free(it);
    ZBT_CHECK(path != NULL);
    return path;
}

void of_delete_row(of_env *e, zb_table **t)
{
    char *path = of_data_file(e, *t, 0);
    int64_t pos = 0;

    ZBT_OK_CTX(zb_ingest_delete_positions(t, e->cat, e->io, &e->ctx,
                                          (const char *const *)&path, &pos, 1,
                                          NULL),
               &e->ctx);
    free(path);
}

void of_remove_file(of_env *e, zb_table **t, const char *path)
{
    ice_commit_op *op = NULL;
    ice_commit_op_opts o = ICE_COMMIT_OP_OPTS_INIT;
    ice_commit_result r = ICE_COMMIT_RESULT_INIT;
    zb_table *t2 = NULL;

    o.kind = ICE_OP_DELETE;
    o.io = e->io;
    o.root = (*t)->root;
    o.paths = &(*t)->paths;
    ZBT_OK_CTX(ice_commit_op_new(&op, &e->ctx, &o), &e->ctx);
    ZBT_OK_CTX(ice_commit_op_remove_file(op, &e->ctx, path), &e->ctx);
    ZBT_OK_CTX(ice_commit_op_build(op, &e->ctx, (*t)->meta, &r), &e->ctx);
    ZBT_OK_CTX(zb_catalog_commit(e->cat, &e->ctx, *t, r.requirements,
                                 r.updates, &t2),
               &e->ctx);
    ice_commit_result_free(&r);
    ice_commit_op_free(op);
    zb_table_free(*t);
    *t = t2;
}

void of_commit(of_env *e, zb_table **t, json_t *update)
{
    json_t *ups = json_array();
    zb_table *t2 = NULL;

    ZBT_CHECK(ups != NULL && update != NULL);
    json_array_append_new(ups, update);
    ZBT_OK_CTX(zb_catalog_commit(e->cat, &e->ctx, *t, NULL,
                                 (const zb_json *)ups, &t2),
               &e->ctx);
    json_decref(ups);
    zb_table_free(*t);
    *t = t2;
}

void of_set_ref(of_env *e, zb_table **t, const char *name, int tag,
                int64_t snapshot_id, int64_t max_ref_age_ms)
{
    ice_ref r;

    memset(&r, 0, sizeof r);
    r.name = name;
    r.type = tag ? ICE_REF_TAG : ICE_REF_BRANCH;
    r.snapshot_id = snapshot_id;
    r.min_snapshots_to_keep = -1;
    r.max_snapshot_age_ms = -1;
    r.max_ref_age_ms = max_ref_age_ms;
    of_commit(e, t, (json_t *)ice_update_set_ref(&r));
}

/* ---- live entries ------------------------------------------------------- */

static int cmp_item(const void *pa, const void *pb)
{
    const of_item *a = pa, *b = pb;
    int c = strcmp(a->path, b->path);

    if (c != 0)
        return c;
    return a->offset < b->offset ? -1 : a->offset > b->offset;
}

void of_live(of_items *out, of_env *e)
{
    zb_table *t = of_load(e);
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
        of_item *x;

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

void of_items_free(of_items *it)
{
    size_t i;

    for (i = 0; i < it->n; i++)
        zb_free(it->v[i].path);
    zb_free(it->v);
    memset(it, 0, sizeof *it);
}

size_t of_count(const of_items *it, int content)
{
    size_t i, n = 0;

    for (i = 0; i < it->n; i++)
        n += it->v[i].content == content;
    return n;
}

void of_items_same(const of_items *a, const of_items *b,
                   const char *const *skip, size_t n_skip)
{
    size_t i, j = 0, k, skipped = 0;

    for (i = 0; i < a->n; i++) {
        const of_item *x = &a->v[i], *y;
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

/* ---- snapshots ---------------------------------------------------------- */

char *of_summary(of_env *e, const char *key)
{
    zb_table *t = of_load(e);
    const ice_snapshot *s = ice_metadata_current_snapshot(t->meta);
    char *v = NULL;
    size_t i;

    for (i = 0; s && i < s->n_summary; i++)
        if (strcmp(s->summary[i].key, key) == 0)
            v = zb_strdup(s->summary[i].value);
    zb_table_free(t);
    return v;
}

int64_t of_current_id(of_env *e)
{
    zb_table *t = of_load(e);
    int64_t id = t->meta->current_snapshot_id;

    zb_table_free(t);
    return id;
}

size_t of_snapshot_count(of_env *e)
{
    zb_table *t = of_load(e);
    size_t n = t->meta->n_snapshots;

    zb_table_free(t);
    return n;
}

size_t of_manifests(of_env *e, size_t *data, size_t *deletes)
{
    zb_table *t = of_load(e);
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

/* ---- rows --------------------------------------------------------------- */

/* The scan tasks of s copied into arena: ZB_OK or an rc (nothing kept). */
static int plan_rc(of_env *e, const zb_table *t, const ice_snapshot *s,
                   zb_arena *arena, zb_scan_task **tasks_out, size_t *n_out)
{
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_scan_plan *p = NULL;
    const zb_scan_task *task;
    zb_scan_task *tasks = NULL;
    size_t n = 0, cap = 0;
    int rc;

    po.manifest = &t->paths;
    if ((rc = zb_scan_plan_open(&p, e->io, &e->ctx, t->meta, s, &po)) < 0)
        goto done;
    while ((rc = zb_scan_plan_next(p, &e->ctx, &task)) > 0) {
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            tasks = zb_realloc(tasks, cap * sizeof *tasks);
            ZBT_CHECK(tasks != NULL);
        }
        if ((rc = zb_scan_task_copy(&tasks[n++], &e->ctx, arena, task)) < 0)
            goto done;
    }
done:
    zb_scan_plan_free(p);
    if (rc < 0) {
        zb_free(tasks);
        tasks = NULL;
        n = 0;
    }
    *tasks_out = tasks;
    *n_out = n;
    return rc < 0 ? rc : ZB_OK;
}

zb_scan_task *of_plan_tasks(of_env *e, const zb_table *t,
                            const ice_snapshot *s, zb_arena **arena,
                            size_t *n_out)
{
    zb_scan_task *tasks = NULL;

    ZBT_CHECK(zb_arena_new(arena, (size_t)1 << 30) == 0);
    ZBT_OK_CTX(plan_rc(e, t, s, *arena, &tasks, n_out), &e->ctx);
    return tasks;
}

/* The live rows of s read with schema (NULL: the current one), and with
 * hash given their order-free hash: ZB_OK or an rc. */
static int read_rows_rc(of_env *e, const zb_table *t, const ice_snapshot *s,
                        const ice_schema *schema, uint64_t *rows,
                        uint64_t *hash)
{
    zb_rowstream_opts ro = ZB_ROWSTREAM_OPTS_INIT;
    zb_rowstream *rs = NULL;
    zb_scan_task *tasks = NULL;
    zb_arena *arena = NULL;
    struct ArrowArray b;
    struct ArrowSchema sch;
    size_t n = 0;
    int rc;

    *rows = 0;
    if (hash)
        *hash = 0;
    if (s == NULL)
        return ZB_OK;
    ZBT_CHECK(zb_arena_new(&arena, (size_t)1 << 30) == 0);
    if ((rc = plan_rc(e, t, s, arena, &tasks, &n)) < 0)
        goto done;
    ro.meta = t->meta;
    ro.schema = schema;
    ro.paths = &t->paths;
    if ((rc = zb_rowstream_open(&rs, e->io, &e->ctx, &ro, tasks, n)) < 0)
        goto done;
    while ((rc = zb_rowstream_next(rs, &e->ctx, &b,
                                   hash ? &sch : NULL)) == 1) {
        int64_t r, c;

        for (r = 0; hash && r < b.length; r++) {
            uint64_t h = 14695981039346656037ull;

            for (c = 0; c < b.n_children; c++)
                h = of_hash_value(h, sch.children[c], b.children[c],
                                  r + b.offset);
            *hash += h;
        }
        *rows += (uint64_t)b.length;
        b.release(&b);
        if (hash)
            sch.release(&sch);
    }
done:
    zb_rowstream_free(rs);
    zb_free(tasks);
    zb_arena_free(arena);
    return rc < 0 ? rc : ZB_OK;
}

int64_t of_count_rows(of_env *e, const zb_table *t, const ice_snapshot *s)
{
    const ice_schema *schema = s && s->has_schema_id
                                   ? ice_metadata_schema(t->meta,
                                                         s->schema_id)
                                   : NULL;
    uint64_t rows;

    if (read_rows_rc(e, t, s, schema, &rows, NULL) < 0) {
        zb_err_clear(&e->ctx.err);
        return -1;
    }
    return (int64_t)rows;
}

void of_rows(of_env *e, uint64_t *rows, uint64_t *hash)
{
    zb_table *t = of_load(e);

    ZBT_OK_CTX(read_rows_rc(e, t, ice_metadata_current_snapshot(t->meta),
                            NULL, rows, hash), &e->ctx);
    zb_table_free(t);
}

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

uint64_t of_hash_value(uint64_t h, const struct ArrowSchema *s,
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

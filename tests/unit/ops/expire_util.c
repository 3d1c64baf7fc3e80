/*
 * tests/unit/ops/expire_util.c - helpers of the expire and remove-orphans
 * suites (expire_test.h).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "expire_test.h"
#include "ops/ingest/table_write.h"
#include "plan/scan/scan_plan.h"
#include "plan/read/scan_read.h"
#include "table/commit/commit.h"
#include "util/alloc.h"

void xp_open(xp_env *e, int sqlite)
{
    zb_catalog_config cfg = ZB_CATALOG_CONFIG_INIT;
    char db[700];

    memset(e, 0, sizeof *e);
    zb_ctx_init(&e->ctx);
    snprintf(e->dir, sizeof e->dir, "%s", zbt_tmpdir());
    ZBT_OK_CTX(zb_io_new(&e->io, &e->ctx), &e->ctx);
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
    ZBT_OK_CTX(zb_catalog_open(&e->cat, &e->ctx, e->io, &cfg), &e->ctx);
}

void xp_close(xp_env *e)
{
    zb_catalog_free(e->cat);
    zb_io_free(e->io);
}

int64_t xp_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- tables --------------------------------------------------------------- */

static const char SCHEMA[] =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"payload\",\"required\":false,\"type\":\"string\"}"
    "]}";

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
    ZBT_CHECK(zb_arrow_schema_init(s, "+s", "", NULL, 0, 0, 2) == 0);
    field(s->children[0], "l", "id", 1, 0);
    field(s->children[1], "u", "payload", 2, 1);
}

static void make_batch(struct ArrowArray *b, int64_t first, int rows)
{
    struct ArrowArray *ids, *pay;
    int64_t *idv;
    int32_t *off;
    uint8_t *valid;
    char *chars;
    int i, at = 0;

    memset(b, 0, sizeof *b);
    ZBT_CHECK(zb_arrow_array_init(b, 1, 2) == 0);
    ids = b->children[0];
    pay = b->children[1];
    ZBT_CHECK(zb_arrow_array_init(ids, 2, 0) == 0);
    ZBT_CHECK(zb_arrow_array_init(pay, 3, 0) == 0);
    idv = zb_malloc((size_t)rows * sizeof *idv + 1);
    off = zb_malloc(((size_t)rows + 1) * sizeof *off);
    valid = zb_calloc((size_t)rows / 8 + 1, 1);
    chars = zb_malloc((size_t)rows * 24 + 1);
    ZBT_CHECK(idv && off && valid && chars);
    ids->buffers[1] = idv;
    pay->buffers[0] = valid;
    pay->buffers[1] = off;
    pay->buffers[2] = chars;
    off[0] = 0;
    for (i = 0; i < rows; i++) {
        idv[i] = first + i;
        zb_arrow_set_bit(valid, i);
        at += snprintf(chars + at, 24, "row-%lld", (long long)(first + i));
        off[i + 1] = at;
    }
    b->length = ids->length = pay->length = rows;
}

void xp_append(xp_env *e, zb_table **t, int rows, int64_t first_id)
{
    struct ArrowSchema s;
    struct ArrowArray b;

    make_schema(&s);
    make_batch(&b, first_id, rows);
    ZBT_OK_CTX(zb_table_append(t, e->cat, e->io, &e->ctx, &s, &b, 1, NULL),
               &e->ctx);
    zb_arrow_array_release(&b);
    zb_arrow_schema_release(&s);
}

zb_table *xp_make_table(xp_env *e, const char *ident, const char *location,
                        int n_appends, int rows)
{
    json_t *schema = json_loads(SCHEMA, 0, NULL);
    zb_table *t = NULL;
    char ns[128], loc[1024];
    const char *dot = strrchr(ident, ident[0] == '/' ? '/' : '.');
    int a;

    ZBT_CHECK(schema != NULL && dot != NULL);
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
    ZBT_OK_CTX(zb_table_create(&t, e->cat, &e->ctx, ident, location,
                               (const zb_json *)schema,
                               NULL, NULL, 0, 2),
               &e->ctx);
    json_decref(schema);
    for (a = 0; a < n_appends; a++)
        xp_append(e, &t, rows, (int64_t)a * rows);
    return t;
}

char *xp_data_file(xp_env *e, const zb_table *t, size_t i)
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

void xp_delete_row(xp_env *e, zb_table **t)
{
    char *path = xp_data_file(e, *t, 0);
    int64_t pos = 0;

    ZBT_OK_CTX(zb_table_delete_positions(t, e->cat, e->io, &e->ctx,
                                         (const char *const *)&path, &pos, 1,
                                         NULL),
               &e->ctx);
    free(path);
}

void xp_remove_file(xp_env *e, zb_table **t, const char *path)
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

void xp_commit(xp_env *e, zb_table **t, json_t *update)
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

void xp_set_ref(xp_env *e, zb_table **t, const char *name, int tag,
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
    xp_commit(e, t, (json_t *)ice_update_set_ref(&r));
}

void xp_reload(xp_env *e, zb_table **t, const char *ident)
{
    zb_table_free(*t);
    *t = NULL;
    ZBT_OK_CTX(zb_catalog_load_table(e->cat, &e->ctx, ident, t), &e->ctx);
}

/* ---- trees ------------------------------------------------------------------ */

typedef struct strlist {
    char **s;
    size_t n, cap;
} strlist;

static void sl_add(strlist *l, char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->s = realloc(l->s, l->cap * sizeof *l->s);
        ZBT_CHECK(l->s != NULL);
    }
    l->s[l->n++] = s;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Joins a list (sorted, duplicates dropped) into lines; frees it. */
static char *sl_join(strlist *l)
{
    size_t i, len = 1, at = 0;
    char *out;

    if (l->n > 0)
        qsort(l->s, l->n, sizeof *l->s, cmp_str);
    for (i = 0; i < l->n; i++)
        len += strlen(l->s[i]) + 1;
    out = malloc(len);
    ZBT_CHECK(out != NULL);
    out[0] = '\0';
    for (i = 0; i < l->n; i++) {
        if (i > 0 && strcmp(l->s[i], l->s[i - 1]) == 0)
            continue;
        at += (size_t)sprintf(out + at, "%s\n", l->s[i]);
    }
    for (i = 0; i < l->n; i++)
        free(l->s[i]);
    free(l->s);
    memset(l, 0, sizeof *l);
    return out;
}

static uint64_t file_hash(const char *path, uint64_t *size)
{
    FILE *f = fopen(path, "rb");
    uint64_t h = 1469598103934665603ull;
    int c;

    *size = 0;
    ZBT_CHECK(f != NULL);
    while ((c = getc(f)) != EOF) {
        h = (h ^ (uint64_t)(unsigned char)c) * 1099511628211ull;
        (*size)++;
    }
    fclose(f);
    return h;
}

static void walk(strlist *l, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;

    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        char path[4096], *line;
        struct stat st;
        uint64_t size, h;
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (lstat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            walk(l, path);
            continue;
        }
        h = file_hash(path, &size);
        line = malloc(strlen(path) + 64);
        ZBT_CHECK(line != NULL);
        sprintf(line, "%s\t%llu\t%016llx", path, (unsigned long long)size,
                (unsigned long long)h);
        sl_add(l, line);
    }
    closedir(d);
}

char *xp_tree(const char *dir)
{
    strlist l = { 0 };

    walk(&l, dir);
    return sl_join(&l);
}

char *xp_tree_minus(const char *a, const char *b)
{
    strlist l = { 0 };
    const char *p = a;

    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = (size_t)(nl - p);
        char *line = strndup(p, n);
        char *needle = malloc(n + 3);
        ZBT_CHECK(line && needle);
        sprintf(needle, "\n%s\n", line);
        /* b as "\n" + b so the first line matches too. */
        {
            size_t bl = strlen(b);
            char *bb = malloc(bl + 2);
            ZBT_CHECK(bb != NULL);
            bb[0] = '\n';
            memcpy(bb + 1, b, bl + 1);
            if (strstr(bb, needle) == NULL)
                sl_add(&l, line);
            else
                free(line);
            free(bb);
        }
        free(needle);
        p = nl + 1;
    }
    return sl_join(&l);
}

size_t xp_lines(const char *s)
{
    size_t n = 0;

    for (; *s; s++)
        n += *s == '\n';
    return n;
}

void xp_copy(const char *from, const char *to)
{
    char cmd[2200];

    snprintf(cmd, sizeof cmd, "cp -R '%s' '%s'", from, to);
    ZBT_CHECK(system(cmd) == 0);
}

void xp_make_file(const char *path, size_t len, int64_t age_ms)
{
    struct timespec ts[2];
    int64_t when = xp_now_ms() - age_ms;
    char *buf = calloc(1, len + 1);
    int fd;

    ZBT_CHECK(buf != NULL);
    memset(buf, 'x', len);
    zbt_write_file(path, buf, len);
    free(buf);
    ts[0].tv_sec = ts[1].tv_sec = (time_t)(when / 1000);
    ts[0].tv_nsec = ts[1].tv_nsec = (long)(when % 1000) * 1000000;
    fd = open(path, O_RDONLY);
    ZBT_CHECK(fd >= 0);
    ZBT_CHECK(futimens(fd, ts) == 0);
    close(fd);
}

int xp_exists(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0;
}

/* ---- snapshots ------------------------------------------------------------ */

static const char *resolved(xp_env *e, const zb_table *t, zb_buf *b,
                            const char *path)
{
    ZBT_OK_CTX(zb_table_resolve(b, &e->ctx, t, path), &e->ctx);
    return zb_buf_cstr(b);
}

long xp_check_snapshot(xp_env *e, const zb_table *t, const ice_snapshot *s,
                       int soft)
{
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *en;
    const ice_manifest_file *mf;
    const char *last_manifest = NULL;
    char last[4096] = "";
    zb_buf b = ZB_BUF_INIT(1 << 16);
    int64_t records = 0;
    long files = 0;
    size_t i;
    int rc;

    if (s->manifest_list) {
        if (!xp_exists(resolved(e, t, &b, s->manifest_list))) {
            zb_buf_free(&b);
            if (soft)
                return -1;
            zbt__fail(__FILE__, __LINE__, "manifest list missing: %s",
                      s->manifest_list);
        }
        files++;
    }
    rc = ice_snapshot_iter_open(&it, e->io, &e->ctx, t->meta, s, &t->paths);
    while (rc == ZB_OK && (rc = ice_snapshot_iter_next(it, &e->ctx, &en,
                                                       &mf)) > 0) {
        rc = ZB_OK;
        if (last_manifest == NULL || strcmp(last, mf->manifest_path) != 0) {
            snprintf(last, sizeof last, "%s", mf->manifest_path);
            last_manifest = last;
            files++;
        }
        if (!xp_exists(resolved(e, t, &b, en->data_file.file_path))) {
            if (soft) {
                rc = -1;
                break;
            }
            zbt__fail(__FILE__, __LINE__, "snapshot %lld: file missing: %s",
                      (long long)s->snapshot_id, zb_buf_cstr(&b));
        }
        files++;
        if (en->data_file.content == ICE_CONTENT_DATA)
            records += en->data_file.record_count;
    }
    ice_snapshot_iter_free(it);
    zb_buf_free(&b);
    if (rc < 0) {
        if (soft)
            return -1;
        zbt__fail(__FILE__, __LINE__, "snapshot %lld does not read: %s",
                  (long long)s->snapshot_id, e->ctx.err.msg);
    }
    /* Our own tables' summaries must add up; some fixture writers' do
     * not (impala-v2-null-delete-record was made by hand). */
    for (i = 0; i < s->n_summary && !soft; i++)
        if (strcmp(s->summary[i].key, "total-records") == 0)
            ZBT_EQ_INT(records, strtoll(s->summary[i].value, NULL, 10));
    return files;
}

int64_t xp_count_rows(xp_env *e, const zb_table *t, const ice_snapshot *s)
{
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_rowstream_opts ro = ZB_ROWSTREAM_OPTS_INIT;
    zb_scan_plan *p = NULL;
    zb_rowstream *rs = NULL;
    zb_arena *arena = NULL;
    const zb_scan_task *task;
    zb_scan_task *tasks = NULL;
    size_t n = 0, cap = 0;
    struct ArrowArray batch;
    int64_t rows = 0;
    int rc;

    po.manifest = &t->paths;
    ZBT_CHECK(zb_arena_new(&arena, (size_t)1 << 30) == 0);
    if ((rc = zb_scan_plan_open(&p, e->io, &e->ctx, t->meta, s, &po)) < 0)
        goto fail;
    while ((rc = zb_scan_plan_next(p, &e->ctx, &task)) > 0) {
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            tasks = realloc(tasks, cap * sizeof *tasks);
            ZBT_CHECK(tasks != NULL);
        }
        if ((rc = zb_scan_task_copy(&tasks[n++], &e->ctx, arena, task)) < 0)
            goto fail;
    }
    if (rc < 0)
        goto fail;
    ro.meta = t->meta;
    ro.schema = s->has_schema_id ? ice_metadata_schema(t->meta, s->schema_id)
                                 : NULL;
    ro.paths = &t->paths;
    if ((rc = zb_rowstream_open(&rs, e->io, &e->ctx, &ro, tasks, n)) < 0)
        goto fail;
    while ((rc = zb_rowstream_next(rs, &e->ctx, &batch, NULL)) == 1) {
        rows += batch.length;
        batch.release(&batch);
    }
    if (rc < 0)
        goto fail;
    goto done;
fail:
    rows = -1;
    zb_err_clear(&e->ctx.err);
done:
    zb_rowstream_free(rs);
    zb_scan_plan_free(p);
    zb_arena_free(arena);
    free(tasks);
    return rows;
}

static void add_resolved(xp_env *e, const zb_table *t, strlist *l,
                         const char *path)
{
    zb_buf b = ZB_BUF_INIT(1 << 16);
    char *s = strdup(resolved(e, t, &b, path));

    ZBT_CHECK(s != NULL);
    sl_add(l, s);
    zb_buf_free(&b);
}

char *xp_snapshot_paths(xp_env *e, const zb_table *t,
                        const unsigned char *flags, int keep)
{
    strlist l = { 0 };
    size_t i, k;

    for (i = 0; i < t->meta->n_snapshots; i++) {
        const ice_snapshot *s = &t->meta->snapshots[i];
        ice_manifest_list_reader *lr = NULL;
        const ice_manifest_file *mf;
        if (flags[i] != keep)
            continue;
        ZBT_CHECK(s->manifest_list != NULL);
        add_resolved(e, t, &l, s->manifest_list);
        for (k = 0; k < t->meta->n_statistics; k++)
            if (t->meta->statistics[k].snapshot_id == s->snapshot_id)
                add_resolved(e, t, &l, t->meta->statistics[k].statistics_path);
        for (k = 0; k < t->meta->n_partition_statistics; k++)
            if (t->meta->partition_statistics[k].snapshot_id == s->snapshot_id)
                add_resolved(e, t, &l,
                             t->meta->partition_statistics[k].statistics_path);
        ZBT_OK_CTX(ice_manifest_list_open(&lr, e->io, &e->ctx,
                                          s->manifest_list,
                                          t->meta->format_version, &t->paths),
                   &e->ctx);
        while (ice_manifest_list_next(lr, &e->ctx, &mf) > 0) {
            ice_manifest_reader *mr = NULL;
            const ice_manifest_entry *en;
            add_resolved(e, t, &l, mf->manifest_path);
            ZBT_OK_CTX(ice_manifest_open(&mr, e->io, &e->ctx, mf, NULL,
                                         t->meta->format_version, &t->paths),
                       &e->ctx);
            while (ice_manifest_next(mr, &e->ctx, &en) > 0)
                if (!keep || en->status != ICE_STATUS_DELETED)
                    add_resolved(e, t, &l, en->data_file.file_path);
            ice_manifest_free(mr);
        }
        ice_manifest_list_free(lr);
    }
    return sl_join(&l);
}

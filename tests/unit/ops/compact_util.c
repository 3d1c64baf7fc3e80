/*
 * tests/unit/ops/compact_util.c - helpers of the compaction suites
 * (compact_test.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compact_test.h"
#include "exec/arrow/arrow.h"
#include "ops/ingest/table_write.h"
#include "plan/scan/scan_plan.h"
#include "plan/read/scan_read.h"
#include "util/alloc.h"

int ct_delete_pos_rc(of_env *e, const char *path, const int64_t *pos,
                     size_t n, int part)
{
    zb_table *t = NULL;
    ice_value v = ice_value_int(part);
    zb_write_partition wp = { -1, 1, NULL, NULL };
    const char **paths;
    size_t i;
    int rc;

    wp.values = &v;
    if ((rc = zb_catalog_load_table(e->cat, &e->ctx, e->dir, &t)) < 0)
        return rc;
    paths = zb_calloc(n + 1, sizeof *paths);
    for (i = 0; i < n; i++)
        paths[i] = path;
    rc = zb_ingest_delete_positions(&t, e->cat, e->io, &e->ctx, paths, pos, n,
                                    part < 0 ? NULL : &wp);
    zb_free(paths);
    zb_table_free(t);
    return rc;
}

char *ct_delete_pos(of_env *e, size_t nth, const int64_t *pos, size_t n,
                    int part)
{
    of_items it;
    size_t i, k = 0;
    char *path = NULL;

    of_live(&it, e);
    for (i = 0; i < it.n && path == NULL; i++)
        if (it.v[i].content == 0 && k++ == nth)
            path = zb_strdup(it.v[i].path);
    of_items_free(&it);
    ZBT_CHECK(path != NULL);
    ZBT_OK_CTX(ct_delete_pos_rc(e, path, pos, n, part), &e->ctx);
    return path;
}

static void field(struct ArrowSchema *s, const char *fmt, const char *name,
                  const char *id)
{
    char *md = NULL;
    size_t md_len = 0;
    const char *kv[] = { "PARQUET:field_id", id, NULL };

    ZBT_CHECK(zb_arrow_metadata(&md, &md_len, kv) == 0);
    ZBT_CHECK(zb_arrow_schema_init(s, fmt, name, md, md_len, 0, 0) == 0);
    zb_free(md);
}

int ct_delete_eq2_rc(of_env *e, const int64_t *ids, size_t n, int part)
{
    zb_table *t = NULL;
    ice_value v = ice_value_int(part < 0 ? 0 : part);
    zb_write_partition wp = { -1, 1, NULL, NULL };
    struct ArrowSchema s;
    struct ArrowArray b;
    int32_t eq[2] = { 1, 2 };
    int64_t *idv;
    int32_t *pv;
    size_t i;
    int rc;

    wp.values = &v;
    if ((rc = zb_catalog_load_table(e->cat, &e->ctx, e->dir, &t)) < 0)
        return rc;
    memset(&s, 0, sizeof s);
    memset(&b, 0, sizeof b);
    ZBT_CHECK(zb_arrow_schema_init(&s, "+s", "", NULL, 0, 0, 2) == 0);
    field(s.children[0], "l", "id", "1");
    field(s.children[1], "i", "part", "2");
    ZBT_CHECK(zb_arrow_array_init(&b, 1, 2) == 0);
    ZBT_CHECK(zb_arrow_array_init(b.children[0], 2, 0) == 0);
    ZBT_CHECK(zb_arrow_array_init(b.children[1], 2, 0) == 0);
    idv = zb_malloc(n * sizeof *idv + 1);
    pv = zb_malloc(n * sizeof *pv + 1);
    ZBT_CHECK(idv != NULL && pv != NULL);
    for (i = 0; i < n; i++) {
        idv[i] = ids[i];
        pv[i] = part < 0 ? 0 : part;
    }
    b.children[0]->buffers[1] = idv;
    b.children[1]->buffers[1] = pv;
    b.length = b.children[0]->length = b.children[1]->length = (int64_t)n;
    rc = zb_ingest_delete_equal(&t, e->cat, e->io, &e->ctx, eq, 2, &s, &b,
                                part < 0 ? NULL : &wp);
    zb_arrow_array_release(&b);
    zb_arrow_schema_release(&s);
    zb_table_free(t);
    return rc;
}

void ct_delete_eq2(of_env *e, const int64_t *ids, size_t n, int part)
{
    ZBT_OK_CTX(ct_delete_eq2_rc(e, ids, n, part), &e->ctx);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

int64_t *ct_ids(of_env *e, size_t *n_out)
{
    zb_table *t = of_load(e);
    const ice_snapshot *s = ice_metadata_current_snapshot(t->meta);
    zb_rowstream_opts ro = ZB_ROWSTREAM_OPTS_INIT;
    zb_rowstream *rs = NULL;
    zb_scan_task *tasks = NULL;
    zb_arena *arena = NULL;
    size_t n = 0, nid = 0, idcap = 1024;
    int64_t *ids = zb_malloc(idcap * sizeof *ids);
    int32_t id_field = 1;
    struct ArrowArray b;
    int rc;

    ZBT_CHECK(ids != NULL);
    *n_out = 0;
    if (s == NULL) {
        zb_table_free(t);
        return ids;
    }
    tasks = of_plan_tasks(e, t, s, &arena, &n);
    ro.meta = t->meta;
    ro.paths = &t->paths;
    ro.field_ids = &id_field;
    ro.n_field_ids = 1;
    ZBT_OK_CTX(zb_rowstream_open(&rs, e->io, &e->ctx, &ro, tasks, n),
               &e->ctx);
    while ((rc = zb_rowstream_next(rs, &e->ctx, &b, NULL)) == 1) {
        const int64_t *v = b.children[0]->buffers[1];
        int64_t r;

        for (r = 0; r < b.length; r++) {
            if (nid == idcap) {
                idcap *= 2;
                ids = zb_realloc(ids, idcap * sizeof *ids);
                ZBT_CHECK(ids != NULL);
            }
            ids[nid++] = v[r + b.offset + b.children[0]->offset];
        }
        b.release(&b);
    }
    ZBT_OK_CTX(rc, &e->ctx);
    zb_rowstream_free(rs);
    zb_free(tasks);
    zb_arena_free(arena);
    zb_table_free(t);
    qsort(ids, nid, sizeof *ids, cmp_i64);
    *n_out = nid;
    return ids;
}

size_t ct_check_file_counts(of_env *e, int64_t target)
{
    zb_table *t = of_load(e);
    const ice_snapshot *s = ice_metadata_current_snapshot(t->meta);
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_scan_plan *p = NULL;
    const zb_scan_task *task;
    int64_t files[64], bytes[64];
    size_t total = 0, i;
    int rc;

    memset(files, 0, sizeof files);
    memset(bytes, 0, sizeof bytes);
    po.manifest = &t->paths;
    ZBT_OK_CTX(zb_scan_plan_open(&p, e->io, &e->ctx, t->meta, s, &po),
               &e->ctx);
    while ((rc = zb_scan_plan_next(p, &e->ctx, &task)) > 0) {
        const ice_data_file *f = task->data.file;
        int k = f->n_partition > 0 && !f->partition[0].is_null
                    ? (int)(f->partition[0].u.i & 63) : 0;

        files[k]++;
        bytes[k] += f->file_size_in_bytes;
        total++;
    }
    ZBT_OK_CTX(rc, &e->ctx);
    for (i = 0; i < 64 && target > 0; i++) {
        int64_t want = (bytes[i] + target - 1) / target;

        if (files[i] > want + 1)
            printf("  bucket %zu: %lld files, %lld bytes, target %lld\n", i,
                   (long long)files[i], (long long)bytes[i],
                   (long long)target);
        if (files[i] > want + 1)
            ZBT_CHECK(!"more files than ceil(bytes / target) + 1");
    }
    zb_scan_plan_free(p);
    zb_table_free(t);
    return total;
}

int ct_compact(of_env *e, const zb_compact_opts *o, zb_compact_result *r)
{
    return ct_compact_hooked(e, o, NULL, r);
}

int ct_compact_hooked(of_env *e, const zb_compact_opts *o,
                      const zb_compact_test_hooks *h, zb_compact_result *r)
{
    zb_buf out = ZB_BUF_INIT(1 << 20);
    int rc = zb_compact_test_run(&e->t, &e->ctx, o, h, r);

    if (zb_compact_report(&out, "t", r, e->t.dry_run) == 0 && out.len > 0)
        printf("%s", zb_buf_cstr(&out));
    if (rc < 0)
        printf("  rc %s: %s\n", zb_rc_name(rc), e->ctx.err.msg);
    zb_buf_free(&out);
    return rc;
}

void ct_set_spec(of_env *e, const char *fields_json)
{
    zb_table *t = of_load(e), *t2 = NULL;
    json_t *reqs = json_array(), *fields = json_loads(fields_json, 0, NULL);
    json_t *updates = json_pack(
        "[{s:s,s:{s:i,s:o}},{s:s,s:i}]", "action", "add-spec", "spec",
        "spec-id", 1, "fields", fields, "action", "set-default-spec",
        "spec-id", -1);

    ZBT_CHECK(reqs != NULL && fields != NULL && updates != NULL);
    ZBT_OK_CTX(zb_catalog_commit(e->cat, &e->ctx, t, (const zb_json *)reqs,
                                 (const zb_json *)updates, &t2),
               &e->ctx);
    zb_table_free(t);
    zb_table_free(t2);
    json_decref(reqs);
    json_decref(updates);
}

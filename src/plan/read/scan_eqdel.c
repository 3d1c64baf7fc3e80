/*
 * plan/read/scan_eqdel.c - equality deletes of a group.
 *
 * The delete files are sorted into scopes. The planner decided which
 * files apply to which task (sequence numbers, partitions, global
 * deletes); the stream only groups them. When the files of one set of
 * equality_ids apply, across the group, exactly to the tasks of lower data
 * sequence number (checked here, file by file and task by task: the
 * common case of a partition's compaction group and of global deletes),
 * they form one scope whose keys carry the largest sequence number of the
 * files that hold them, and a row of sequence s is deleted by a key found
 * with a larger one: one lookup per row however many commits wrote
 * deletes (Flink upserts). Otherwise each distinct set of tasks is a
 * scope of its own whose keys always delete. Every delete row becomes a
 * key in one key set (exec/keyset/keyset.h): its scope's 4-byte id followed by
 * the canonical bytes of its key columns, projected to the read schema's
 * types first (scan_project.c), so an int 5 written before a promotion
 * meets a long 5, and null meets null.
 *
 * In memory the set is probed while reading. When it spilled into P
 * partitions, the key columns of every data file with equality deletes
 * are read once and each row's key is written to the spill file of its
 * hash partition (Grace hash join); then each partition of the set is
 * loaded in turn and its file of data keys looked up, marking deleted
 * positions in a bitmap per task (a bit per row); the final read then
 * only looks at the marks.
 */
#define ZB_MODULE "plan"

#include <string.h>

#include "exec/spill.h"
#include "plan/read/scan_read_int.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/log.h"

#define HASH_SEED 0x5a6d626f6e69ULL

typedef struct eqfile {
    const zb_scan_file *f;
    const zb_delfile *df;    /* its tasks */
    size_t eqset;
    size_t scope;
    uint64_t value;          /* its keys' value: seq, or UINT64_MAX */
} eqfile;

/* A row of task ti is deleted by a key of this value. */
static int deletes_row(const zb_rowstream *rs, size_t ti, uint64_t value)
{
    int64_t seq = rs->tasks[ti].data.data_sequence_number;

    return value > (uint64_t)(seq > 0 ? seq : 0);
}

/* Key columns of one eq set for one batch. */
typedef struct keycols {
    size_t n;
    struct ArrowArray *tops;
    const struct ArrowArray *(*chain)[ZB_SCAN_MAX_PATH];
} keycols;

static int resolve_key(zb_rowstream *rs, zb_ctx *ctx, zb_eqkey *k,
                       int32_t id, const char *path)
{
    const ice_metadata *m = rs->opts.meta;
    size_t i;

    k->id = id;
    k->root = rs->schema->root;
    k->depth = zb_scan__field_path(k->path, ZB_SCAN_MAX_PATH, k->root, id);
    for (i = m->n_schemas; k->depth == 0 && i-- > 0;) {
        k->root = m->schemas[i].root;
        k->depth = zb_scan__field_path(k->path, ZB_SCAN_MAX_PATH, k->root,
                                       id);
    }
    if (k->depth == 0)
        return zb_fail(ctx, ZB_ECORRUPT, "equality delete file %s: "
                       "equality field id %d is not a struct field of any "
                       "schema", path, (int)id);
    if (k->path[k->depth - 1]->type->id >= ICE_STRUCT)
        return zb_fail(ctx, ZB_ECORRUPT, "equality delete file %s: "
                       "equality field %s (id %d) is not a primitive",
                       path, k->path[k->depth - 1]->name, (int)id);
    return ZB_OK;
}

static int find_eqset(zb_rowstream *rs, zb_ctx *ctx, const ice_data_file *df,
                      size_t *out)
{
    int32_t ids[256];
    size_t n = 0, i, j;
    zb_eqset *es;
    int rc;

    if (!df->has_equality_ids || df->n_equality_ids == 0)
        return zb_fail(ctx, ZB_ECORRUPT, "equality delete file %s has no "
                       "equality_ids", df->file_path);
    if (df->n_equality_ids > 256)
        return zb_fail(ctx, ZB_EUNSUPPORTED, "equality delete file %s: "
                       "more than 256 equality_ids", df->file_path);
    for (i = 0; i < df->n_equality_ids; i++) {
        int32_t v = df->equality_ids[i];
        for (j = n; j > 0 && ids[j - 1] > v; j--)
            ids[j] = ids[j - 1];
        if (j > 0 && ids[j - 1] == v) {
            memmove(ids + j, ids + j + 1, (n - j) * sizeof *ids);
            continue;
        }
        ids[j] = v;
        n++;
    }
    for (i = 0; i < rs->n_eqsets; i++)
        if (rs->eqsets[i].n_ids == n &&
            memcmp(rs->eqsets[i].ids, ids, n * sizeof *ids) == 0) {
            *out = i;
            return ZB_OK;
        }
    /* eqsets grows in the arena: copy into a larger array. */
    es = zb_arena_calloc(rs->arena, rs->n_eqsets + 1, sizeof *es);
    if (es == NULL)
        return zb_fail_oom(ctx);
    if (rs->n_eqsets)
        memcpy(es, rs->eqsets, rs->n_eqsets * sizeof *es);
    rs->eqsets = es;
    es = &rs->eqsets[rs->n_eqsets];
    es->n_ids = n;
    es->ids = zb_arena_calloc(rs->arena, n, sizeof *es->ids);
    es->keys = zb_arena_calloc(rs->arena, n, sizeof *es->keys);
    if (!es->ids || !es->keys)
        return zb_fail_oom(ctx);
    memcpy(es->ids, ids, n * sizeof *ids);
    for (i = 0; i < n; i++)
        if ((rc = resolve_key(rs, ctx, &es->keys[i], ids[i],
                              df->file_path)) < 0)
            return rc;
    *out = rs->n_eqsets++;
    return ZB_OK;
}

static void keycols_release(keycols *kc)
{
    size_t j;

    for (j = 0; kc->tops && j < kc->n; j++)
        zb_arrow_array_release(&kc->tops[j]);
}

static void keycols_free(keycols *kc)
{
    keycols_release(kc);
    zb_free(kc->tops);
    zb_free(kc->chain);
    memset(kc, 0, sizeof *kc);
}

static int keycols_alloc(keycols *kc, zb_ctx *ctx, size_t n)
{
    memset(kc, 0, sizeof *kc);
    kc->n = n;
    kc->tops = zb_calloc(n + 1, sizeof *kc->tops);
    kc->chain = zb_calloc(n + 1, sizeof *kc->chain);
    if (!kc->tops || !kc->chain) {
        keycols_free(kc);
        return zb_fail_oom(ctx);
    }
    return ZB_OK;
}

/* Projects the key columns of es from batch (ss, sa) of n rows. */
static int keycols_fill(keycols *kc, zb_rowstream *rs, zb_ctx *ctx,
                        const zb_eqset *es, const zb_proj_file *pf,
                        const struct ArrowSchema *ss,
                        const struct ArrowArray *sa, size_t n)
{
    size_t j, d;
    int rc;

    keycols_release(kc);
    for (j = 0; j < es->n_ids; j++) {
        const zb_eqkey *k = &es->keys[j];
        const ice_field *top = k->path[0];
        const zb_nm_field *nm = NULL;
        int idx = zb_scan__src_child(pf, ss, top, rs->has_nm ? &rs->nm : NULL,
                                     &nm);
        if (idx >= sa->n_children)
            idx = -1;
        if ((rc = zb_scan__gather(pf, ctx, &kc->tops[j], top->type, top, nm,
                                  idx >= 0 ? ss->children[idx] : NULL,
                                  idx >= 0 ? sa->children[idx] : NULL, NULL,
                                  n, sa->offset)) < 0)
            return rc;
        kc->chain[j][0] = &kc->tops[j];
        for (d = 1; d < k->depth; d++) {
            const ice_type *pt = k->path[d - 1]->type;
            size_t ci = (size_t)(k->path[d] - pt->fields);
            kc->chain[j][d] = kc->chain[j][d - 1]->children[ci];
        }
    }
    return ZB_OK;
}

static int valid_at(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *v = a->n_buffers ? a->buffers[0] : NULL;

    if (a->n_buffers == 0)
        return 0;   /* null type */
    return a->null_count == 0 || v == NULL || zb_arrow_bit(v, a->offset + i);
}

/* key = 4 zero bytes (the scope, set later) + the key columns of row i. */
static int row_key(zb_buf *key, const zb_eqset *es, const keycols *kc,
                   int64_t i)
{
    size_t j, d;
    int rc;

    zb_buf_clear(key);
    if ((rc = zb_buf_append(key, "\0\0\0\0", 4)) < 0)
        return rc;
    for (j = 0; j < es->n_ids; j++) {
        const zb_eqkey *k = &es->keys[j];
        int null = 0;
        for (d = 0; d + 1 < k->depth; d++)
            if (!valid_at(kc->chain[j][d], i))
                null = 1;
        if (null)
            rc = zb_buf_append_small(key, "\0", 1);
        else
            rc = zb_scan__key_append(key, kc->chain[j][k->depth - 1],
                                     k->path[k->depth - 1]->type, i);
        if (rc < 0)
            return rc;
    }
    return ZB_OK;
}

static void set_scope(zb_buf *key, uint32_t scope)
{
    memcpy(key->ptr, &scope, 4);
}

/* The top-level field ids holding the keys of es. */
static size_t top_ids(const zb_eqset *es, int32_t *ids)
{
    size_t n = 0, j, k;

    for (j = 0; j < es->n_ids; j++) {
        int32_t id = es->keys[j].path[0]->id;
        for (k = 0; k < n && ids[k] != id; k++)
            ;
        if (k == n)
            ids[n++] = id;
    }
    return n;
}

static int read_delete_file(zb_rowstream *rs, zb_ctx *ctx, const eqfile *ef)
{
    const zb_eqset *es = &rs->eqsets[ef->eqset];
    int32_t ids[256];
    size_t nids = top_ids(es, ids);
    zb_buf uri = ZB_BUF_INIT(64 << 10);
    pq_reader *r = NULL;
    struct ArrowSchema s;
    struct ArrowArray b;
    zb_proj_file pf;
    keycols kc;
    int64_t i;
    int rc;

    memset(&s, 0, sizeof s);
    memset(&b, 0, sizeof b);
    memset(&kc, 0, sizeof kc);
    if ((rc = keycols_alloc(&kc, ctx, es->n_ids)) < 0)
        return rc;
    if ((rc = zb_scan__file_uri(rs, ctx, ef->f, &uri)) < 0 ||
        (rc = zb_scan__open_file(rs, ctx, &r, ef->f, uri.ptr, ids, nids)) < 0
        || (rc = pq_reader_arrow_schema(&s, r, ctx)) < 0)
        goto done;
    zb_scan__proj_init(rs, ctx, &pf, ef->f, uri.ptr, r);
    pf.spec = NULL;   /* a delete file's rows carry their own values */
    while ((rc = zb_scan__reader_next(rs, ctx, r, &b)) == 1) {
        if (zb_ctx_stopped(ctx)) {
            rc = zb_fail(ctx, ZB_ECANCELED, "row stream: stopped");
            goto done;
        }
        zb_arena_reset(rs->batch_arena);
        if ((rc = keycols_fill(&kc, rs, ctx, es, &pf, &s, &b,
                               (size_t)b.length)) < 0)
            goto done;
        for (i = 0; i < b.length; i++) {
            if ((rc = row_key(&rs->key, es, &kc, i)) < 0) {
                rc = zb_fail_oom(ctx);
                goto done;
            }
            set_scope(&rs->key, (uint32_t)ef->scope);
            if ((rc = zb_keyset_add(rs->ks, ctx, rs->key.ptr, rs->key.len,
                                    zb_keyset_hash(rs->key.ptr, rs->key.len,
                                                   HASH_SEED),
                                    ef->value)) < 0)
                goto done;
        }
        b.release(&b);
    }
done:
    if (rc < 0 && uri.ptr && strstr(ctx->err.msg, uri.ptr) == NULL)
        zb_err_prefix(ctx, "equality delete file %s", uri.ptr);
    keycols_free(&kc);
    zb_arrow_array_release(&b);
    zb_arrow_schema_release(&s);
    pq_reader_free(r);
    zb_buf_free(&uri);
    return rc;
}

/*
 * In memory: marks in del (0 -> 2) the rows of the batch deleted in one of
 * the task's scopes. Spilled (spills != NULL): writes each live row's
 * keys, one per scope, to the spill file of its hash partition as
 * (u32 task, u64 position, u64 hash, u32 length, key bytes), to be looked
 * up partition by partition later.
 */
static int probe_batch(zb_rowstream *rs, zb_ctx *ctx, size_t ti,
                       const zb_proj_file *pf, const struct ArrowSchema *ss,
                       const struct ArrowArray *sa, uint8_t *del, size_t n,
                       zb_spill **spills, uint64_t base)
{
    zb_task_state *t = &rs->ts[ti];
    keycols kc;
    size_t e, s, i;
    int rc = ZB_OK;

    memset(&kc, 0, sizeof kc);
    for (e = 0; e < rs->n_eqsets; e++) {
        const zb_eqset *es = &rs->eqsets[e];
        int any = 0;
        for (s = 0; s < t->n_scopes; s++)
            any |= rs->scopes[t->scopes[s]].eqset == e;
        if (!any)
            continue;
        if ((rc = keycols_alloc(&kc, ctx, es->n_ids)) < 0 ||
            (rc = keycols_fill(&kc, rs, ctx, es, pf, ss, sa, n)) < 0)
            goto done;
        for (i = 0; i < n; i++) {
            if (del[i] != 0)
                continue;
            if ((rc = row_key(&rs->key, es, &kc, (int64_t)i)) < 0) {
                rc = zb_fail_oom(ctx);
                goto done;
            }
            for (s = 0; s < t->n_scopes; s++) {
                const zb_eqscope *sc = &rs->scopes[t->scopes[s]];
                uint64_t h;
                if (sc->eqset != e)
                    continue;
                set_scope(&rs->key, sc->id);
                h = zb_keyset_hash(rs->key.ptr, rs->key.len, HASH_SEED);
                if (spills) {
                    uint8_t hdr[24];
                    uint32_t task32 = (uint32_t)ti, len32;
                    uint64_t pos = base + i;
                    zb_spill *sp = spills[zb_keyset_partition_of(rs->ks, h)];
                    len32 = (uint32_t)rs->key.len;
                    memcpy(hdr, &task32, 4);
                    memcpy(hdr + 4, &pos, 8);
                    memcpy(hdr + 12, &h, 8);
                    memcpy(hdr + 20, &len32, 4);
                    if ((rc = zb_spill_write(sp, ctx, hdr, 24)) < 0 ||
                        (rc = zb_spill_write(sp, ctx, rs->key.ptr,
                                             rs->key.len)) < 0)
                        goto done;
                } else {
                    uint64_t v;
                    if (zb_keyset_find(rs->ks, rs->key.ptr, rs->key.len, h,
                                       &v) && deletes_row(rs, ti, v)) {
                        del[i] = 2;
                        break;
                    }
                }
            }
        }
        keycols_free(&kc);
    }
done:
    keycols_free(&kc);
    return rc;
}

int zb_scan__eqdel_probe(zb_rowstream *rs, zb_ctx *ctx, size_t ti,
                         const zb_proj_file *pf, const struct ArrowSchema *ss,
                         const struct ArrowArray *sa, uint8_t *del, size_t n)
{
    return probe_batch(rs, ctx, ti, pf, ss, sa, del, n, NULL, 0);
}

/* Makes task t's mark bitmap hold at least bits rows. */
static int marks_grow(zb_task_state *t, zb_ctx *ctx, uint64_t bits)
{
    size_t need = (size_t)((bits + 7) / 8);
    uint8_t *m;

    if (need <= t->eq_marks_bytes)
        return ZB_OK;
    if ((m = zb_realloc(t->eq_marks, need)) == NULL)
        return zb_fail_oom(ctx);
    memset(m + t->eq_marks_bytes, 0, need - t->eq_marks_bytes);
    t->eq_marks = m;
    t->eq_marks_bytes = need;
    return ZB_OK;
}

/*
 * Reads task ti's key columns once, routing the keys of the rows that no
 * position delete removed to the partition spill files.
 */
static int route_task(zb_rowstream *rs, zb_ctx *ctx, size_t ti,
                      zb_spill **spills, uint8_t **del, size_t *del_cap)
{
    const zb_scan_task *task = &rs->tasks[ti];
    zb_task_state *t = &rs->ts[ti];
    int32_t *ids = NULL;
    size_t nids = 0, s, j, k, pc = 0;
    zb_buf uri = ZB_BUF_INIT(64 << 10);
    pq_reader *r = NULL;
    struct ArrowSchema sch;
    struct ArrowArray b;
    zb_proj_file pf;
    uint64_t base = 0;
    int rc;

    memset(&sch, 0, sizeof sch);
    memset(&b, 0, sizeof b);
    {
        size_t cap = 1;
        for (s = 0; s < t->n_scopes; s++)
            cap += rs->eqsets[rs->scopes[t->scopes[s]].eqset].n_ids;
        if ((ids = zb_malloc(cap * sizeof *ids)) == NULL)
            return zb_fail_oom(ctx);
    }
    for (s = 0; s < t->n_scopes; s++) {
        const zb_eqset *es = &rs->eqsets[rs->scopes[t->scopes[s]].eqset];
        for (j = 0; j < es->n_ids; j++) {
            int32_t id = es->keys[j].path[0]->id;
            for (k = 0; k < nids && ids[k] != id; k++)
                ;
            if (k == nids)
                ids[nids++] = id;
        }
    }
    if ((rc = zb_scan__file_uri(rs, ctx, &task->data, &uri)) < 0 ||
        (rc = zb_scan__open_file(rs, ctx, &r, &task->data, uri.ptr, ids,
                                 nids)) < 0 ||
        (rc = pq_reader_arrow_schema(&sch, r, ctx)) < 0)
        goto done;
    zb_scan__proj_init(rs, ctx, &pf, &task->data, uri.ptr, r);
    while ((rc = zb_scan__reader_next(rs, ctx, r, &b)) == 1) {
        size_t n = (size_t)b.length;
        if (zb_ctx_stopped(ctx)) {
            rc = zb_fail(ctx, ZB_ECANCELED, "row stream: stopped");
            goto done;
        }
        if (n > *del_cap) {
            uint8_t *d = zb_realloc(*del, n);
            if (d == NULL) {
                rc = zb_fail_oom(ctx);
                goto done;
            }
            *del = d;
            *del_cap = n;
        }
        memset(*del, 0, n);
        zb_arena_reset(rs->batch_arena);
        while (pc < t->n_pos && t->pos[pc] < base + n) {
            if (t->pos[pc] >= base)
                (*del)[t->pos[pc] - base] = 1;
            pc++;
        }
        if ((rc = marks_grow(t, ctx, base + n)) < 0 ||
            (rc = probe_batch(rs, ctx, ti, &pf, &sch, &b, *del, n, spills,
                              base)) < 0)
            goto done;
        base += n;
        b.release(&b);
    }
done:
    zb_arrow_array_release(&b);
    zb_arrow_schema_release(&sch);
    pq_reader_free(r);
    zb_buf_free(&uri);
    zb_free(ids);
    return rc;
}

/* Looks up the routed keys of partition p in the loaded key set. */
static int mark_partition(zb_rowstream *rs, zb_ctx *ctx, zb_spill *sp)
{
    uint8_t hdr[24];
    size_t got;
    int rc;

    if ((rc = zb_spill_rewind(sp, ctx)) < 0)
        return rc;
    for (;;) {
        uint32_t ti, len;
        uint64_t pos, h;
        if ((rc = zb_spill_read(sp, ctx, hdr, 24, &got)) < 0)
            return rc;
        if (got == 0)
            return ZB_OK;
        if (got != 24)
            return zb_fail(ctx, ZB_ECORRUPT, "row stream: spill file of "
                           "equality keys ends inside a record");
        memcpy(&ti, hdr, 4);
        memcpy(&pos, hdr + 4, 8);
        memcpy(&h, hdr + 12, 8);
        memcpy(&len, hdr + 20, 4);
        if (ti >= rs->n_tasks || len > rs->key.max_bytes)
            return zb_fail(ctx, ZB_ECORRUPT, "row stream: spill file of "
                           "equality keys is damaged");
        zb_buf_clear(&rs->key);
        if (zb_buf_reserve(&rs->key, len) < 0)
            return zb_fail_oom(ctx);
        if ((rc = zb_spill_read_full(sp, ctx, rs->key.ptr, len)) < 0)
            return rc;
        rs->key.len = len;
        {
            uint64_t v;
            if (pos / 8 < rs->ts[ti].eq_marks_bytes &&
                zb_keyset_find(rs->ks, rs->key.ptr, len, h, &v) &&
                deletes_row(rs, ti, v))
                zb_arrow_set_bit(rs->ts[ti].eq_marks, (int64_t)pos);
        }
    }
}

/*
 * The key set spilled into P partitions: the data's keys are routed to P
 * files of their own in one pass over the data (Grace hash join), then
 * each partition of the set is loaded and its file of data keys looked
 * up, marking deleted positions.
 */
static int mark_spilled(zb_rowstream *rs, zb_ctx *ctx)
{
    unsigned p, np = zb_keyset_partitions(rs->ks);
    zb_spill **spills = NULL;
    uint8_t *del = NULL;
    size_t del_cap = 0, t, buf = (size_t)(2u << 20) / np;
    uint64_t own = 0;
    int rc = ZB_OK;

    if (buf < 4096)
        buf = 4096;
    if (buf > ZB_SPILL_DEFAULT_BUF_BYTES)
        buf = ZB_SPILL_DEFAULT_BUF_BYTES;
    if (ctx->budget) {
        /* The marks: a bit per row of the files with equality deletes. */
        uint64_t bits = 0;
        for (t = 0; t < rs->n_tasks; t++)
            if (rs->ts[t].n_scopes > 0 &&
                rs->tasks[t].data.file->record_count > 0)
                bits += (uint64_t)rs->tasks[t].data.file->record_count;
        /* The key set waits for room to load a partition; this stream's
         * own reservation (position lists, marks) held meanwhile could
         * be the very room it waits for, and never be given back. So it
         * is given back for the loads and taken again after, without
         * waiting (refused, it goes unreserved: logged). */
        own = rs->res.bytes + bits / 8 + 1;
        zb_budget_release(&rs->res);
    }
    if ((spills = zb_calloc(np, sizeof *spills)) == NULL)
        return zb_fail_oom(ctx);
    for (p = 0; p < np; p++)
        if ((rc = zb_spill_open(&spills[p], ctx, "equality keys", buf)) < 0)
            goto done;
    for (t = 0; t < rs->n_tasks; t++)
        if (rs->ts[t].n_scopes > 0 &&
            (rc = route_task(rs, ctx, t, spills, &del, &del_cap)) < 0)
            goto done;
    for (p = 0; p < np; p++) {
        if (zb_ctx_stopped(ctx)) {
            rc = zb_fail(ctx, ZB_ECANCELED, "row stream: stopped");
            goto done;
        }
        if ((rc = zb_keyset_load_partition(rs->ks, ctx, p)) < 0 ||
            (rc = mark_partition(rs, ctx, spills[p])) < 0)
            goto done;
        zb_spill_close(spills[p]);
        spills[p] = NULL;
        rs->counts.eq_partition_passes++;
    }
    if (own > 0 &&
        zb_budget_try_grow(&rs->res, ctx->budget, own) != ZB_OK)
        zb_log_info(ctx, "row stream: %llu bytes of position deletes and "
                    "marks read outside the memory budget (no room after "
                    "the equality key set)", (unsigned long long)own);
done:
    for (p = 0; p < np; p++)
        zb_spill_close(spills[p]);
    zb_free(spills);
    zb_free(del);
    return rc;
}

/*
 * Whether the files of eq set e apply, across the group, exactly to the
 * tasks of lower data sequence number: for every file and every task
 * listing any file of the set, listed <=> file seq > task seq. stamp is
 * scratch of n_tasks entries.
 */
static int by_sequence(const zb_rowstream *rs, const eqfile *files,
                       size_t n_files, size_t e, size_t *stamp)
{
    size_t i, k, t, mark = e + 1;

    /* The tasks listing any file of the set. */
    for (i = 0; i < n_files; i++)
        if (files[i].eqset == e)
            for (k = 0; k < files[i].df->n_tasks; k++)
                stamp[files[i].df->tasks[k]] = mark;
    for (i = 0; i < n_files; i++) {
        const zb_delfile *df = files[i].df;
        int64_t fseq = files[i].f->data_sequence_number;
        if (files[i].eqset != e)
            continue;
        for (t = 0, k = 0; t < rs->n_tasks; t++) {
            int listed = 0;
            if (stamp[t] != mark)
                continue;
            while (k < df->n_tasks && df->tasks[k] < t)
                k++;
            listed = k < df->n_tasks && df->tasks[k] == t;
            if (listed != (fseq > rs->tasks[t].data.data_sequence_number))
                return 0;
        }
    }
    return 1;
}

int zb_scan__eqdel_load(zb_rowstream *rs, zb_ctx *ctx)
{
    eqfile *files = NULL;
    size_t *per_task = NULL, *stamp = NULL;
    size_t n_files = 0, t, i, j, k, e;
    zb_keyset_opts ko = ZB_KEYSET_OPTS_INIT;
    uint64_t expected = 0;
    int rc = ZB_OK;

    for (i = 0; i < rs->dx.n; i++)
        n_files += rs->dx.files[i].f->file->content ==
                   ICE_CONTENT_EQUALITY_DELETES;
    if (n_files == 0)
        return ZB_OK;
    if ((files = zb_calloc(n_files, sizeof *files)) == NULL ||
        (per_task = zb_calloc(rs->n_tasks + 1, sizeof *per_task)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    /* Distinct files, each with the tasks that list it. */
    n_files = 0;
    for (i = 0; i < rs->dx.n; i++) {
        const zb_delfile *df = &rs->dx.files[i];
        const ice_data_file *f = df->f->file;
        if (f->content != ICE_CONTENT_EQUALITY_DELETES)
            continue;
        files[n_files].f = df->f;
        files[n_files].df = df;
        if ((rc = find_eqset(rs, ctx, f, &files[n_files].eqset)) < 0)
            goto done;
        expected += f->record_count > 0 ? (uint64_t)f->record_count : 0;
        for (k = 0; k < df->n_tasks; k++)
            per_task[df->tasks[k]]++;
        n_files++;
    }
    /* Scopes (see the top of the file). */
    if ((rs->scopes = zb_arena_calloc(rs->arena, n_files,
                                      sizeof *rs->scopes)) == NULL ||
        (stamp = zb_calloc(rs->n_tasks + 1, sizeof *stamp)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    for (e = 0; e < rs->n_eqsets; e++) {
        if (by_sequence(rs, files, n_files, e, stamp)) {
            size_t sc = rs->n_scopes++;
            rs->scopes[sc].id = (uint32_t)sc;
            rs->scopes[sc].eqset = e;
            for (i = 0; i < n_files; i++)
                if (files[i].eqset == e) {
                    int64_t seq = files[i].f->data_sequence_number;
                    files[i].scope = sc;
                    files[i].value = seq > 0 ? (uint64_t)seq : 0;
                }
            continue;
        }
        for (i = 0; i < n_files; i++) {
            const zb_delfile *a = files[i].df;
            if (files[i].eqset != e)
                continue;
            files[i].value = UINT64_MAX;
            for (j = 0; j < i; j++) {
                const zb_delfile *b = files[j].df;
                if (files[j].eqset == e && a->n_tasks == b->n_tasks &&
                    memcmp(a->tasks, b->tasks,
                           a->n_tasks * sizeof *a->tasks) == 0)
                    break;
            }
            if (j < i) {
                files[i].scope = files[j].scope;
            } else {
                files[i].scope = rs->n_scopes;
                rs->scopes[rs->n_scopes].id = (uint32_t)rs->n_scopes;
                rs->scopes[rs->n_scopes].eqset = e;
                rs->n_scopes++;
            }
        }
    }
    for (t = 0; t < rs->n_tasks; t++)
        if (per_task[t] > 0 &&
            (rs->ts[t].scopes = zb_arena_calloc(rs->arena, per_task[t],
                                                sizeof(size_t))) == NULL) {
            rc = zb_fail_oom(ctx);
            goto done;
        }
    for (i = 0; i < n_files; i++)
        for (k = 0; k < files[i].df->n_tasks; k++) {
            zb_task_state *ts = &rs->ts[files[i].df->tasks[k]];
            for (j = 0; j < ts->n_scopes && ts->scopes[j] != files[i].scope;
                 j++)
                ;
            if (j == ts->n_scopes)
                ts->scopes[ts->n_scopes++] = files[i].scope;
        }
    /* The key set. */
    ko.max_memory_bytes = rs->opts.eq_memory_bytes;
    ko.expected_keys = expected;
    if ((rc = zb_keyset_new(&rs->ks, ctx, &ko)) < 0)
        goto done;
    for (i = 0; i < n_files; i++)
        if ((rc = read_delete_file(rs, ctx, &files[i])) < 0)
            goto done;
    if ((rc = zb_keyset_seal(rs->ks, ctx)) < 0)
        goto done;
    if (zb_keyset_spilled(rs->ks) || zb_keyset_partitions(rs->ks) > 1) {
        rs->counts.eq_spilled = 1;
        if ((rc = mark_spilled(rs, ctx)) < 0)
            goto done;
        rs->marked = 1;
        zb_keyset_free(rs->ks);
        rs->ks = NULL;
    }
done:
    zb_free(files);
    zb_free(per_task);
    zb_free(stamp);
    return rc;
}

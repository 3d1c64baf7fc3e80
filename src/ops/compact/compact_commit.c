/*
 * ops/compact/compact_commit.c - the replace commit of written compaction
 * groups (ops/compact/compact.h "Commit").
 *
 * zb_compact__commit runs zb_catalog_commit_retry with build(): each
 * attempt, on the table as just loaded,
 *   1. validates: walks the branch from its head back to the snapshot
 *      the plan read (not found: every group conflicts) and reads the
 *      manifests each newer snapshot wrote; an ADDED position delete or
 *      DV naming a replaced file (or, without a referenced file, in a
 *      group's spec and partition), an ADDED equality delete in a group's
 *      partition (or unpartitioned) when the starting sequence number is
 *      not used, or any when it is but the group changes partition spec,
 *      a DELETED delete file a group applied, or a DELETED data
 *      file a group replaces: that group is dropped from this commit;
 *      except a DELETED deletion vector a group applied for which a DV
 *      of the same data file was ADDED by that snapshot or a later one
 *      (a v3 writer merging the file's vector, as Spark does: at most
 *      one DV a data file): the added one is carried like any other,
 *      its positions the rewrite already removed mapping to nothing;
 *   2. builds a fresh ICE_OP_REPLACE producer from the groups left:
 *      remove the inputs, and the DVs and file-scoped position delete
 *      files that applied only to them (dangling after the commit), add
 *      the outputs with the plan's sequence number (table/commit/commit_seq.h),
 *      the zamboni.* summary keys, and ice_commit_op_build.
 * A failed attempt's manifests are deleted by cleanup(); the groups'
 * data files by the caller's outcome rules (below).
 */
#define ZB_MODULE "compact"

/* Iceberg's reserved field id of file_path in position delete files. */
#define POS_FILE_PATH_ID 2147483546
/* Larger position delete files are not read to find what they name. */
#define POS_READ_MAX ((int64_t)64 << 20)

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "catalog/catalog_retry.h"
#include "ops/compact/compact_carry.h"
#include "ops/compact/compact_int.h"
#include "table/commit/commit.h"
#include "table/commit/commit_cache.h"
#include "format/parquet/parquet.h"
#include "plan/scan/scan_plan.h"
#include "table/commit/commit_seq.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/log.h"

typedef struct cst {
    zb_compact_group **groups;
    size_t n;
    char *drop;                    /* per group: dropped by validation */
    const zb_op_target *t;
    const zb_compact_plan *plan;
    const zb_compact_opts *o;
    ice_commit_op *op;
    ice_commit_result r;
    json_t *removed;               /* data file path -> group index */
    json_t *removed_stripped;      /* the same, scheme and authority
                                      stripped */
    json_t *applied;               /* delete file path -> [group index] */
    int none_left;
    zb_carry *carry;               /* issue 21: deletes carried over */
    /* Snapshots validated by an earlier attempt (id text -> true): an
     * attempt reads only the ones committed since, so that it stays
     * short next to a writer that commits every few tens of ms. */
    json_t *checked;
    /* Merged DVs (issue 21), across attempts as checked is:
     * pending: "ref\npath" of a removed applied DV -> [seq, [groups]];
     * added: stripped ref of each DV added since the plan -> its
     * highest sequence number; gone: "path\nref" of the applied DVs
     * found merged (the replace must not remove them again). */
    json_t *pending, *added, *gone;
    /* What the attempts share (commit_cache.h): the producer's manifests
     * and snapshot id; the delete manifests find_shared_puffins read. */
    ice_commit_cache *cache, *pcache;
    int attempt;
    double ms_shared;              /* find_shared_puffins, this attempt */
} cst;

/* Monotonic ms, for the attempt timings logged at debug level. */
static double mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int same_partition(const zb_compact_group *g, int32_t spec_id,
                          const ice_data_file *f)
{
    const ice_data_file *x = g->tasks[0].data.file;
    size_t i;

    if (g->spec_id != spec_id || x->n_partition != f->n_partition)
        return 0;
    for (i = 0; i < f->n_partition; i++) {
        const ice_value *a = &x->partition[i], *b = &f->partition[i];

        if (a->is_null != b->is_null ||
            (!a->is_null && ice_value_cmp(a, b) != 0))
            return 0;
    }
    return 1;
}

/* The data file a position delete file names in every row, from its
 * file_path bounds (lower == upper, as the planner reads them); NULL
 * when they differ or are absent. zb_free the result. */
static char *single_path(const ice_data_file *f)
{
    const ice_metric_bytes *lo = NULL, *hi = NULL;
    char *p;
    size_t i;

    for (i = 0; f->lower_bounds.has && i < f->lower_bounds.n; i++)
        if (f->lower_bounds.items[i].field_id == POS_FILE_PATH_ID)
            lo = &f->lower_bounds.items[i];
    for (i = 0; f->upper_bounds.has && i < f->upper_bounds.n; i++)
        if (f->upper_bounds.items[i].field_id == POS_FILE_PATH_ID)
            hi = &f->upper_bounds.items[i];
    if (lo == NULL || hi == NULL || lo->len != hi->len ||
        memcmp(lo->ptr, hi->ptr, lo->len) != 0 ||
        memchr(lo->ptr, 0, lo->len) != NULL)
        return NULL;
    if ((p = zb_malloc(lo->len + 1)) == NULL)
        return NULL;               /* conservative: the partition rule */
    memcpy(p, lo->ptr, lo->len);
    p[lo->len] = '\0';
    return p;
}

static void drop_group(cst *s, size_t i, zb_ctx *ctx, const char *why,
                       const char *path, int64_t snap)
{
    if (s->drop[i])
        return;
    s->drop[i] = 1;
    snprintf(s->groups[i]->dropped_why, sizeof s->groups[i]->dropped_why,
             "snapshot %lld %s %s", (long long)snap, why, path);
    zb_log_warn(ctx, "%s: dropping compaction group %s: snapshot %lld %s "
                "%s", s->plan->ident, s->groups[i]->partition,
                (long long)snap, why, path);
}

/*
 * A position delete file that names no single data file: reads its
 * file_path column and answers 0 when no row names a file of group gi
 * (the group may stay), 1 when one does or when it cannot tell (too
 * large, unreadable: the conservative answer).
 */
static int read_paths(cst *s, zb_ctx *ctx, const zb_table *t,
                      const ice_data_file *f, size_t gi, int64_t snap)
{
    pq_reader_opts ro = PQ_READER_OPTS_INIT;
    pq_reader *r = NULL;
    struct ArrowArray b;
    zb_buf uri = ZB_BUF_INIT(1 << 16);
    zb_err saved;
    int32_t fid = POS_FILE_PATH_ID;
    int rc, hit = 0;

    (void)snap;
    if (f->file_size_in_bytes > POS_READ_MAX)
        return 1;
    zb_err_copy(&saved, &ctx->err);
    ro.field_ids = &fid;
    ro.n_field_ids = 1;
    if (zb_table_resolve(&uri, ctx, t, f->file_path) < 0 ||
        pq_reader_open(&r, s->t->io, ctx, zb_buf_cstr(&uri), &ro) < 0) {
        hit = 1;
        goto done;
    }
    while (!hit && (rc = pq_reader_next(r, ctx, &b)) == 1) {
        const struct ArrowArray *c = b.n_children == 1 ? b.children[0] : NULL;
        int64_t i;

        for (i = 0; c != NULL && !hit && i < b.length; i++) {
            const int32_t *off = c->buffers[1];
            const char *data = c->buffers[2];
            int64_t k = i + b.offset + c->offset;
            char path[4096];
            size_t len;
            json_t *g;

            if (c->null_count != 0 && c->buffers[0] != NULL &&
                !zb_arrow_bit(c->buffers[0], k))
                continue;
            len = (size_t)(off[k + 1] - off[k]);
            if (len >= sizeof path) {
                hit = 1;
                break;
            }
            memcpy(path, data + off[k], len);
            path[len] = '\0';
            g = json_object_get(s->removed, path);
            if (g == NULL)
                g = json_object_get(s->removed_stripped,
                                    zb_scan_path_strip(path));
            hit = g != NULL && (size_t)json_integer_value(g) == gi;
        }
        if (c == NULL)
            hit = 1;
        b.release(&b);
    }
    if (rc < 0)
        hit = 1;
done:
    pq_reader_free(r);
    zb_buf_free(&uri);
    zb_err_copy(&ctx->err, &saved);
    return hit;
}

/*
 * The outputs get the plan's sequence number (make_op): only a v2+ table
 * whose planned snapshot has one (an upgraded v1 head has 0, below every
 * sequence number a commit may assign).
 */
static int uses_starting_seq(const cst *s)
{
    return s->o->use_starting_seq && s->plan->format_version >= 2 &&
           s->plan->sequence_number > 0;
}

/*
 * Issue 21: a position delete file or DV added since the plan that may
 * name files of group i is carried onto its outputs when the group kept
 * a position map; else the group is dropped, the message saying why.
 */
static void carry_or_drop(cst *s, size_t i, zb_ctx *ctx,
                          const zb_table *t, const ice_data_file *f,
                          const char *ref, int64_t snap)
{
    const char *cannot = zb_carry_cannot(s->groups[i]);
    char why[160];

    if (s->drop[i])
        return;
    if (cannot == NULL) {
        if (zb_carry_note(s->carry, ctx, i, f) == ZB_OK)
            return;
        cannot = "no room to note the deletes to carry";
        zb_err_clear(&ctx->err);
    }
    if (ref == NULL && read_paths(s, ctx, t, f, i, snap) == 0)
        return;
    snprintf(why, sizeof why, "added deletes that cannot be carried (%s) "
             "against", cannot);
    drop_group(s, i, ctx, why, ref != NULL ? ref : f->file_path, snap);
}

/* One entry written by a snapshot committed since the plan. */
/* "a\nb" in buf; 0 when it does not fit. */
static int pair_key(char *buf, size_t cap, const char *a, const char *b)
{
    int n = snprintf(buf, cap, "%s\n%s", a, b);

    return n > 0 && (size_t)n < cap;
}

/* A DV group(s) hit applied was removed by snap: pending until the
 * snapshots since the plan are all read (resolve_merged). */
static void note_removed_dv(cst *s, zb_ctx *ctx, const ice_data_file *f,
                            json_t *hit, int64_t seq, int64_t snap)
{
    char key[8200];
    json_t *v;
    size_t k;

    if (!pair_key(key, sizeof key, zb_scan_path_strip(
                      f->referenced_data_file), f->file_path) ||
        (v = json_pack("[IOI]", (json_int_t)seq, hit,
                       (json_int_t)snap)) == NULL ||
        json_object_set_new(s->pending, key, v) < 0) {
        for (k = 0; k < json_array_size(hit); k++)
            drop_group(s, (size_t)json_integer_value(json_array_get(hit, k)),
                       ctx, "removed delete file (no room to check for a "
                       "merged vector)", f->file_path, snap);
    }
}

/* After validation read every snapshot since the plan: a removed DV is
 * merged when a DV of its data file was added at its sequence number or
 * later; else its groups are dropped. */
static int resolve_merged(cst *s, zb_ctx *ctx)
{
    const char *key;
    json_t *v, *tmp;

    json_object_foreach_safe(s->pending, tmp, key, v) {
        const char *nl = strchr(key, '\n');
        char ref[4096], gk[8200];
        json_t *add, *groups = json_array_get(v, 1);
        size_t k, len = nl != NULL ? (size_t)(nl - key) : 0;

        if (nl == NULL || len >= sizeof ref)
            len = 0;
        memcpy(ref, key, len);
        ref[len] = '\0';
        add = json_object_get(s->added, ref);
        if (len > 0 && add != NULL &&
            json_integer_value(add) >= json_integer_value(
                                           json_array_get(v, 0)) &&
            pair_key(gk, sizeof gk, nl + 1, ref)) {
            if (json_object_set_new(s->gone, gk, json_true()) < 0)
                return zb_fail_oom(ctx);
        } else {
            for (k = 0; k < json_array_size(groups); k++)
                drop_group(s, (size_t)json_integer_value(
                                  json_array_get(groups, k)),
                           ctx, "removed deletion vector with no "
                           "replacement for its data file:", nl ? nl + 1
                                                                : key,
                           (int64_t)json_integer_value(json_array_get(v, 2)));
        }
        json_object_del(s->pending, key);
    }
    return ZB_OK;
}

/* An applied delete the replace must not remove: merged away since. */
static int applied_gone(const cst *s, const ice_data_file *d)
{
    char key[8200];

    return d->referenced_data_file != NULL &&
           json_object_size(s->gone) > 0 &&
           pair_key(key, sizeof key, d->file_path,
                    zb_scan_path_strip(d->referenced_data_file)) &&
           json_object_get(s->gone, key) != NULL;
}

static void check_entry(cst *s, zb_ctx *ctx, const zb_table *t,
                        const ice_manifest_entry *e, int32_t spec_id,
                        int64_t snap, int64_t seq)
{
    const ice_data_file *f = &e->data_file;
    json_t *hit;
    size_t i, k;

    if (e->status == ICE_STATUS_DELETED) {
        if (f->content == ICE_CONTENT_DATA) {
            hit = json_object_get(s->removed, f->file_path);
            if (hit != NULL)
                drop_group(s, (size_t)json_integer_value(hit), ctx,
                           "removed data file", f->file_path, snap);
            return;
        }
        hit = json_object_get(s->applied, f->file_path);
        if (hit != NULL && ice_data_file_is_dv(f) &&
            f->referenced_data_file != NULL) {
            note_removed_dv(s, ctx, f, hit, seq, snap);
            return;
        }
        /* A v2 position delete file removed (rewrite_position_delete_files
         * or a writer's own rewrite): its replacement cannot be told
         * from new deletes, so the group goes. */
        for (k = 0; hit != NULL && k < json_array_size(hit); k++)
            drop_group(s, (size_t)json_integer_value(json_array_get(hit, k)),
                       ctx, "removed delete file", f->file_path, snap);
        return;
    }
    if (e->status != ICE_STATUS_ADDED || f->content == ICE_CONTENT_DATA)
        return;
    if (f->content == ICE_CONTENT_POSITION_DELETES) {
        const char *ref = f->referenced_data_file;
        char *bound = ref == NULL ? single_path(f) : NULL;

        if (bound != NULL)
            ref = bound;
        if (f->referenced_data_file != NULL && ice_data_file_is_dv(f)) {
            const char *key = zb_scan_path_strip(f->referenced_data_file);
            json_t *was = json_object_get(s->added, key);

            /* (No room: not noted, so a removal stays a drop.) */
            if (was == NULL || json_integer_value(was) < seq)
                (void)json_object_set_new(s->added, key,
                                          json_integer((json_int_t)seq));
        }
        if (ref != NULL) {
            hit = json_object_get(s->removed, ref);
            if (hit == NULL)   /* hdfs://nn/a vs /a: compare stripped */
                hit = json_object_get(s->removed_stripped,
                                      zb_scan_path_strip(ref));
            if (hit != NULL)
                carry_or_drop(s, (size_t)json_integer_value(hit), ctx, t,
                              f, ref, snap);
            zb_free(bound);
            return;
        }
        for (i = 0; i < s->n; i++)
            if (same_partition(s->groups[i], spec_id, f) && !s->drop[i])
                carry_or_drop(s, i, ctx, t, f, NULL, snap);
        return;
    }
    for (i = 0; i < s->n; i++) {
        const zb_compact_group *g = s->groups[i];

        if (uses_starting_seq(s)) {
            /* The outputs keep the plan's sequence number, so the new
             * deletes apply to them as they did to the inputs; unless the
             * rows move to another spec, where a delete of the old spec
             * stops applying and one of the new spec starts to. */
            if (g->out_spec_id != g->spec_id)
                drop_group(s, i, ctx, "added equality deletes while its "
                           "rows change partition spec:", f->file_path,
                           snap);
        } else if (f->n_partition == 0 || same_partition(g, spec_id, f)) {
            drop_group(s, i, ctx, "added equality deletes:", f->file_path,
                       snap);
        }
    }
}

static int check_snapshot(cst *s, zb_ctx *ctx, const zb_table *t,
                          const ice_snapshot *snap)
{
    ice_manifest_list_reader *lr = NULL;
    ice_manifest_reader *r = NULL;
    const ice_manifest_file *mf;
    const ice_manifest_entry *e;
    int rc;

    if (snap->manifest_list == NULL)
        return ZB_OK;
    if ((rc = ice_manifest_list_open(&lr, s->t->io, ctx,
                                     snap->manifest_list,
                                     t->meta->format_version,
                                     &t->paths)) < 0)
        return rc;
    while ((rc = ice_manifest_list_next(lr, ctx, &mf)) > 0) {
        if (mf->added_snapshot_id != snap->snapshot_id)
            continue;
        if ((rc = ice_manifest_open(&r, s->t->io, ctx, mf, NULL,
                                    t->meta->format_version,
                                    &t->paths)) < 0)
            break;
        while ((rc = ice_manifest_next(r, ctx, &e)) > 0)
            if (e->snapshot_id == snap->snapshot_id)
                check_entry(s, ctx, t, e, mf->partition_spec_id,
                            snap->snapshot_id, snap->sequence_number);
        ice_manifest_free(r);
        r = NULL;
        if (rc < 0)
            break;
    }
    ice_manifest_list_free(lr);
    return rc;
}

/* When a snapshot an earlier attempt validated is no longer between the
 * plan's and the head (the branch moved elsewhere), the deletes noted to
 * carry may come from it: note everything again. (Drops stay, as they
 * always did: conservative.) */
static int forget_if_gone(cst *s, zb_ctx *ctx, const ice_snapshot **chain,
                          size_t n)
{
    const char *key;
    json_t *v, *now = json_object();
    size_t i, kept = 0;
    int rc = ZB_OK;

    if (now == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < n; i++) {
        char id[24];

        snprintf(id, sizeof id, "%lld", (long long)chain[i]->snapshot_id);
        if (json_object_set_new(now, id, json_true()) < 0) {
            json_decref(now);
            return zb_fail_oom(ctx);
        }
    }
    json_object_foreach(s->checked, key, v)
        kept += json_object_get(now, key) != NULL;
    json_decref(now);
    if (kept != json_object_size(s->checked)) {
        json_object_clear(s->checked);
        json_object_clear(s->pending);
        json_object_clear(s->added);
        json_object_clear(s->gone);
        rc = zb_carry_reset(s->carry, s->t->io, ctx);
    }
    return rc;
}

static int validate(cst *s, zb_ctx *ctx, const zb_table *t)
{
    const ice_snapshot *head = NULL, **chain = NULL;
    size_t n, i;
    int rc;

    if ((rc = zb_compact__head(&head, ctx, t->meta, s->o->branch)) < 0)
        return rc;
    if (head == NULL || s->plan->snapshot_id < 0) {
        memset(s->drop, 1, s->n);
        return ZB_OK;
    }
    if (head->snapshot_id == s->plan->snapshot_id)
        return ZB_OK;
    n = ice_metadata_ancestors(NULL, 0, t->meta, head->snapshot_id);
    if ((chain = zb_calloc(n + 1, sizeof *chain)) == NULL)
        return zb_fail_oom(ctx);
    n = ice_metadata_ancestors(chain, n, t->meta, head->snapshot_id);
    for (i = 0; i < n; i++)
        if (chain[i]->snapshot_id == s->plan->snapshot_id)
            break;
    if (i == n) {
        zb_log_warn(ctx, "%s: snapshot %lld that compaction planned from "
                    "is no longer an ancestor of the branch: every group "
                    "dropped", s->plan->ident,
                    (long long)s->plan->snapshot_id);
        memset(s->drop, 1, s->n);
        zb_free(chain);
        return ZB_OK;
    }
    n = i;
    if ((rc = forget_if_gone(s, ctx, chain, n)) < 0) {
        zb_free(chain);
        return rc;
    }
    for (i = 0; i < n && rc == ZB_OK; i++) {
        char id[24];

        snprintf(id, sizeof id, "%lld", (long long)chain[i]->snapshot_id);
        if (json_object_get(s->checked, id) != NULL)
            continue;
        if ((rc = check_snapshot(s, ctx, t, chain[i])) == ZB_OK &&
            json_object_set_new(s->checked, id, json_true()) < 0)
            rc = zb_fail_oom(ctx);
    }
    zb_free(chain);
    if (rc == ZB_OK)
        rc = resolve_merged(s, ctx);
    return rc;
}

static int add_summary(cst *s, zb_ctx *ctx, uint64_t removed, uint64_t added)
{
    char num[24];
    int rc;

    if ((rc = ice_commit_op_set_summary(s->op, ctx, "zamboni.operation",
                                        "compaction")) < 0)
        return rc;
    snprintf(num, sizeof num, "%llu", (unsigned long long)removed);
    if ((rc = ice_commit_op_set_summary(s->op, ctx,
                                        "zamboni.removed-data-files",
                                        num)) < 0)
        return rc;
    snprintf(num, sizeof num, "%llu", (unsigned long long)added);
    return ice_commit_op_set_summary(s->op, ctx, "zamboni.added-data-files",
                                     num);
}

/*
 * Marks in shared the Puffin files of candidates that also hold a live
 * deletion vector of a data file this commit keeps: removal goes by file
 * path, and would take that vector with the others.
 */
typedef struct shared_st {
    json_t *shared;
    const json_t *candidates;
    const cst *s;
} shared_st;

static int note_shared(void *payload, zb_ctx *ctx, const char *path,
                       const char *ref, ice_file_content content)
{
    shared_st *st = payload;
    json_t *hit;

    if (content != ICE_CONTENT_POSITION_DELETES || ref == NULL ||
        json_object_get(st->candidates, path) == NULL)
        return ZB_OK;
    /* A vector of a file this commit replaces goes with it; one of a
     * file that stays (never planned, or its group dropped) keeps the
     * Puffin file. */
    hit = json_object_get(st->s->removed, ref);
    if (hit != NULL && !st->s->drop[(size_t)json_integer_value(hit)])
        return ZB_OK;
    if (json_object_set_new(st->shared, path, json_true()) < 0)
        return zb_fail_oom(ctx);
    return ZB_OK;
}

/*
 * Marks in shared the Puffin files of candidates that also hold a live
 * deletion vector of a data file this commit keeps: removal goes by file
 * path, and would take that vector with the others. Only delete
 * manifests can list them; each is read once per commit (s->pcache).
 */
static int find_shared_puffins(json_t *shared, zb_ctx *ctx, cst *s,
                               const zb_table *t, const json_t *candidates)
{
    const ice_snapshot *snap = NULL;
    ice_manifest_list_reader *lr = NULL;
    const ice_manifest_file *mf;
    shared_st st = { shared, candidates, s };
    int rc;

    if (json_object_size(candidates) == 0)
        return ZB_OK;
    if ((rc = zb_compact__head(&snap, ctx, t->meta, s->o->branch)) < 0)
        return rc;
    if (snap == NULL || snap->manifest_list == NULL)
        return ZB_OK;
    if ((rc = ice_commit_cache_begin(s->pcache, ctx, candidates)) < 0 ||
        (rc = ice_manifest_list_open(&lr, s->t->io, ctx,
                                     snap->manifest_list,
                                     t->meta->format_version,
                                     &t->paths)) < 0)
        return rc;
    while ((rc = ice_manifest_list_next(lr, ctx, &mf)) > 0) {
        if (mf->content != ICE_MANIFEST_DELETES)
            continue;
        if ((rc = ice_commit_cache_matches(s->pcache, ctx, s->t->io, mf,
                                           t->meta->format_version,
                                           &t->paths, note_shared, &st,
                                           NULL)) < 0)
            break;
    }
    ice_manifest_list_free(lr);
    return rc < 0 ? rc : ZB_OK;
}

/* The producer for the groups validation left. */
static int make_op(cst *s, zb_ctx *ctx, const zb_table *t)
{
    ice_commit_op_opts oo = ICE_COMMIT_OP_OPTS_INIT;
    json_t *dangling = NULL, *shared = NULL;
    uint64_t removed = 0, added = 0;
    size_t i, j, k;
    int rc;

    oo.kind = ICE_OP_REPLACE;
    oo.io = s->t->io;
    oo.root = t->root;
    oo.paths = &t->paths;
    oo.branch = s->o->branch;
    oo.cache = s->cache;
    if ((rc = ice_commit_op_new(&s->op, ctx, &oo)) < 0)
        return rc;
    if (uses_starting_seq(s) &&
        (rc = ice_commit_op_set_data_sequence_number(
             s->op, ctx, ICE_OP_REPLACE, s->plan->sequence_number)) < 0)
        return rc;
    if ((dangling = json_object()) == NULL ||
        (shared = json_object()) == NULL) {
        json_decref(dangling);
        return zb_fail_oom(ctx);
    }
    /* Delete files scoped to replaced files, then those of them whose
     * Puffin file must stay for the sake of another vector. */
    for (i = 0; i < s->n && rc == ZB_OK; i++)
        for (j = 0; !s->drop[i] && j < s->groups[i]->n_tasks && rc == ZB_OK;
             j++) {
            const zb_scan_task *tk = &s->groups[i]->tasks[j];
            for (k = 0; k < tk->n_deletes && rc == ZB_OK; k++) {
                const ice_data_file *d = tk->deletes[k].file;
                if (d->content == ICE_CONTENT_POSITION_DELETES &&
                    d->referenced_data_file != NULL && !applied_gone(s, d) &&
                    json_object_get(s->removed, d->referenced_data_file) &&
                    json_object_set_new(dangling, d->file_path,
                                        json_false()) < 0)
                    rc = zb_fail_oom(ctx);
            }
        }
    if (rc == ZB_OK) {
        double t0 = mono_ms();

        rc = find_shared_puffins(shared, ctx, s, t, dangling);
        s->ms_shared = mono_ms() - t0;
    }
    json_object_clear(dangling);
    for (i = 0; i < s->n && rc == ZB_OK; i++) {
        const zb_compact_group *g = s->groups[i];

        if (s->drop[i])
            continue;
        for (j = 0; j < g->n_tasks && rc == ZB_OK; j++) {
            const zb_scan_task *tk = &g->tasks[j];

            rc = ice_commit_op_remove_file(s->op, ctx,
                                           tk->data.file->file_path);
            removed++;
            /* A DV or a position delete file scoped to this file applies
             * to nothing once it is replaced: remove it with it. */
            for (k = 0; k < tk->n_deletes && rc == ZB_OK; k++) {
                const ice_data_file *d = tk->deletes[k].file;

                if (d->content != ICE_CONTENT_POSITION_DELETES ||
                    d->referenced_data_file == NULL ||
                    json_object_get(s->removed,
                                    d->referenced_data_file) == NULL ||
                    json_object_get(dangling, d->file_path) != NULL ||
                    json_object_get(shared, d->file_path) != NULL ||
                    applied_gone(s, d))   /* merged: already removed */
                    continue;
                if (json_object_set_new(dangling, d->file_path,
                                        json_true()) < 0)
                    rc = zb_fail_oom(ctx);
                else
                    rc = ice_commit_op_remove_file(s->op, ctx, d->file_path);
            }
        }
        for (j = 0; j < g->out_files && rc == ZB_OK; j++) {
            rc = ice_commit_op_add_file(s->op, ctx, g->out_spec_id,
                                        &g->outputs[j]);
            added++;
        }
        if (rc == ZB_OK)
            rc = zb_carry_add(s->carry, ctx, s->op, i, g->out_spec_id);
    }
    json_decref(dangling);
    json_decref(shared);
    if (rc == ZB_OK)
        rc = add_summary(s, ctx, removed, added);
    return rc;
}

/* Writes the deletes validation noted for each group left; a group whose
 * deletes cannot be carried (unreadable, no room) is dropped. */
static int carry_deletes(cst *s, zb_ctx *ctx, const zb_table *t)
{
    size_t i;

    for (i = 0; i < s->n; i++) {
        zb_compact_group *g = s->groups[i];
        uint64_t rows = 0;

        g->carried_deletes = g->carried_rows = 0;
        if (s->drop[i]) {
            zb_carry_forget_group(s->carry, s->t->io, ctx, i);
            continue;
        }
        if (!zb_carry_has(s->carry, i))
            continue;
        if (zb_carry_write(s->carry, ctx, i, g, t, s->t->io, &rows) < 0) {
            char why[160];

            snprintf(why, sizeof why, "added deletes that could not be "
                     "carried (%.100s):", ctx->err.msg);
            zb_err_clear(&ctx->err);
            drop_group(s, i, ctx, why, g->partition, -1);
            zb_carry_forget_group(s->carry, s->t->io, ctx, i);
            continue;
        }
        g->carried_deletes = zb_carry_notes(s->carry, i);
        g->carried_rows = rows;
    }
    return ZB_OK;
}

static int build(zb_json **reqs, zb_json **updates, zb_ctx *ctx,
                 const zb_table *t, void *payload)
{
    cst *s = payload;
    size_t i, left = 0;
    double t0 = mono_ms(), t1, t2, t3;
    int rc;

    ice_commit_op_free(s->op);
    s->op = NULL;
    ice_commit_result_free(&s->r);
    s->attempt++;
    s->ms_shared = 0;
    if ((rc = validate(s, ctx, t)) < 0)
        return rc;
    t1 = mono_ms();
    if ((rc = carry_deletes(s, ctx, t)) < 0)
        return rc;
    t2 = mono_ms();
    for (i = 0; i < s->n; i++)
        left += !s->drop[i];
    if (left == 0) {
        s->none_left = 1;
        return zb_err__set(&ctx->err, ZB_ECONFLICT,
                           ICE_COMMIT_VALIDATE_MODULE, "%s: every "
                           "compaction group conflicts with a concurrent "
                           "commit", s->plan->ident);
    }
    if ((rc = make_op(s, ctx, t)) < 0)
        return rc;
    t3 = mono_ms();
    if ((rc = ice_commit_op_build(s->op, ctx, t->meta, &s->r)) < 0)
        return rc;
    /* Issue 21: a replace loses the race while an attempt takes longer
     * than the gap between a hot writer's commits; say what it costs. */
    zb_log_debug(ctx, "%s: replace attempt %d built in %.1f ms (validate "
                 "%.1f, carry %.1f, producer setup %.1f of which shared "
                 "puffins %.1f, manifests %.1f)", s->plan->ident, s->attempt,
                 mono_ms() - t0, t1 - t0, t2 - t1, t3 - t2, s->ms_shared,
                 mono_ms() - t3);
    *reqs = (zb_json *)json_incref((json_t *)s->r.requirements);
    *updates = (zb_json *)json_incref((json_t *)s->r.updates);
    return ZB_OK;
}

static void cleanup(zb_ctx *ctx, const zb_table *t, void *payload)
{
    cst *s = payload;

    (void)t;
    /* The carried files stay for the next attempt (compact_carry.h). */
    ice_commit_result_delete_files(&s->r, s->t->io, ctx);
    ice_commit_result_free(&s->r);
}

static int index_groups(cst *s, zb_ctx *ctx)
{
    size_t i, j, k;

    for (i = 0; i < s->n; i++) {
        const zb_compact_group *g = s->groups[i];

        for (j = 0; j < g->n_tasks; j++) {
            const zb_scan_task *tk = &g->tasks[j];

            if (json_object_set_new(s->removed, tk->data.file->file_path,
                                    json_integer((json_int_t)i)) < 0 ||
                json_object_set_new(s->removed_stripped,
                                    zb_scan_path_strip(
                                        tk->data.file->file_path),
                                    json_integer((json_int_t)i)) < 0)
                return zb_fail_oom(ctx);
            for (k = 0; k < tk->n_deletes; k++) {
                const char *p = tk->deletes[k].file->file_path;
                json_t *a = json_object_get(s->applied, p);

                if (a == NULL &&
                    (json_object_set_new(s->applied, p, json_array()) < 0 ||
                     (a = json_object_get(s->applied, p)) == NULL))
                    return zb_fail_oom(ctx);
                if (json_array_append_new(a, json_integer((json_int_t)i)) < 0)
                    return zb_fail_oom(ctx);
            }
        }
    }
    return ZB_OK;
}

int zb_compact__commit(zb_compact_group **groups, size_t n,
                       const zb_op_target *t, zb_ctx *ctx,
                       const zb_compact_plan *plan, const zb_compact_opts *o,
                       int64_t *snapshot_id)
{
    zb_catalog_retry_opts ro = ZB_CATALOG_RETRY_OPTS_INIT;
    zb_table *next = NULL;
    cst s;
    size_t i;
    int rc;

    *snapshot_id = -1;
    memset(&s, 0, sizeof s);
    s.groups = groups;
    s.n = n;
    s.t = t;
    s.plan = plan;
    s.o = o;
    if (n == 0)
        return ZB_OK;
    if ((s.drop = zb_calloc(n, 1)) == NULL ||
        (s.removed = json_object()) == NULL ||
        (s.removed_stripped = json_object()) == NULL ||
        (s.applied = json_object()) == NULL ||
        (s.checked = json_object()) == NULL ||
        (s.pending = json_object()) == NULL ||
        (s.added = json_object()) == NULL ||
        (s.gone = json_object()) == NULL ||
        zb_carry_new(&s.carry, ctx, n) < 0 ||
        ice_commit_cache_new(&s.cache, ctx, ctx->budget, 0) < 0 ||
        ice_commit_cache_new(&s.pcache, ctx, ctx->budget, 0) < 0) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    if ((rc = index_groups(&s, ctx)) < 0)
        goto done;
    ro.cleanup = cleanup;
    if (o->drain_timeout_ms > 0 && zb_ctx_stopped(ctx))
        ro.total_timeout_ms = o->drain_timeout_ms;
    rc = zb_catalog_commit_retry(t->catalog, ctx, plan->ident, build, &s,
                                 &ro, &next);
    if (rc == ZB_OK)
        zb_carry_keep_pending(s.carry);
    else if (rc != ZB_ETIMEOUT)
        zb_carry_delete_pending(s.carry, t->io, ctx);
    /* Unknown outcome: the rewritten manifests may be the table's. */
    if (rc != ZB_ETIMEOUT)
        ice_commit_cache_finish(s.cache, t->io, ctx, rc == ZB_OK);
    {
        uint64_t rd, hits, prd, phits;

        ice_commit_cache_counts(s.cache, &rd, &hits);
        ice_commit_cache_counts(s.pcache, &prd, &phits);
        zb_log_debug(ctx, "%s: %d replace attempt(s): manifests read %llu, "
                     "from the cache %llu; delete manifests read for "
                     "shared puffins %llu, from the cache %llu; cache "
                     "%llu bytes", plan->ident, s.attempt,
                     (unsigned long long)rd, (unsigned long long)hits,
                     (unsigned long long)prd, (unsigned long long)phits,
                     (unsigned long long)(ice_commit_cache_bytes(s.cache) +
                                          ice_commit_cache_bytes(s.pcache)));
    }
    for (i = 0; rc != ZB_OK && i < n; i++)
        groups[i]->carried_deletes = groups[i]->carried_rows = 0;
    if (rc == ZB_OK) {
        *snapshot_id = s.r.snapshot_id;
        for (i = 0; i < n; i++)
            groups[i]->state = s.drop[i] ? ZB_GROUP_DROPPED
                                         : ZB_GROUP_COMMITTED;
    } else if (rc == ZB_ETIMEOUT) {
        /* Unknown outcome: the files may be referenced now. */
        goto done;
    } else if (rc == ZB_ECONFLICT) {
        for (i = 0; i < n; i++) {
            groups[i]->state = ZB_GROUP_DROPPED;
            /* Issue 21: the report names why (validation named its own). */
            if (!s.none_left && groups[i]->dropped_why[0] == '\0')
                snprintf(groups[i]->dropped_why,
                         sizeof groups[i]->dropped_why,
                         "lost the commit race to concurrent commits after "
                         "%d attempt(s)", ro.attempts);
        }
        if (s.none_left) {
            zb_err_clear(&ctx->err);
            rc = ZB_OK;
        }
    } else {
        for (i = 0; i < n; i++)
            groups[i]->state = ZB_GROUP_FAILED;
    }
    for (i = 0; i < n; i++)
        if (groups[i]->state == ZB_GROUP_DROPPED ||
            groups[i]->state == ZB_GROUP_FAILED)
            zb_compact__drop_outputs(groups[i], t->io, ctx);
done:
    ice_commit_op_free(s.op);
    ice_commit_result_free(&s.r);
    zb_table_free(next);
    json_decref(s.removed);
    json_decref(s.removed_stripped);
    json_decref(s.applied);
    zb_free(s.drop);
    if (s.carry != NULL && rc != ZB_OK && rc != ZB_ETIMEOUT)
        zb_carry_delete_pending(s.carry, t->io, ctx);
    zb_carry_free(s.carry);
    json_decref(s.checked);
    json_decref(s.pending);
    json_decref(s.added);
    json_decref(s.gone);
    ice_commit_cache_free(s.cache);
    ice_commit_cache_free(s.pcache);
    return rc;
}

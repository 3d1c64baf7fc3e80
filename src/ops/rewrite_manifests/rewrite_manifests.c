/*
 * ops/rewrite_manifests/rewrite_manifests.c - rewrite-manifests (see ops/rewrite_manifests/rewrite_manifests.h).
 *
 * An attempt runs: count the manifests of the current snapshot; pass 1
 * reads the manifests to rewrite and builds the (content, spec,
 * partition) groups with their entry counts and estimated bytes; the
 * groups are sorted and packed into output manifests; then, unless the
 * layout would not improve or this is a dry run, the output manifests
 * are written in windows of at most max_open_writers (each window one
 * more pass over the input), the manifest list is written, and the
 * snapshot is committed. Pass 1 is rewrite_manifests_group.c's, pass 2
 * and the commit rewrite_manifests_write.c's.
 */
#define ZB_MODULE "rewrite-manifests"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "ops/rewrite_manifests/rewrite_manifests_int.h"
#include "table/commit/commit.h"
#include "table/metadata/table_props.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/err.h"
#include "util/str.h"
#include "util/vec.h"

#define DEFAULT_ATTEMPTS 3
#define DEFAULT_OPEN_WRITERS 64

static void rw_free(rw *w)
{
    size_t i;

    for (i = 0; i < w->written.len; i++)
        zb_free(*(char **)zb_vec_at(&w->written, i));
    zb_vec_free(&w->written);
    zb_vec_free(&w->groups);
    zb_vec_free(&w->outs);
    json_decref(w->gix);
    zb_buf_free(&w->key);
    zb_buf_free(&w->tmp);
    zb_arena_free(w->arena);
    zb_free(w->mfs);
    zb_free(w->dir);
    zb_budget_release(&w->res);
}

/* ---- the operation ------------------------------------------------------- */

static int target_bytes(int64_t *out, zb_ctx *ctx, const ice_metadata *m,
                        const zb_rewrite_manifests_opts *o, const char *table)
{
    static const char *const keys[] = { ICE_PROP_MANIFEST_TARGET,
                                         ZB_PROP_WRITE_MANIFEST_TARGET };
    size_t i;

    *out = ICE_MANIFEST_TARGET_DEFAULT;
    if (o->target_bytes > 0) {
        *out = o->target_bytes;
        return ZB_OK;
    }
    for (i = 0; i < 2; i++) {
        const char *v;
        int64_t n = 0;
        ice_prop_read got = ice_table_prop_i64(&n, &v, m, keys[i]);

        if (got == ICE_PROP_ABSENT)
            continue;
        /* unlike a commit, a rewrite refuses to guess its target */
        if (got == ICE_PROP_MALFORMED || n == 0)
            return zb_fail(ctx, ZB_EUNSAFE, "%s: table property %s=%s is not "
                           "a positive byte count; nothing rewritten", table,
                           keys[i], v);
        *out = n;
        return ZB_OK;
    }
    return ZB_OK;
}

static void skip(zb_rewrite_manifests_result *r, const char *fmt, ...)
    ZB_PRINTF(2, 3);

static void skip(zb_rewrite_manifests_result *r, const char *fmt, ...)
{
    va_list ap;

    r->skipped = 1;
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
}

static int attempt(rw *w, const zb_rewrite_manifests_opts *o, int min_input)
{
    zb_rewrite_manifests_result *r = w->r;
    uint64_t before, after;
    int rc;

    if ((rc = target_bytes(&w->target, w->ctx, w->m, o, w->tbl->ident)) < 0)
        return rc;
    r->target_bytes = w->target;
    if (w->snap == NULL) {
        skip(r, "the table has no snapshot");
        return ZB_OK;
    }
    if (w->snap->manifest_list == NULL) {
        skip(r, "snapshot %lld has no manifest list (v1 \"manifests\")",
             (long long)w->snap->snapshot_id);
        return ZB_OK;
    }
    if ((rc = zb_rewrite_manifests__count_manifests(w)) < 0)
        return rc;
    if (r->data_manifests < (uint64_t)min_input) {
        skip(r, "%llu data manifest(s), fewer than min_input_manifests=%d",
             (unsigned long long)r->data_manifests, min_input);
        return ZB_OK;
    }
    w->rewrite[0] = 1;
    w->rewrite[1] = r->delete_manifests >= (uint64_t)min_input;
    if ((rc = zb_rewrite_manifests__walk(
             w, zb_rewrite_manifests__count_entry)) < 0 ||
        (rc = zb_rewrite_manifests__pack(w)) < 0)
        return rc;
    before = r->data_manifests + (w->rewrite[1] ? r->delete_manifests : 0);
    after = w->outs.len;
    r->manifests_replaced = before;
    r->manifests_kept = r->data_manifests + r->delete_manifests - before;
    r->manifests_created = after;
    r->partitions = w->groups.len;
    if (after >= before && r->spread_after >= r->spread_before) {
        skip(r, "the layout is already good: %llu manifest(s), partition "
             "spread %llu (a rewrite gives %llu, %llu)",
             (unsigned long long)before,
             (unsigned long long)r->spread_before,
             (unsigned long long)after,
             (unsigned long long)r->spread_after);
        return ZB_OK;
    }
    if (w->t->dry_run)
        return ZB_OK;
    r->attempts++;
    return zb_rewrite_manifests__write_and_commit(w);
}

int zb_rewrite_manifests(const zb_op_target *t, zb_ctx *ctx,
                         const zb_rewrite_manifests_opts *o,
                         zb_rewrite_manifests_result *r)
{
    zb_rewrite_manifests_opts dflt = ZB_REWRITE_MANIFESTS_OPTS_INIT;
    int max, min_input, i, rc = ZB_OK, tries = 0;

    ZB_ASSERT_ARG(t && t->catalog && t->io && t->ident && ctx && r);
    if (o == NULL)
        o = &dflt;
    max = o->max_attempts > 0 ? o->max_attempts : DEFAULT_ATTEMPTS;
    {
        zb_tset_value v;

        (void)zb_tset_resolve(&v, NULL, ZB_TSET_MIN_INPUT_MANIFESTS,
                              o->min_input_manifests, NULL, NULL);
        min_input = (int)v.value;
    }
    for (i = 1; i <= max; i++) {
        zb_table *tbl = NULL;
        rw w;

        memset(r, 0, sizeof *r);
        r->snapshot_id = -1;
        r->attempts = tries;
        memset(&w, 0, sizeof w);
        w.ctx = ctx;
        w.t = t;
        w.r = r;
        w.max_open = o->max_open_writers > 0 ? o->max_open_writers
                                             : DEFAULT_OPEN_WRITERS;
        zb_vec_init(&w.groups, sizeof(group), SIZE_MAX / 2);
        zb_vec_init(&w.outs, sizeof(out_mf), SIZE_MAX / 2);
        zb_vec_init(&w.written, sizeof(char *), SIZE_MAX / 2);
        zb_buf_init(&w.key, 1 << 20);
        zb_buf_init(&w.tmp, 1 << 20);
        if (zb_arena_new(&w.arena, (size_t)1 << 34) < 0 ||
            (w.gix = json_object()) == NULL)
            rc = zb_fail_oom(ctx);
        else if ((rc = zb_catalog_load_table(t->catalog, ctx, t->ident,
                                             &tbl)) == ZB_OK) {
            w.tbl = tbl;
            w.m = tbl->meta;
            w.v = tbl->meta->format_version;
            w.snap = ice_metadata_current_snapshot(tbl->meta);
            rc = attempt(&w, o, min_input);
        }
        tries = r->attempts;
        rw_free(&w);
        zb_table_free(tbl);
        if (rc != ZB_ECONFLICT || i == max)
            break;
        zb_err_clear(&ctx->err);
    }
    return rc;
}

int zb_rewrite_manifests_report(zb_buf *out, const char *table,
                                const zb_rewrite_manifests_result *r,
                                int dry_run)
{
    int rc;

    if (r->skipped)
        return zb_buf_appendf(out, "%s: skipped -- %s\n", table, r->reason);
    if ((rc = zb_buf_appendf(out, "%s: %llu data manifest(s) holding %llu "
                             "entries -> %llu\n", table,
                             (unsigned long long)r->data_manifests,
                             (unsigned long long)r->data_entries,
                             (unsigned long long)r->new_data_manifests)) < 0 ||
        (rc = zb_buf_appendf(out, "  partition spread %llu -> %llu\n",
                             (unsigned long long)r->spread_before,
                             (unsigned long long)r->spread_after)) < 0 ||
        (rc = zb_buf_appendf(out, "  manifests %llu -> %llu\n",
                             (unsigned long long)(r->data_manifests +
                                                  r->delete_manifests),
                             (unsigned long long)(r->manifests_created +
                                                  r->manifests_kept))) < 0)
        return rc;
    if (dry_run)
        rc = zb_buf_appendf(out, "  would commit the rewrite\n");
    return rc;
}

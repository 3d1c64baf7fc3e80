/*
 * ops/expire/expire.c - expire snapshots, then delete the files only they
 * reached (expire.h).
 *
 * Call order: zb_expire loads the table, zb_expire__plan decides and
 * computes the deletion, zb_expire__apply commits, checks the committed
 * metadata against the deletion and deletes; a lost race reloads and
 * plans again.
 *
 * The plan, as sorted path streams (ops/reachable/reachable_files.h):
 *   1. each snapshot's manifest list goes to CAND (expired) or KEEP
 *      (retained), its manifests to EM or RM;
 *   2. EM joined with RM: a manifest only in EM is a candidate (to the
 *      file CM); every RM manifest goes to the file RMF, kept for the
 *      check after the commit;
 *   3. each candidate manifest goes to CAND with every file it names;
 *      when there is any candidate, each retained manifest goes to KEEP
 *      with its live files (otherwise no content file can be doomed and
 *      the retained manifests are not read); statistics files of
 *      expired snapshots to CAND, of retained ones to KEEP;
 *   4. CAND joined with KEEP: what only CAND has is doomed (file D).
 * A missing manifest list or manifest of an expired snapshot is logged
 * and passed over (it cannot name files to delete); of a retained one it
 * fails the plan: nothing is committed.
 *
 * The check after the commit streams what the committed metadata
 * references: its manifest lists and statistics files, its manifests
 * (joined with RMF: manifests that are new since the plan are read for
 * their live files), the metadata file. Joined with D, any path on both
 * sides is ZB_EUNSAFE, before anything is deleted.
 */
#define ZB_MODULE "expire"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <jansson.h>

#include "ops/expire/expire_int.h"
#include "table/commit/commit.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/log.h"
#include "util/str.h"

#define EXPIRE_ATTEMPTS 3
#define DEFAULT_MEMORY ((uint64_t)128 << 20)

static int64_t clock_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Iceberg reads the property with Java's Boolean.parseBoolean: unset is
 * the default (true), and any value but "true" (in any case) is false. */
static int gc_enabled(const ice_metadata *m)
{
    const char *v = ice_metadata_property(m, "gc.enabled");

    return v == NULL || strcasecmp(v, "true") == 0;
}

void zb_expire__plan_free(zb_expire_plan *p)
{
    if (p == NULL)
        return;
    zb_free(p->expired);
    zb_free(p->drop_refs);
    zb_pathfile_free(p->doomed);
    zb_pathfile_free(p->retained_manifests);
    zb_free(p);
}

/* ---- planning ------------------------------------------------------------ */

typedef struct plan_ctx {
    zb_expire_plan *p;
    const zb_table *t;
    zb_io *io;
    zb_ctx *ctx;
    zb_pathsort *cand, *keep;
    zb_pathfile *cm;
    int read_entries;               /* step 3: read retained manifests */
    zb_pathmem mem;                 /* the four streams: one budget holder */
    unsigned read_threads;          /* reading manifests (step 3) */
    int expired_side;               /* step 3: reading candidates */
} plan_ctx;

/* Step 2: split manifests into candidates and retained. */
static int split_manifests(const zb_pathrec *em, const zb_pathrec *rm,
                           void *payload)
{
    plan_ctx *pc = payload;

    if (rm != NULL)
        return zb_pathfile_write(pc->p->retained_manifests, pc->ctx, rm);
    return zb_pathfile_write(pc->cm, pc->ctx, em);
}

/* Reads a manifest for the plan; a missing or unreadable one of an
 * expired snapshot is logged and skipped. */
static int read_manifest(plan_ctx *pc, zb_pathsort *into, const char *uri,
                         int live_only, int expired_side)
{
    int rc = zb_reach_manifest(into, pc->io, pc->ctx, pc->t, uri, live_only);

    if (rc < 0 && expired_side &&
        (rc == ZB_ENOTFOUND || rc == ZB_ECORRUPT)) {
        zb_log_warn(pc->ctx, "%s: expired snapshot's manifest passed over "
                    "(%s)", pc->t->ident, pc->ctx->err.msg);
        zb_err_clear(&pc->ctx->err);
        return ZB_OK;
    }
    return rc;
}

/* Step 3 with a zb_reach_reader: read_manifest's handling of a failure,
 * in the order of the manifests. */
static int manifest_done(void *payload, zb_ctx *ctx, int rc)
{
    plan_ctx *pc = payload;

    if (rc >= 0)
        return ZB_OK;
    if (pc->expired_side && (rc == ZB_ENOTFOUND || rc == ZB_ECORRUPT)) {
        zb_log_warn(ctx, "%s: expired snapshot's manifest passed over (%s)",
                    pc->t->ident, ctx->err.msg);
        zb_err_clear(&ctx->err);
        return ZB_OK;
    }
    if (!pc->expired_side)
        zb_err_prefix(ctx, "%s: retained manifest", pc->t->ident);
    return rc;
}

/* Step 3 on read_threads threads: the same streams as the loop below. */
static int read_manifests_pool(plan_ctx *pc)
{
    zb_reach_reader *rr = NULL;
    const zb_pathrec *r;
    int rc;

    if ((rc = zb_reach_reader_new(&rr, pc->ctx, pc->io, pc->t,
                                  pc->read_threads, manifest_done, pc)) < 0)
        return rc;
    pc->expired_side = 1;
    while ((rc = zb_pathfile_next(pc->cm, pc->ctx, &r)) > 0)
        if ((rc = zb_pathsort_add(pc->cand, pc->ctx, r->path, r->len, r->tag,
                                  r->size_bytes, 0)) < 0 ||
            (rc = zb_reach_reader_add(rr, pc->ctx, pc->cand, r->path, 0)) < 0)
            goto done;
    if (rc < 0 || (rc = zb_reach_reader_drain(rr, pc->ctx)) < 0)
        goto done;
    pc->expired_side = 0;
    while ((rc = zb_pathfile_next(pc->p->retained_manifests, pc->ctx,
                                  &r)) > 0) {
        if ((rc = zb_pathsort_add(pc->keep, pc->ctx, r->path, r->len, r->tag,
                                  r->size_bytes, 0)) < 0)
            goto done;
        if (zb_pathfile_count(pc->cm) > 0 &&
            (rc = zb_reach_reader_add(rr, pc->ctx, pc->keep, r->path, 1)) < 0)
            goto done;
    }
    if (rc == 0)
        rc = zb_reach_reader_drain(rr, pc->ctx);
done:
    zb_reach_reader_free(rr);
    return rc < 0 ? rc : ZB_OK;
}

/* Step 4: the doomed files. */
static int doom(const zb_pathrec *c, const zb_pathrec *k, void *payload)
{
    plan_ctx *pc = payload;
    unsigned b;

    if (c == NULL || k != NULL)
        return ZB_OK;
    for (b = 0; b < 8; b++)
        if (c->tag & (1u << b)) {
            pc->p->by_tag[b]++;
            break;
        }
    pc->p->doomed_bytes += c->size_bytes;
    return zb_pathfile_write(pc->p->doomed, pc->ctx, c);
}

static int plan_files(plan_ctx *pc, const unsigned char *keep,
                      uint64_t mem_each)
{
    const ice_metadata *m = pc->t->meta;
    zb_pathsort *em = NULL, *rm = NULL;
    zb_buf scratch = ZB_BUF_INIT(ZB_REACH_MAX_PATH);
    const zb_pathrec *r;
    size_t i;
    int rc;

    if ((rc = zb_pathsort_new_in(&pc->cand, pc->ctx, "expire", mem_each,
                                 &pc->mem)) < 0 ||
        (rc = zb_pathsort_new_in(&pc->keep, pc->ctx, "expire", mem_each,
                                 &pc->mem)) < 0 ||
        (rc = zb_pathsort_new_in(&em, pc->ctx, "expire", mem_each,
                                 &pc->mem)) < 0 ||
        (rc = zb_pathsort_new_in(&rm, pc->ctx, "expire", mem_each,
                                 &pc->mem)) < 0 ||
        (rc = zb_pathfile_open(&pc->cm, pc->ctx, "expire")) < 0 ||
        (rc = zb_pathfile_open(&pc->p->retained_manifests, pc->ctx,
                               "expire")) < 0 ||
        (rc = zb_pathfile_open(&pc->p->doomed, pc->ctx, "expire")) < 0)
        goto done;
    /* Step 1. */
    for (i = 0; i < m->n_snapshots; i++) {
        const ice_snapshot *s = &m->snapshots[i];
        if (keep[i]) {
            if ((rc = zb_reach_snapshot(pc->keep, rm, pc->io, pc->ctx, pc->t,
                                        s)) < 0) {
                zb_err_prefix(pc->ctx, "%s: retained snapshot %lld",
                              pc->t->ident, (long long)s->snapshot_id);
                goto done;
            }
            if ((rc = zb_reach_stats(pc->keep, pc->ctx, pc->t, &scratch,
                                     s->snapshot_id)) < 0)
                goto done;
            continue;
        }
        rc = zb_reach_snapshot(pc->cand, em, pc->io, pc->ctx, pc->t, s);
        if (rc == ZB_ENOTFOUND || rc == ZB_ECORRUPT) {
            zb_log_warn(pc->ctx, "%s: expired snapshot %lld passed over (%s)",
                        pc->t->ident, (long long)s->snapshot_id,
                        pc->ctx->err.msg);
            zb_err_clear(&pc->ctx->err);
            rc = ZB_OK;
        }
        if (rc < 0 ||
            (rc = zb_reach_stats(pc->cand, pc->ctx, pc->t, &scratch,
                                 s->snapshot_id)) < 0)
            goto done;
    }
    /* Step 2. */
    if ((rc = zb_pathsort_finish(em, pc->ctx)) < 0 ||
        (rc = zb_pathsort_finish(rm, pc->ctx)) < 0 ||
        (rc = zb_reach_join(pc->ctx, zb_pathsort_next_cb, em,
                            zb_pathsort_next_cb, rm, split_manifests,
                            pc)) < 0)
        goto done;
    zb_pathsort_free(em);
    zb_pathsort_free(rm);
    em = rm = NULL;
    /* Step 3. */
    if ((rc = zb_pathfile_rewind(pc->cm, pc->ctx)) < 0 ||
        (rc = zb_pathfile_rewind(pc->p->retained_manifests, pc->ctx)) < 0)
        goto done;
    if (pc->read_threads > 1) {
        if ((rc = read_manifests_pool(pc)) < 0)
            goto done;
        goto step4;
    }
    while ((rc = zb_pathfile_next(pc->cm, pc->ctx, &r)) > 0) {
        if ((rc = zb_pathsort_add(pc->cand, pc->ctx, r->path, r->len, r->tag,
                                  r->size_bytes, 0)) < 0 ||
            (rc = read_manifest(pc, pc->cand, r->path, 0, 1)) < 0)
            goto done;
    }
    if (rc < 0)
        goto done;
    while ((rc = zb_pathfile_next(pc->p->retained_manifests, pc->ctx,
                                  &r)) > 0) {
        if ((rc = zb_pathsort_add(pc->keep, pc->ctx, r->path, r->len, r->tag,
                                  r->size_bytes, 0)) < 0)
            goto done;
        if (zb_pathfile_count(pc->cm) > 0 &&
            (rc = read_manifest(pc, pc->keep, r->path, 1, 0)) < 0) {
            zb_err_prefix(pc->ctx, "%s: retained manifest", pc->t->ident);
            goto done;
        }
    }
    if (rc < 0)
        goto done;
step4:
    /* Step 4. */
    if ((rc = zb_pathsort_finish(pc->cand, pc->ctx)) < 0 ||
        (rc = zb_pathsort_finish(pc->keep, pc->ctx)) < 0 ||
        (rc = zb_reach_join(pc->ctx, zb_pathsort_next_cb, pc->cand,
                            zb_pathsort_next_cb, pc->keep, doom, pc)) < 0)
        goto done;
    rc = ZB_OK;
done:
    zb_pathsort_free(em);
    zb_pathsort_free(rm);
    zb_buf_free(&scratch);
    return rc;
}

int zb_expire__plan(zb_expire_plan **out, const zb_table *t, zb_io *io,
                    zb_ctx *ctx, const zb_expire_opts *o, int64_t now_ms)
{
    const ice_metadata *m = t->meta;
    zb_expire_rules rules;
    zb_expire_plan *p = NULL;
    unsigned char *keep = NULL, *drop = NULL;
    plan_ctx pc;
    size_t i;
    int rc;

    *out = NULL;
    memset(&pc, 0, sizeof pc);
    if ((rc = zb_expire__rules(&rules, ctx, m, o)) < 0)
        return rc;
    if ((p = zb_calloc(1, sizeof *p)) == NULL ||
        (keep = zb_calloc(m->n_snapshots + 1, 1)) == NULL ||
        (drop = zb_calloc(m->n_refs + 1, 1)) == NULL ||
        (p->expired = zb_calloc(m->n_snapshots + 1, sizeof *p->expired)) ==
            NULL ||
        (p->drop_refs = zb_calloc(m->n_refs + 1, sizeof *p->drop_refs)) ==
            NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    p->table = t;
    p->gc = gc_enabled(m);
    if ((rc = zb_expire__retain(keep, drop, ctx, m, &rules, now_ms)) < 0)
        goto done;
    for (i = 0; i < m->n_snapshots; i++) {
        if (keep[i])
            p->n_retained++;
        else
            p->expired[p->n_expired++] = m->snapshots[i].snapshot_id;
    }
    for (i = 0; i < m->n_refs; i++)
        if (drop[i] && !m->refs[i].implicit)
            p->drop_refs[p->n_drop_refs++] = m->refs[i].name;
    if (p->gc && p->n_expired > 0) {
        uint64_t mem = o && o->max_memory_bytes ? o->max_memory_bytes
                                                : DEFAULT_MEMORY;
        pc.p = p;
        pc.t = t;
        pc.io = io;
        pc.ctx = ctx;
        pc.read_threads = o ? o->read_threads : 1;
        if ((rc = plan_files(&pc, keep, mem / 4)) < 0)
            goto done;
    }
    *out = p;
    p = NULL;
    rc = ZB_OK;
done:
    zb_pathsort_free(pc.cand);
    zb_pathsort_free(pc.keep);
    zb_pathmem_release(&pc.mem);
    zb_pathfile_free(pc.cm);
    zb_expire__plan_free(p);
    zb_free(keep);
    zb_free(drop);
    return rc;
}

/* ---- commit, check, delete ------------------------------------------------ */

static int build_commit(json_t **reqs_out, json_t **ups_out, zb_ctx *ctx,
                        const zb_expire_plan *p)
{
    const ice_metadata *m = p->table->meta;
    const ice_ref *main_ref = ice_metadata_ref(m, "main");
    json_t *reqs = json_array(), *ups = json_array();
    size_t i;
    int rc = ZB_OK;

    if (reqs == NULL || ups == NULL)
        rc = zb_fail_oom(ctx);
    if (rc == ZB_OK && m->table_uuid != NULL)
        rc = ice_commit_append((zb_json *)reqs, ctx,
                               ice_requirement_table_uuid(m->table_uuid));
    if (rc == ZB_OK)
        rc = ice_commit_append((zb_json *)reqs, ctx,
                               ice_requirement_ref_snapshot_id(
                                   "main", main_ref ? main_ref->snapshot_id
                                                    : ICE_NO_SNAPSHOT));
    /* Every other ref must be where the plan saw it: a catalog applies
     * remove-snapshots by dropping refs that point at a removed snapshot,
     * so a tag or branch moved onto one meanwhile would silently go, and
     * its files with it. */
    for (i = 0; i < m->n_refs && rc == ZB_OK; i++)
        if (strcmp(m->refs[i].name, "main") != 0)
            rc = ice_commit_append((zb_json *)reqs, ctx,
                                   ice_requirement_ref_snapshot_id(
                                       m->refs[i].name,
                                       m->refs[i].snapshot_id));
    for (i = 0; i < p->n_drop_refs && rc == ZB_OK; i++)
        rc = ice_commit_append((zb_json *)ups, ctx,
                               ice_update_remove_ref(p->drop_refs[i]));
    if (rc == ZB_OK && p->n_expired > 0)
        rc = ice_commit_append((zb_json *)ups, ctx,
                               ice_update_remove_snapshots(p->expired,
                                                           p->n_expired));
    if (rc < 0) {
        json_decref(reqs);
        json_decref(ups);
        return rc;
    }
    *reqs_out = reqs;
    *ups_out = ups;
    return ZB_OK;
}

typedef struct check_ctx {
    const zb_table *t;
    zb_io *io;
    zb_ctx *ctx;
    zb_pathsort *refd;
    uint64_t hits;
    char first[512];
} check_ctx;

/* Manifests of the committed metadata: new ones are read. */
static int check_manifest(const zb_pathrec *now, const zb_pathrec *planned,
                          void *payload)
{
    check_ctx *cc = payload;
    int rc;

    if (now == NULL)
        return ZB_OK;
    if ((rc = zb_pathsort_add(cc->refd, cc->ctx, now->path, now->len,
                              now->tag, 0, 0)) < 0)
        return rc;
    if (planned == NULL)
        return zb_reach_manifest(cc->refd, cc->io, cc->ctx, cc->t, now->path,
                                 1);
    return ZB_OK;
}

static int check_hit(const zb_pathrec *refd, const zb_pathrec *doomed,
                     void *payload)
{
    check_ctx *cc = payload;

    if (refd != NULL && doomed != NULL) {
        if (cc->hits++ == 0)
            snprintf(cc->first, sizeof cc->first, "%s", doomed->path);
    }
    return ZB_OK;
}

/* Is any doomed file referenced by the committed table t2? */
static int check_committed(const zb_expire_plan *p, const zb_table *t2,
                           zb_io *io, zb_ctx *ctx, uint64_t mem_each)
{
    const ice_metadata *m = t2->meta;
    zb_pathsort *man = NULL;
    zb_pathmem mem = ZB_PATHMEM_INIT;   /* both streams: one budget holder */
    zb_buf scratch = ZB_BUF_INIT(ZB_REACH_MAX_PATH);
    check_ctx cc;
    size_t i;
    int rc;

    memset(&cc, 0, sizeof cc);
    cc.t = t2;
    cc.io = io;
    cc.ctx = ctx;
    if ((rc = zb_pathsort_new_in(&cc.refd, ctx, "expire-check", mem_each,
                                 &mem)) < 0 ||
        (rc = zb_pathsort_new_in(&man, ctx, "expire-check", mem_each,
                                 &mem)) < 0)
        goto done;
    for (i = 0; i < m->n_snapshots; i++)
        if ((rc = zb_reach_snapshot(cc.refd, man, io, ctx, t2,
                                    &m->snapshots[i])) < 0)
            goto done;
    if ((rc = zb_reach_stats(cc.refd, ctx, t2, &scratch, ICE_NO_SNAPSHOT)) <
            0 ||
        (rc = zb_pathsort_add_uri(cc.refd, ctx, t2->metadata_location,
                                  ZB_REACH_METADATA, 0, 0)) < 0 ||
        (rc = zb_pathsort_finish(man, ctx)) < 0 ||
        (rc = zb_pathfile_rewind(p->retained_manifests, ctx)) < 0 ||
        (rc = zb_reach_join(ctx, zb_pathsort_next_cb, man,
                            zb_pathfile_next_cb, p->retained_manifests,
                            check_manifest, &cc)) < 0 ||
        (rc = zb_pathsort_finish(cc.refd, ctx)) < 0 ||
        (rc = zb_pathfile_rewind(p->doomed, ctx)) < 0 ||
        (rc = zb_reach_join(ctx, zb_pathsort_next_cb, cc.refd,
                            zb_pathfile_next_cb, p->doomed, check_hit,
                            &cc)) < 0)
        goto done;
    if (cc.hits > 0)
        rc = zb_fail(ctx, ZB_EUNSAFE, "%s: aborted, nothing deleted: %llu "
                     "file(s) to delete are still referenced by the committed "
                     "metadata %s, such as %s", p->table->ident,
                     (unsigned long long)cc.hits, t2->metadata_location,
                     cc.first);
done:
    zb_pathsort_free(cc.refd);
    zb_pathsort_free(man);
    zb_pathmem_release(&mem);
    zb_buf_free(&scratch);
    return rc;
}

int zb_expire__apply(zb_table **committed_out, const zb_expire_plan *p,
                     zb_catalog *cat, zb_io *io, zb_ctx *ctx,
                     const zb_expire_opts *o, zb_expire_result *r)
{
    json_t *reqs = NULL, *ups = NULL;
    zb_table *t2 = NULL;
    zb_reach_deleted del;
    uint64_t mem = o && o->max_memory_bytes ? o->max_memory_bytes
                                            : DEFAULT_MEMORY;
    int rc;

    if (committed_out)
        *committed_out = NULL;
    if (p->n_expired == 0 && p->n_drop_refs == 0)
        return ZB_OK;
    if ((rc = build_commit(&reqs, &ups, ctx, p)) < 0)
        return rc;
    rc = zb_catalog_commit(cat, ctx, p->table, (const zb_json *)reqs,
                           (const zb_json *)ups, &t2);
    json_decref(reqs);
    json_decref(ups);
    if (rc < 0)
        return rc;     /* ZB_ETIMEOUT included: nothing is deleted */
    r->committed = 1;
    if (p->doomed != NULL && zb_pathfile_count(p->doomed) > 0) {
        if ((rc = check_committed(p, t2, io, ctx, mem / 4)) < 0)
            goto done;
        if ((rc = zb_reach_delete_stage(&del, p->doomed, io, ctx,
                                        o ? o->delete_threads : 0,
                                        ZB_PROGRESS_EXPIRE_FILES)) < 0)
            goto done;
        r->files_deleted = del.files;
        r->bytes_deleted = del.bytes;
        r->files_not_deleted = del.failed;
        r->files_missing = del.missing;
        memcpy(r->first_error, del.first_error, sizeof r->first_error);
    }
done:
    if (committed_out && rc == ZB_OK)
        *committed_out = t2;
    else
        zb_table_free(t2);
    return rc;
}

/* ---- the operation --------------------------------------------------------- */

static int set_dropped(zb_expire_result *r, zb_ctx *ctx,
                       const zb_expire_plan *p)
{
    size_t i;

    r->refs_dropped = p->n_drop_refs;
    if (p->n_drop_refs == 0)
        return ZB_OK;
    if ((r->dropped_refs = zb_calloc(p->n_drop_refs + 1,
                                     sizeof *r->dropped_refs)) == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < p->n_drop_refs; i++)
        if ((r->dropped_refs[i] = zb_strdup(p->drop_refs[i])) == NULL)
            return zb_fail_oom(ctx);
    return ZB_OK;
}

int zb_expire(const zb_op_target *t, zb_ctx *ctx, const zb_expire_opts *o,
              zb_expire_result *r)
{
    zb_table *tab = NULL, *t2 = NULL;
    zb_expire_plan *p = NULL;
    unsigned threads = o ? o->delete_threads : 0;
    int64_t now = t->now_ms > 0 ? t->now_ms : clock_ms();
    int attempt, rc = ZB_OK;

    ZB_ASSERT_ARG(t && t->catalog && t->io && t->ident && ctx && r);
    memset(r, 0, sizeof *r);
    for (attempt = 1; attempt <= EXPIRE_ATTEMPTS; attempt++) {
        if ((rc = zb_catalog_load_table(t->catalog, ctx, t->ident, &tab)) < 0)
            break;
        zb_expire_result_free(r);
        memset(r, 0, sizeof *r);
        if ((rc = zb_expire__plan(&p, tab, t->io, ctx, o, now)) < 0)
            break;
        r->snapshots_expired = p->n_expired;
        r->snapshots_retained = p->n_retained;
        r->gc_disabled = !p->gc;
        r->planned_lists = p->by_tag[2];
        r->planned_manifests = p->by_tag[3];
        r->planned_data = p->by_tag[4];
        r->planned_deletes = p->by_tag[5];
        r->planned_stats = p->by_tag[6];
        if ((rc = set_dropped(r, ctx, p)) < 0)
            break;
        if (t->dry_run) {
            r->files_deleted = zb_pathfile_count(p->doomed);
            r->bytes_deleted = p->doomed_bytes;
            rc = zb_expire__meta_run(r, tab, NULL,
                                     p->n_expired > 0 || p->n_drop_refs > 0,
                                     1, t->io, ctx, threads);
            break;
        }
        rc = zb_expire__apply(&t2, p, t->catalog, t->io, ctx, o, r);
        if (rc == ZB_ECONFLICT && !r->committed &&
            ice_commit_conflict_retryable(ctx) && attempt < EXPIRE_ATTEMPTS) {
            zb_log_info(ctx, "%s: lost a commit race (%s); planning again",
                        t->ident, ctx->err.msg);
            zb_err_clear(&ctx->err);
            zb_expire__plan_free(p);
            zb_table_free(tab);
            p = NULL;
            tab = NULL;
            continue;
        }
        /* Old metadata files: after the commit (its log decides), else
         * on the table as loaded. */
        if (rc == ZB_OK)
            rc = zb_expire__meta_run(r, t2 ? t2 : tab, t2 ? tab->meta : NULL,
                                     0, 0, t->io, ctx, threads);
        break;
    }
    zb_expire__plan_free(p);
    zb_table_free(t2);
    zb_table_free(tab);
    return rc;
}

void zb_expire_result_free(zb_expire_result *r)
{
    size_t i;

    if (r == NULL || r->dropped_refs == NULL)
        return;
    for (i = 0; i < r->refs_dropped; i++)
        zb_free(r->dropped_refs[i]);
    zb_free(r->dropped_refs);
    r->dropped_refs = NULL;
}

int zb_expire_report(zb_buf *out, const char *table,
                     const zb_expire_result *r, int dry_run)
{
    uint64_t i;
    int e = 0;

    e |= zb_buf_appendf(out, "%s: expired %llu snapshot(s), retained %llu, "
                        "%s %llu file(s)\n", table,
                        (unsigned long long)r->snapshots_expired,
                        (unsigned long long)r->snapshots_retained,
                        dry_run ? "would delete" : "deleted",
                        (unsigned long long)r->files_deleted);
    if (r->files_not_deleted > 0)
        e |= zb_buf_appendf(out, "  %llu file(s) could not be deleted\n",
                            (unsigned long long)r->files_not_deleted);
    if (r->metadata_deleted > 0) {
        char sz[32];

        zb_str_format_bytes(sz, sizeof sz, r->metadata_bytes_deleted);
        e |= zb_buf_appendf(out, "  %s %llu old metadata file(s) (%s) beyond "
                            "write.metadata.previous-versions-max=%llu\n",
                            dry_run ? "would delete" : "deleted",
                            (unsigned long long)r->metadata_deleted, sz,
                            (unsigned long long)r->previous_versions_max);
    }
    if (r->metadata_not_deleted > 0)
        e |= zb_buf_appendf(out, "  %llu metadata file(s) could not be "
                            "deleted\n",
                            (unsigned long long)r->metadata_not_deleted);
    if (r->gc_disabled && r->snapshots_expired > 0)
        e |= zb_buf_appendf(out, "  gc.enabled=false: no file deleted\n");
    if (r->refs_dropped > 0) {
        e |= zb_buf_appendf(out, "  %s %llu ref(s) past max-ref-age-ms: ",
                            dry_run ? "would drop" : "dropped",
                            (unsigned long long)r->refs_dropped);
        for (i = 0; i < r->refs_dropped && r->dropped_refs; i++)
            e |= zb_buf_appendf(out, "%s%s", i ? ", " : "",
                                r->dropped_refs[i]);
        e |= zb_buf_putc(out, '\n');
    }
    return e ? ZB_ENOMEM : ZB_OK;
}

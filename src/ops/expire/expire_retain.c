/*
 * ops/expire/expire_retain.c - which snapshots and refs expire (expire.h).
 *
 * zb_expire__rules picks each rule from opts, else the table property, else the
 * default (zb_tset_resolve, ops/table_settings.h). zb_expire__retain then works
 * in three passes over the refs: refs past their max age are dropped (never
 * main); each kept branch walks its ancestry (ice_metadata_ancestors) keeping
 * snapshots while fewer than min-snapshots-to-keep are kept or the snapshot is
 * no older than the cutoff, and stops at the first that is neither (Iceberg
 * Java's computeBranchSnapshotsToRetain); each kept tag keeps its snapshot.
 * Snapshots that no kept ref's ancestry reaches are kept while younger than the
 * table-level cutoff. The current snapshot is kept whatever the rules say.
 */
#define ZB_MODULE "expire"

#include <string.h>

#include "ops/expire/expire_int.h"
#include "util/alloc.h"
#include "util/err.h"

int zb_expire__rules(zb_expire_rules *out, zb_ctx *ctx,
                     const ice_metadata *m, const zb_expire_opts *o)
{
    zb_tset_value v;
    int rc;

    /* an unusable history.expire.* property fails (ZB_EINVAL) */
    if ((rc = zb_tset_resolve(&v, ctx, ZB_TSET_MAX_SNAPSHOT_AGE,
                              o ? o->max_snapshot_age_ms : ZB_UNSET, NULL,
                              m)) < 0)
        return rc;
    out->max_snapshot_age_ms = v.value;
    if ((rc = zb_tset_resolve(&v, ctx, ZB_TSET_MIN_SNAPSHOTS_TO_KEEP,
                              o ? o->min_snapshots_to_keep : ZB_UNSET, NULL,
                              m)) < 0)
        return rc;
    out->min_snapshots_to_keep = (int32_t)v.value;
    if ((rc = zb_tset_resolve(&v, ctx, ZB_TSET_MAX_REF_AGE,
                              o ? o->max_ref_age_ms : ZB_UNSET, NULL, m)) < 0)
        return rc;
    out->max_ref_age_ms = v.value;
    return ZB_OK;
}

static size_t snap_index(const ice_metadata *m, int64_t id)
{
    const ice_snapshot *s = ice_metadata_snapshot(m, id);

    return s ? (size_t)(s - m->snapshots) : (size_t)-1;
}

/* now - age, without overflow: snapshots at or after it are young. */
static int64_t cutoff(int64_t now_ms, int64_t age_ms)
{
    if (age_ms >= INT64_MAX / 2 || now_ms - INT64_MIN / 2 < age_ms)
        return INT64_MIN;
    return now_ms - age_ms;
}

int zb_expire__retain(unsigned char *keep, unsigned char *drop, zb_ctx *ctx,
                      const ice_metadata *m, const zb_expire_rules *rules,
                      int64_t now_ms)
{
    const ice_snapshot **chain = NULL;
    unsigned char *reached = NULL;
    size_t i, j, n;
    int rc = ZB_OK;

    memset(keep, 0, m->n_snapshots);
    memset(drop, 0, m->n_refs);
    if (m->n_snapshots == 0)
        return ZB_OK;
    chain = zb_calloc(m->n_snapshots, sizeof *chain);
    reached = zb_calloc(m->n_snapshots, 1);
    if (chain == NULL || reached == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    for (j = 0; j < m->n_refs; j++) {
        const ice_ref *r = &m->refs[j];
        const ice_snapshot *s = ice_metadata_snapshot(m, r->snapshot_id);
        int64_t age = r->max_ref_age_ms >= 0 ? r->max_ref_age_ms
                                             : rules->max_ref_age_ms;
        if (strcmp(r->name, "main") == 0 || s == NULL)
            continue;
        if (s->timestamp_ms < cutoff(now_ms, age))
            drop[j] = 1;
    }
    for (j = 0; j < m->n_refs; j++) {
        const ice_ref *r = &m->refs[j];
        int32_t min_keep;
        int64_t cut;
        size_t kept = 0;
        if (drop[j])
            continue;
        if (r->type == ICE_REF_TAG) {
            if ((i = snap_index(m, r->snapshot_id)) != (size_t)-1)
                keep[i] = reached[i] = 1;
            continue;
        }
        min_keep = r->min_snapshots_to_keep >= 1 ? r->min_snapshots_to_keep
                                                 : rules->min_snapshots_to_keep;
        cut = cutoff(now_ms, r->max_snapshot_age_ms >= 0
                                 ? r->max_snapshot_age_ms
                                 : rules->max_snapshot_age_ms);
        n = ice_metadata_ancestors(chain, m->n_snapshots, m, r->snapshot_id);
        if (n > m->n_snapshots)
            n = m->n_snapshots;
        for (i = 0; i < n; i++) {
            size_t k = (size_t)(chain[i] - m->snapshots);
            reached[k] = 1;
            if (kept < (size_t)min_keep || chain[i]->timestamp_ms >= cut) {
                keep[k] = 1;
                kept++;
            } else {
                break;
            }
        }
        /* The rest of the ancestry is reached, not kept. */
        for (; i < n; i++)
            reached[chain[i] - m->snapshots] = 1;
    }
    for (i = 0; i < m->n_snapshots; i++)
        if (!reached[i] &&
            m->snapshots[i].timestamp_ms >=
                cutoff(now_ms, rules->max_snapshot_age_ms))
            keep[i] = 1;
    if ((i = snap_index(m, m->current_snapshot_id)) != (size_t)-1)
        keep[i] = 1;
done:
    zb_free(chain);
    zb_free(reached);
    return rc;
}

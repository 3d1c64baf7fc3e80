/*
 * ops/rewrite_manifests/rewrite_manifests_mem.c - what rewrite-manifests
 * holds, reserved from ctx->budget (see rewrite_manifests_int.h).
 *
 * Counted, approximately: per partition group its struct twice (the
 * vector doubles), its key twice (arena copy and the JSON index's) and
 * GROUP_INDEX_BYTES of index entry; per output manifest its plan entry
 * and its list entry; per open writer WRITER_BYTES (the Avro block being
 * filled, 1 MiB, and its encoded copy). The manifest being read, one
 * block, is the reader's and is not counted.
 *
 * The groups cannot be cut into pieces: they grow by waiting grows in
 * steps of GROW_STEP. The writers can: a window that does not fit at once
 * is halved (more passes over the input, the same manifests) down to one
 * writer, which is then waited for. Nothing else is held meanwhile, so
 * the only refusal is the budget's ZB_ENOMEM (every holder waiting),
 * reported with the bytes needed.
 */
#define ZB_MODULE "rewrite-manifests"

#include "ops/rewrite_manifests/rewrite_manifests_int.h"
#include "table/manifest/manifest.h"
#include "util/err.h"
#include "zamboni/budget.h"

#define GROUP_INDEX_BYTES 96
#define WRITER_BYTES ((uint64_t)2 << 20)
#define GROW_STEP ((uint64_t)1 << 20)
#define OUT_BYTES (sizeof(out_mf) + sizeof(ice_manifest_file) + 256)

/* Holds total bytes in w->res, waiting as long as the budget needs. */
static int take(rw *w, uint64_t total, const char *what)
{
    int rc;

    if (w->res.budget == NULL)
        rc = zb_budget_reserve(&w->res, w->ctx->budget, total,
                               w->ctx->stop);
    else
        rc = zb_budget_grow(&w->res, total, w->ctx->stop);
    if (rc < 0)
        return zb_fail(w->ctx, rc, "%s: no memory budget for %s: %llu "
                       "bytes needed", w->tbl->ident, what,
                       (unsigned long long)total);
    return ZB_OK;
}

int zb_rewrite_manifests__count_group(rw *w, size_t key_len)
{
    w->group_bytes += 2 * sizeof(group) + 2 * (key_len + 1) +
                      GROUP_INDEX_BYTES;
    if (w->ctx->budget == NULL || w->group_bytes <= w->res.bytes)
        return ZB_OK;
    return take(w, w->group_bytes + GROW_STEP, "its partition groups");
}

int zb_rewrite_manifests__reserve_writers(rw *w, size_t *n_writers)
{
    uint64_t base = w->group_bytes + (uint64_t)w->outs.len * OUT_BYTES;
    size_t n = *n_writers;

    if (w->ctx->budget == NULL)
        return ZB_OK;
    for (;;) {
        uint64_t want = base + (uint64_t)n * WRITER_BYTES;

        if (want <= w->res.bytes ||
            zb_budget_try_grow(&w->res, w->ctx->budget, want) == ZB_OK)
            break;
        if (n == 1) {
            int rc = take(w, want, "one manifest writer");
            if (rc < 0)
                return rc;
            break;
        }
        n = (n + 1) / 2;
    }
    *n_writers = n;
    return ZB_OK;
}

/*
 * catalog/catalog_fence.c - commit fences (catalog.h, zb_commit_fence):
 * the check a catalog runs before a commit it cannot fence in its swap.
 */
#define ZB_MODULE "catalog"

#include "catalog/catalog_int.h"
#include "catalog/sql/sqldb.h"
#include "util/buf.h"
#include "util/err.h"

void zb_catalog_set_fence(zb_catalog *c, const zb_commit_fence *fence)
{
    if (c != NULL)
        c->fence = fence;
}

static int holds_cb(void *payload, int n, const char *const *vals)
{
    int *holds = payload;

    *holds = n >= 1 && vals[0] != NULL && vals[0][0] == '1';
    return 0;
}

int zb_catalog__fence_check(zb_catalog *c, zb_ctx *ctx)
{
    const zb_commit_fence *f = c->fence;
    zb_buf q = ZB_BUF_INIT(1 << 16);
    int holds = 0, rc;

    if (f == NULL)
        return ZB_OK;
    if (f->db == NULL || f->sql_condition == NULL || f->n_params < 0 ||
        f->n_params > 8)
        return zb_fail(ctx, ZB_EINVAL, "commit fence without a database "
                       "or condition");
    if (zb_buf_appendf(&q, "SELECT CASE WHEN %s THEN 1 ELSE 0 END",
                       f->sql_condition) < 0)
        return zb_fail_oom(ctx);
    rc = zb_sqldb_exec(f->db, ctx, ZB_SQL_PRIMARY, q.ptr, f->n_params,
                       f->params, holds_cb, &holds, NULL);
    zb_buf_free(&q);
    if (rc < 0) {
        zb_err_prefix(ctx, "checking the commit fence (%s)",
                      f->what ? f->what : "?");
        return rc;
    }
    if (!holds)
        return zb_fail(ctx, ZB_EFENCED, "commit refused: %s no longer holds "
                       "its lease", f->what ? f->what : "the caller");
    return ZB_OK;
}

/*
 * catalog/catalog_retry.c - zb_catalog_commit_retry: Iceberg's commit
 * retry policy (catalog_retry.h) over any catalog.
 *
 * Loop: load the table; build the attempt; commit. A conflict that is
 * retryable (another writer moved the table or won the swap) cleans the
 * attempt's files up, waits, reloads and builds again, so the builder sees
 * what changed and re-validates. An unknown outcome (ZB_ETIMEOUT) stops at
 * once and cleans nothing: the attempt's files may now belong to the
 * table. The wait sleeps in slices so that the stop flag is honoured.
 */
#define ZB_MODULE "catalog"

#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "catalog/catalog_int.h"
#include "catalog/catalog_retry.h"
#include "table/commit/commit.h"
#include "util/err.h"
#include "util/log.h"
#include "util/str.h"

#define RETRY_NUM_DEFAULT 4
#define RETRY_MIN_WAIT_DEFAULT 100
#define RETRY_MAX_WAIT_DEFAULT 60000
#define RETRY_TOTAL_DEFAULT 1800000
#define SLEEP_SLICE_MS 50

static long prop_long(const zb_table *t, const char *key, long dflt)
{
    const char *v = t->meta ? ice_metadata_property(t->meta, key) : NULL;
    uint64_t n;

    if (v == NULL || zb_str_to_u64(&n, v) < 0 || n > (uint64_t)1 << 40)
        return dflt;
    return (long)n;
}

/* Sleeps ms, in slices; ZB_ECANCELED when the stop flag rises. */
static int wait_ms(zb_ctx *ctx, long ms)
{
    while (ms > 0) {
        long slice = ms < SLEEP_SLICE_MS ? ms : SLEEP_SLICE_MS;
        struct timespec ts = { slice / 1000, (slice % 1000) * 1000000L };
        if (zb_ctx_stopped(ctx))
            return zb_fail(ctx, ZB_ECANCELED, "commit retry stopped");
        nanosleep(&ts, NULL);
        ms -= slice;
    }
    return zb_ctx_stopped(ctx)
               ? zb_fail(ctx, ZB_ECANCELED, "commit retry stopped")
               : ZB_OK;
}

static uint64_t jitter_state(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
           ((uint64_t)getpid() << 40) ^ 0x9e3779b97f4a7c15ull;
}

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

int zb_catalog_commit_retry(zb_catalog *c, zb_ctx *ctx, const char *ident,
                            zb_catalog_build_fn build, void *payload,
                            zb_catalog_retry_opts *opts, zb_table **out)
{
    zb_catalog_retry_opts dflt = ZB_CATALOG_RETRY_OPTS_INIT;
    zb_table *t = NULL, *t2 = NULL;
    zb_json *reqs = NULL, *updates = NULL;
    int64_t start = zb_catalog__now_ms();
    uint64_t rnd = jitter_state();
    long num = 0, min_wait = 0, max_wait = 0, total = 0;
    int attempt, rc;

    ZB_ASSERT_ARG(c && ctx && ident && build);
    if (out != NULL)
        *out = NULL;
    if (opts == NULL)
        opts = &dflt;
    opts->attempts = 0;
    for (attempt = 0;; attempt++) {
        int64_t at0 = zb_catalog__now_ms(), at1, at2;

        if ((rc = zb_catalog_load_table(c, ctx, ident, &t)) < 0) {
            /* no commit went out in this attempt and every earlier one
             * was refused: a load that timed out is a plain failure, not
             * an unknown outcome (which would keep the files written) */
            if (rc == ZB_ETIMEOUT) {
                rc = ZB_EIO;
                ctx->err.code = ZB_EIO;
            }
            break;
        }
        at1 = zb_catalog__now_ms();
        if (attempt == 0) {
            num = opts->num_retries >= 0
                      ? opts->num_retries
                      : prop_long(t, "commit.retry.num-retries",
                                  RETRY_NUM_DEFAULT);
            min_wait = opts->min_wait_ms > 0
                           ? opts->min_wait_ms
                           : prop_long(t, "commit.retry.min-wait-ms",
                                       RETRY_MIN_WAIT_DEFAULT);
            max_wait = opts->max_wait_ms > 0
                           ? opts->max_wait_ms
                           : prop_long(t, "commit.retry.max-wait-ms",
                                       RETRY_MAX_WAIT_DEFAULT);
            total = opts->total_timeout_ms > 0
                        ? opts->total_timeout_ms
                        : prop_long(t, "commit.retry.total-timeout-ms",
                                    RETRY_TOTAL_DEFAULT);
            if (max_wait < min_wait)
                max_wait = min_wait;
        }
        opts->attempts++;
        rc = build(&reqs, &updates, ctx, t, payload);
        at2 = zb_catalog__now_ms();
        if (rc == ZB_ETIMEOUT) {       /* as a load's: nothing sent */
            rc = ZB_EIO;
            ctx->err.code = ZB_EIO;
        }
        if (rc >= 0)
            rc = zb_catalog_commit(c, ctx, t, reqs, updates, &t2);
        /* Each attempt's cost, against the gap a hot writer leaves. */
        zb_log_debug(ctx, "table %s: commit attempt %d: load %lld ms, "
                     "build %lld ms, commit %lld ms: %s", ident, attempt + 1,
                     (long long)(at1 - at0), (long long)(at2 - at1),
                     (long long)(zb_catalog__now_ms() - at2),
                     rc >= 0 ? "committed" : "failed");
        json_decref((json_t *)reqs);
        json_decref((json_t *)updates);
        reqs = updates = NULL;
        if (rc >= 0)
            break;
        if (rc == ZB_ETIMEOUT) {
            zb_err_prefix(ctx, "table %s: attempt %d: outcome unknown, "
                          "nothing deleted", ident, attempt + 1);
            break;
        }
        if (opts->cleanup != NULL) {
            zb_err saved;
            zb_err_copy(&saved, &ctx->err);
            opts->cleanup(ctx, t, payload);
            zb_err_copy(&ctx->err, &saved);
        }
        if (rc != ZB_ECONFLICT || !ice_commit_conflict_retryable(ctx))
            break;
        if (attempt >= num) {
            zb_err_prefix(ctx, "table %s: gave up after %d attempts", ident,
                          attempt + 1);
            break;
        }
        {
            long w = min_wait;
            int k;
            for (k = 0; k < attempt && w < max_wait; k++)
                w *= 2;
            if (w > max_wait)
                w = max_wait;
            w -= (long)(next_rand(&rnd) % (uint64_t)(w / 10 + 1));
            if (zb_catalog__now_ms() - start + w > total) {
                zb_err_prefix(ctx, "table %s: gave up after %d attempts "
                              "(commit.retry.total-timeout-ms %ld)", ident,
                              attempt + 1, total);
                break;
            }
            zb_table_free(t);
            t = NULL;
            zb_err_clear(&ctx->err);
            if ((rc = wait_ms(ctx, w)) < 0)
                break;
        }
    }
    zb_table_free(t);
    if (rc >= 0 && out != NULL)
        *out = t2;
    else
        zb_table_free(t2);
    return rc;
}

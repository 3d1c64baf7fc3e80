/*
 * catalog/catalog_retry.h - a commit with Iceberg's retry policy: load,
 * build, commit; on a conflict reload, build again (the builder
 * re-validates against what changed) and retry with exponential backoff.
 *
 *     static int build(zb_json **reqs, zb_json **updates, zb_ctx *ctx,
 *                      const zb_table *t, void *payload) { ... }
 *     zb_catalog_retry_opts o = ZB_CATALOG_RETRY_OPTS_INIT;
 *     o.cleanup = drop_attempt_files;
 *     rc = zb_catalog_commit_retry(cat, ctx, "db.events", build, payload,
 *                                  &o, &t);
 *
 * Policy, from the table's properties unless opts sets them (> 0, or >= 0
 * for num_retries): commit.retry.num-retries (4), commit.retry.min-wait-ms
 * (100), commit.retry.max-wait-ms (60000), commit.retry.total-timeout-ms
 * (1800000). Attempt k (k >= 1 after the first) waits min * 2^(k-1),
 * capped at max, less a random part of up to a tenth so that writers who
 * collided spread out.
 *
 * Codes: ZB_OK (committed; *out the new state), ZB_ECONFLICT (retries
 * exhausted, or a conflict the builder's validation reports as not
 * retryable: table/commit/commit.h ice_commit_conflict_retryable), ZB_ETIMEOUT
 * (the outcome of the last attempt is unknown: nothing may be deleted;
 * the message says so), ZB_ECANCELED (the stop flag rose while waiting),
 * or the first other error of load, build or commit.
 */
#ifndef ZB_CATALOG_CATALOG_RETRY_H
#define ZB_CATALOG_CATALOG_RETRY_H

#include "catalog/catalog.h"

/*
 * Builds one attempt against t (the table as just loaded): the
 * requirements and updates to commit (JSON arrays, owned by the caller
 * afterwards; either may be NULL for none). A negative return stops the
 * retries with that code (a validation that fails should return
 * ZB_ECONFLICT with module "commit-validate", or any other code).
 */
typedef int (*zb_catalog_build_fn)(zb_json **requirements_out,
                                   zb_json **updates_out, zb_ctx *ctx,
                                   const zb_table *t, void *payload);

/*
 * Called after an attempt known to have failed (a conflict, a refused or
 * failed commit, a builder error): the files the attempt wrote may be
 * deleted. Never called when the outcome is unknown or the commit landed.
 */
typedef void (*zb_catalog_cleanup_fn)(zb_ctx *ctx, const zb_table *t,
                                      void *payload);

typedef struct zb_catalog_retry_opts {
    unsigned version;
    int num_retries;               /* < 0: table property or 4 */
    long min_wait_ms;              /* <= 0: table property or 100 */
    long max_wait_ms;              /* <= 0: table property or 60000 */
    long total_timeout_ms;         /* <= 0: table property or 1800000 */
    zb_catalog_cleanup_fn cleanup; /* may be NULL */
    int attempts;                  /* out: attempts made */
} zb_catalog_retry_opts;

#define ZB_CATALOG_RETRY_OPTS_VERSION 1
#define ZB_CATALOG_RETRY_OPTS_INIT \
    { ZB_CATALOG_RETRY_OPTS_VERSION, -1, 0, 0, 0, NULL, 0 }

/* opts may be NULL (defaults); out may be NULL. */
int zb_catalog_commit_retry(zb_catalog *c, zb_ctx *ctx, const char *ident,
                            zb_catalog_build_fn build, void *payload,
                            zb_catalog_retry_opts *opts, zb_table **out);

#endif

/*
 * catalog/catalog_s3.h - the S3 settings of the tables a catalog opens:
 * the memory-budget hooks every opener of a FileIO gives the S3 backend,
 * and the table's own settings a REST catalog vends (loadTable "config"
 * and "storage-credentials"), applied for its location under what the
 * user pinned.
 *
 * Resolution (ISSUE16): flag, ZAMBONI_*, profile (the opener's
 * zb_s3_config given to zb_io_add_s3, with zb_catalog_config.s3_pinned
 * saying which of its fields the user gave), then the table's own config
 * from the catalog (zb_catalog_s3_apply_vended, per prefix), then the
 * default. Credentials: vended ones are used unless the user gave
 * ZAMBONI_S3_ACCESS_KEY_ID (then the user's keys win); the backend's
 * chain (AWS_* environment, profile, web identity, container, instance
 * metadata) comes after both.
 */
#ifndef ZB_CATALOG_CATALOG_S3_H
#define ZB_CATALOG_CATALOG_S3_H

#include <stddef.h>

#include "catalog/catalog.h"
#include "zamboni/io_s3.h"

/* Which zb_s3_config fields the user gave (zb_catalog_config.s3_pinned). */
#define ZB_S3_PIN_ENDPOINT    0x1u
#define ZB_S3_PIN_REGION      0x2u
#define ZB_S3_PIN_PATH_STYLE  0x4u
#define ZB_S3_PIN_CREDENTIALS 0x8u

/*
 * Sets cfg->reserve and cfg->release so that the bytes of each in-flight
 * multipart part are reserved from ctx->budget (include/zamboni/budget.h),
 * the process's one budget; with no budget in ctx nothing is reserved.
 * A reservation that would deadlock (every holder waiting, ZB_ENOMEM) is
 * let through unreserved, as the budget admits a sole holder past its
 * limit: refusing it would fail a write without freeing a byte.
 */
void zb_catalog_s3_budget_hooks(zb_s3_config *cfg);

/*
 * The S3 settings among n key/value pairs (a loadTable "config" or one
 * storage credential's "config"): s3.access-key-id, s3.secret-access-key,
 * s3.session-token, s3.session-token-expires-at-ms (not digits: 0, not
 * known), s3.endpoint, s3.path-style-access, client.region.
 * Fields the user pinned are left NULL or 0 so the opener's win (the
 * meaning of 0 and NULL in zb_io_s3_add_prefix); path style 1 only for
 * a vended true. Strings are borrowed from kv. Returns 1 when any field
 * was set, 0 when none.
 */
int zb_catalog_s3_from_kv(zb_s3_config *out, const zb_catalog_kv *kv,
                          size_t n, unsigned pinned);

#endif

/*
 * zamboni/table.h - one table of a catalog, loaded: what a program
 * embedding Zamboni reads of it before and after maintenance.
 *
 *     zb_table *t = NULL;
 *     if (zb_table_load(&t, cat, &ctx, "db.events") < 0)
 *         fprintf(stderr, "%s\n", ctx.err.msg);
 *     printf("v%d, snapshot %lld\n", zb_table_format_version(t),
 *            (long long)zb_table_current_snapshot_id(t));
 *     zb_table_free(t);
 *
 * A zb_table is the table as it was when it was loaded; it does not follow
 * later commits (load it again for those). The operations of
 * zamboni/ops.h take the table's name, not a zb_table: each loads the
 * table itself, and again after a lost commit race.
 */
#ifndef ZAMBONI_TABLE_H
#define ZAMBONI_TABLE_H

#include <stdint.h>

#include "zamboni/catalog.h"
#include "zamboni/zamboni.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zb_table zb_table;

/*
 * Loads the table name names into *out; free it with zb_table_free. In a
 * catalog of table folders (a NULL uri) name is the folder's path, a
 * file: URI or a plain path; in the other catalogs it is
 * "namespace.table", the last '.' ending the namespace ("a.b.events" is
 * table events of namespace a.b). Codes: ZB_ENOTFOUND (no such table, or
 * a folder without metadata), ZB_EUSAGE (a name without a namespace),
 * ZB_ECORRUPT (metadata that does not read), ZB_EIO, ZB_ENOMEM; ctx->err
 * names the catalog and the table.
 */
int zb_table_load(zb_table **out, zb_catalog *cat, zb_ctx *ctx,
                  const char *name);

/* NULL is fine. */
void zb_table_free(zb_table *table);

/* The name it was loaded by; borrowed from the table. */
const char *zb_table_name(const zb_table *table);

/* The Iceberg format version: 1, 2 or 3. */
int zb_table_format_version(const zb_table *table);

/* The id of the current snapshot, or -1 when the table has none. */
int64_t zb_table_current_snapshot_id(const zb_table *table);

/* The table's location as its metadata records it (for a folder that was
 * copied or moved, where it was written); borrowed. */
const char *zb_table_location(const zb_table *table);

/* The metadata file that was loaded; borrowed. */
const char *zb_table_metadata_location(const zb_table *table);

#ifdef __cplusplus
}
#endif
#endif

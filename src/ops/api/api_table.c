/*
 * ops/api/api_table.c - include/zamboni/table.h: a table loaded through
 * the catalog, and the little of it the public API shows.
 *
 * The public zb_table is the library's own (catalog/catalog.h), opaque to
 * programs: zb_table_load is zb_catalog_load_table with the output first,
 * and zb_table_free is the catalog layer's. The getters read the loaded
 * metadata.
 */
#define ZB_MODULE "api"

#include "catalog/catalog.h"
#include "util/err.h"
#include "zamboni/table.h"

int zb_table_load(zb_table **out, zb_catalog *cat, zb_ctx *ctx,
                  const char *name)
{
    ZB_ASSERT_ARG(out && cat && ctx && name);
    return zb_catalog_load_table(cat, ctx, name, out);
}

const char *zb_table_name(const zb_table *table)
{
    return table->ident;
}

int zb_table_format_version(const zb_table *table)
{
    return table->meta->format_version;
}

int64_t zb_table_current_snapshot_id(const zb_table *table)
{
    int64_t id = table->meta->current_snapshot_id;

    return id == ICE_NO_SNAPSHOT ? -1 : id;
}

const char *zb_table_location(const zb_table *table)
{
    return table->meta->location;
}

const char *zb_table_metadata_location(const zb_table *table)
{
    return table->metadata_location;
}

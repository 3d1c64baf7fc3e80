/*
 * catalog/sql/catalog_sql.h - private to src/catalog: the SQL catalog
 * (catalog_sql.c) over a zb_sqldb (sqldb.h: SQLite or PostgreSQL).
 */
#ifndef ZB_CATALOG_CATALOG_SQL_H
#define ZB_CATALOG_CATALOG_SQL_H

#include "catalog/catalog_int.h"
#include "catalog/sql/sqldb.h"

/*
 * Finishes opening an SQL catalog on db: creates the tables when missing
 * (Iceberg JdbcCatalog's schema, with iceberg_type), notes whether
 * iceberg_type exists (tables made by PyIceberg lack it), and sets
 * c->ops. Takes one reference of db over (dropped on failure too).
 */
int zb_catalog__sql_open(zb_catalog *c, zb_ctx *ctx,
                         const zb_catalog_config *cfg, zb_sqldb *db);

#endif

# catalog: one interface over the catalogs (src/catalog/catalog.h). Defines
# the library zb_catalog: dispatch and table helpers (catalog.c), table
# folders (catalog_path.c), the commit steps the SQL and folder catalogs
# share (catalog_commit.c), the SQL catalog with Iceberg's JDBC schema
# (catalog_sql.c) on SQLite (catalog_sqlite.c) and PostgreSQL
# (catalog_pg.c, built when pkg-config finds libpq: ZB_HAVE_PG), and the
# commit retry policy (catalog_retry.c). sqlite3 and libpq belong to this
# library alone and are linked PRIVATE. The REST backend adds its sources
# from cmake/catalog_rest.cmake.
if(NOT TARGET PkgConfig::JANSSON)
  pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
endif()
pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3)
pkg_check_modules(LIBPQ IMPORTED_TARGET libpq)

add_library(zb_catalog STATIC
  src/catalog/catalog.c src/catalog/catalog_commit.c
  src/catalog/catalog_path.c src/catalog/catalog_sql.c
  src/catalog/catalog_sqlite.c src/catalog/catalog_retry.c)
target_link_libraries(zb_catalog PUBLIC zb_table_commit zb_table_manifest
  zb_table_metadata zb_io zb_util PkgConfig::JANSSON Threads::Threads
  PRIVATE PkgConfig::SQLITE3)
if(LIBPQ_FOUND)
  target_sources(zb_catalog PRIVATE src/catalog/catalog_pg.c)
  target_link_libraries(zb_catalog PRIVATE PkgConfig::LIBPQ)
  set_source_files_properties(src/catalog/catalog.c PROPERTIES
    COMPILE_DEFINITIONS ZB_HAVE_PG=1)
endif()

# Tests of the catalog layer: one suite parameterized by backend (SQLite
# always; PostgreSQL when ZB_TEST_PG_URL names a server, as
# scripts/pg-test.sh provides) and the table-folder suite on the fixtures.
add_executable(test_catalog unit/catalog/cat_main.c unit/catalog/cat_test.c
  unit/catalog/cat_sql.c unit/catalog/cat_path.c unit/catalog/cat_retry.c
  unit/catalog/cat_s3.c unit/catalog/cat_fence.c)
target_include_directories(test_catalog PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/catalog)
target_compile_definitions(test_catalog PRIVATE
  ZB_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/../shared/fixtures")
# sqlite3 builds a database as PyIceberg makes it.
target_link_libraries(test_catalog PRIVATE zbtest zb_catalog zb_io zb_util
  PkgConfig::SQLITE3 Threads::Threads)
# libpq lets a case close the catalog's server connections.
if(LIBPQ_FOUND)
  target_link_libraries(test_catalog PRIVATE PkgConfig::LIBPQ)
  target_compile_definitions(test_catalog PRIVATE ZB_TEST_HAVE_LIBPQ=1)
endif()
# The REST client's test server (rest_server.c) runs the cases that
# hold for every catalog against REST too.
pkg_check_modules(MHD IMPORTED_TARGET libmicrohttpd)
if(MHD_FOUND)
  target_sources(test_catalog PRIVATE unit/catalog/rest_server.c)
  target_link_libraries(test_catalog PRIVATE PkgConfig::MHD zb_table_commit)
  target_compile_definitions(test_catalog PRIVATE
    ZB_TEST_HAVE_REST_SERVER=1)
endif()
add_test(NAME test_catalog COMMAND test_catalog)
set_tests_properties(test_catalog PROPERTIES LABELS unit TIMEOUT 300)

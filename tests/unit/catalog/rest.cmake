# Tests of the REST catalog client (src/catalog/catalog_rest*.c) against an
# in-process test server on libmicrohttpd (rest_server.c): every call,
# pagination, auth and token refresh, each injected fault, commit
# conflicts and unknown outcomes; vended S3 keys refreshed through
# loadCredentials (rest_vended.c); and the reply parsers alone.
pkg_check_modules(MHD REQUIRED IMPORTED_TARGET libmicrohttpd)
add_executable(test_catalog_rest unit/catalog/rest_main.c
  unit/catalog/rest_calls.c unit/catalog/rest_faults.c
  unit/catalog/rest_parse.c unit/catalog/rest_writers.c
  unit/catalog/rest_fixture.c unit/catalog/rest_vended.c
  unit/catalog/rest_server.c)
target_link_libraries(test_catalog_rest PRIVATE zbtest zb_catalog
  zb_table_commit zb_table_metadata zb_io zb_util PkgConfig::JANSSON
  PkgConfig::MHD Threads::Threads)
add_test(NAME test_catalog_rest COMMAND test_catalog_rest)
set_tests_properties(test_catalog_rest PROPERTIES LABELS unit TIMEOUT 300)

# The same server as a process, for the command-line tests of tables on S3
# (tests/s3/s3_creds_refresh.sh): it vends temporary keys.
add_executable(zb-test-rest-server unit/catalog/rest_server_main.c
  unit/catalog/rest_server.c)
target_include_directories(zb-test-rest-server PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/catalog)
target_link_libraries(zb-test-rest-server PRIVATE zb_catalog zb_table_commit
  zb_table_metadata zb_io zb_util PkgConfig::JANSSON PkgConfig::MHD
  Threads::Threads)

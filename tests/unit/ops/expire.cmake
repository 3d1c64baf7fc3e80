# test_ops_expire: expire and remove-orphans (src/ops/expire*.c,
# orphans.c, reach*.c) on generated tables (SQLite and PATH catalogs in a
# temporary folder) and on copies of the fixture tables.
add_executable(test_ops_expire unit/ops/expire_main.c unit/ops/expire_util.c
  unit/ops/expire_reach.c unit/ops/expire_gen.c unit/ops/orphans_gen.c
  unit/ops/orphans_fixtures.c unit/ops/expire_torture.c)
target_include_directories(test_ops_expire PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/ops)
target_link_libraries(test_ops_expire PRIVATE zbtest zb_ops zb_plan
  zb_catalog zb_exec zb_io zb_util)
target_compile_definitions(test_ops_expire PRIVATE
  ZB_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/../shared/fixtures")
add_test(NAME test_ops_expire COMMAND test_ops_expire)
set_tests_properties(test_ops_expire PROPERTIES LABELS unit TIMEOUT 600)

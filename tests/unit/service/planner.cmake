# Tests of serve's planner (src/service/planner/): generated tables in a
# SQLite catalog (the operation suites' fixture kit), the queue on SQLite
# and on PostgreSQL when ZB_TEST_PG_URL names a server.
add_executable(test_service_planner unit/service/test_planner.c
  unit/service/queue_env.c unit/ops/ops_fixture.c
  unit/ops/ops_fixture_files.c)
target_include_directories(test_service_planner PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/service ${CMAKE_CURRENT_SOURCE_DIR}/unit/ops)
target_link_libraries(test_service_planner PRIVATE zbtest zb_service_planner
  zb_ops zb_plan zb_catalog zb_io zb_util PkgConfig::JANSSON Threads::Threads)
target_compile_definitions(test_service_planner PRIVATE
  ZB_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/../shared/fixtures")
add_test(NAME test_service_planner COMMAND test_service_planner)
set_tests_properties(test_service_planner PROPERTIES LABELS unit TIMEOUT 300)

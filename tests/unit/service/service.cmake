# Tests of service/: the task queue on SQLite always and on PostgreSQL
# when ZB_TEST_PG_URL names a server (scripts/pg-test.sh provides one;
# each case in a schema of its own), and the size classes.
add_executable(test_service unit/service/main.c unit/service/queue_env.c
  unit/service/test_queue.c unit/service/test_size_class.c)
target_include_directories(test_service PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/service)
target_link_libraries(test_service PRIVATE zbtest zb_service_queue
  zb_catalog zb_io zb_util PkgConfig::JANSSON Threads::Threads)
add_test(NAME test_service COMMAND test_service)
set_tests_properties(test_service PROPERTIES LABELS unit TIMEOUT 300)
include(${CMAKE_CURRENT_LIST_DIR}/planner.cmake)

# Tests of the row stream (plan/read/scan_read.h): hand-made tables with every
# kind of delete, spilling, schema evolution, name mapping and corrupt
# delete files (read_deletes.c, read_schema.c), and fixture tables read
# through the planner, checked against facts of their README and of the
# files themselves (read_fixtures.c).
add_executable(test_plan_read unit/plan/read_main.c unit/plan/read_util.c
  unit/plan/read_deletes.c unit/plan/read_schema.c
  unit/plan/read_fixtures.c)
target_include_directories(test_plan_read PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/plan)
target_link_libraries(test_plan_read PRIVATE zbtest zb_plan zb_parquet
  zb_exec zb_io zb_util Threads::Threads)
target_compile_definitions(test_plan_read PRIVATE
  ZB_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/../shared/fixtures")
add_test(NAME test_plan_read COMMAND test_plan_read)
set_tests_properties(test_plan_read PROPERTIES LABELS unit TIMEOUT 300)

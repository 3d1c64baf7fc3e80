# Tests of plan part scan: every snapshot of every fixture table planned
# and checked against a naive reference of the spec's rules, facts read by
# hand from fixture manifests, the filter, corrupt and truncated
# manifests, and allocation-failure torture.
add_executable(test_plan_scan unit/plan/scan_main.c unit/plan/scan_util.c
  unit/plan/scan_fixtures.c unit/plan/scan_filter.c unit/plan/scan_bad.c)
target_include_directories(test_plan_scan PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/plan)
target_link_libraries(test_plan_scan PRIVATE zbtest zb_plan zb_io zb_util)
target_compile_definitions(test_plan_scan PRIVATE
  ZB_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/../shared/fixtures")
add_test(NAME test_plan_scan COMMAND test_plan_scan)
set_tests_properties(test_plan_scan PROPERTIES LABELS unit TIMEOUT 300)

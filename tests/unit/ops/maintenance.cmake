# test_ops_maintenance: the maintenance run of one table at the library
# level (src/ops/maintenance_run.c), dry runs on fixture copies: the six
# operations in the fixed order, a subset in it, the stop after an abort,
# disabled sections.
add_executable(test_ops_maintenance unit/ops/maint_order_test.c)
target_link_libraries(test_ops_maintenance PRIVATE zbtest zb_ops zb_plan
  zb_catalog zb_exec zb_io zb_util)
target_compile_definitions(test_ops_maintenance PRIVATE
  ZB_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/../shared/fixtures")
add_test(NAME test_ops_maintenance COMMAND test_ops_maintenance)
set_tests_properties(test_ops_maintenance PROPERTIES LABELS unit TIMEOUT 300)

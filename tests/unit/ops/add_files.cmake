# Tests of add-files (src/ops/add_files*.c) on files our Parquet writer
# makes, through the PATH catalog; and the interop test: DuckDB writes
# hive-partitioned files without field ids, `zamboni add-files` registers
# them, and the independent reader (tests/interop/scan_reference.mjs) must
# read DuckDB's rows back (tests/interop/add_files.mjs).
add_executable(test_ops_add_files unit/ops/add_files_test.c)
target_link_libraries(test_ops_add_files PRIVATE zbtest zb_ops)
add_test(NAME test_ops_add_files COMMAND test_ops_add_files)
set_tests_properties(test_ops_add_files PROPERTIES LABELS unit
  TIMEOUT 600)
find_program(ZB_NODE NAMES node nodejs)
if(ZB_NODE)
  add_test(NAME interop_add_files COMMAND ${ZB_NODE}
    ${CMAKE_CURRENT_SOURCE_DIR}/interop/add_files.mjs
    $<TARGET_FILE:zamboni> ${CMAKE_CURRENT_BINARY_DIR}/add-files-work
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(interop_add_files PROPERTIES LABELS interop
    TIMEOUT 300)
endif()

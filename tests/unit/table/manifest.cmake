# Tests of table part manifests: the sample table (manifest_sample.c)
# written and read back for v1, v2 and v3, inheritance rules, path
# remapping, writer refusals, and truncated, corrupted and id-less files.
add_executable(test_table_manifest unit/table/manifest_main.c
  unit/table/manifest.c unit/table/manifest_sample.c)
target_include_directories(test_table_manifest PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/table)
target_link_libraries(test_table_manifest PRIVATE zbtest zb_table_manifest
  zb_io zb_util)
add_test(NAME test_table_manifest COMMAND test_table_manifest)
set_tests_properties(test_table_manifest PROPERTIES LABELS unit TIMEOUT 300)

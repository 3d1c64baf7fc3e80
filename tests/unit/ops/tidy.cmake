# Tests of apply-properties, remove-dangling-deletes and rewrite-manifests
# (src/ops/apply_properties.c, remove_dangling_deletes.c,
# rewrite_manifests/) on generated
# tables and copies of the fixture tables, through the PATH catalog.
add_executable(test_ops_tidy unit/ops/tidy_main.c unit/ops/ops_fixture.c
  unit/ops/ops_fixture_files.c
  unit/ops/tidy_props.c unit/ops/tidy_dangling.c unit/ops/tidy_rewrite.c
  unit/ops/tidy_faults.c unit/ops/tidy_settings.c)
target_include_directories(test_ops_tidy PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/ops)
target_link_libraries(test_ops_tidy PRIVATE zbtest zb_ops zb_plan
  Threads::Threads)
target_compile_definitions(test_ops_tidy PRIVATE
  ZB_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/../shared/fixtures")
add_test(NAME test_ops_tidy COMMAND test_ops_tidy)
set_tests_properties(test_ops_tidy PROPERTIES LABELS unit TIMEOUT 600)

# The rewritten v2 and v3 tables kept and read with avsc
# (tests/interop/tidy_manifests.mjs): field ids, EXISTING entries with
# explicit snapshot ids and sequence numbers, counts, the same files.
find_program(ZB_NODE NAMES node nodejs)
set(_zb_tidy_out ${CMAKE_CURRENT_BINARY_DIR}/tidy-tables)
if(ZB_NODE)
  add_test(NAME test_ops_tidy_tables COMMAND sh -c
    "rm -rf '${_zb_tidy_out}' && mkdir -p '${_zb_tidy_out}' && ZB_TIDY_OUT='${_zb_tidy_out}' '$<TARGET_FILE:test_ops_tidy>' rewrite__v2 rewrite__v3")
  set_tests_properties(test_ops_tidy_tables PROPERTIES
    LABELS unit FIXTURES_SETUP zb_tidy_tables TIMEOUT 300)
  add_test(NAME test_ops_tidy_avsc COMMAND ${ZB_NODE}
    ${CMAKE_CURRENT_SOURCE_DIR}/interop/tidy_manifests.mjs ${_zb_tidy_out})
  set_tests_properties(test_ops_tidy_avsc PROPERTIES
    LABELS "unit;interop" FIXTURES_REQUIRED zb_tidy_tables TIMEOUT 300)
endif()

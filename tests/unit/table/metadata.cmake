# Tests of table part metadata: synthetic documents (every type, setters,
# bad input, allocation-failure torture, finding the newest file) and the
# metadata of every fixture table in ../shared/fixtures (skipped with a
# note when that directory is missing).
add_executable(test_table_metadata unit/table/metadata_main.c
  unit/table/metadata.c unit/table/metadata_update.c
  unit/table/metadata_fixtures.c)
target_link_libraries(test_table_metadata PRIVATE zbtest zb_table_metadata
  zb_io zb_util PkgConfig::JANSSON)
target_compile_definitions(test_table_metadata PRIVATE
  ZB_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/../shared/fixtures")
add_test(NAME test_table_metadata COMMAND test_table_metadata)
set_tests_properties(test_table_metadata PROPERTIES LABELS unit TIMEOUT 300)

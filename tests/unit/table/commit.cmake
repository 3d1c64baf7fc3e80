# Tests of table part commits: requirements, every TableUpdate action,
# all or nothing, allocation-failure torture (commit_apply.c); the
# snapshot producer on tables in a temporary folder, v1 to v3
# (commit_snap.c); new table metadata, file names, pruning and the
# update builders (commit_create.c); replace and delete on copies of the
# fixture tables (commit_fixtures.c).
add_executable(test_table_commit unit/table/commit_main.c
  unit/table/commit_apply.c unit/table/commit_snap.c
  unit/table/commit_create.c unit/table/commit_fixtures.c)
target_include_directories(test_table_commit PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/table)
target_link_libraries(test_table_commit PRIVATE zbtest zb_table_commit
  zb_io zb_util PkgConfig::JANSSON)
target_compile_definitions(test_table_commit PRIVATE
  ZB_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/../shared/fixtures")
add_test(NAME test_table_commit COMMAND test_table_commit)
set_tests_properties(test_table_commit PROPERTIES LABELS unit TIMEOUT 300)

# The tables of the commit_snap v1-v3 cases kept in a folder and read with
# avsc by commit_check.mjs (field ids, counts, inheritance, totals).
find_program(ZB_NODE NAMES node nodejs)
set(_zb_commit_out ${CMAKE_CURRENT_BINARY_DIR}/commit-tables)
if(ZB_NODE)
  add_test(NAME test_table_commit_tables COMMAND sh -c
    "rm -rf '${_zb_commit_out}' && mkdir -p '${_zb_commit_out}' && ZB_COMMIT_OUT='${_zb_commit_out}' '$<TARGET_FILE:test_table_commit>' snap__v")
  set_tests_properties(test_table_commit_tables PROPERTIES
    LABELS unit FIXTURES_SETUP zb_commit_tables TIMEOUT 300)
  add_test(NAME test_table_commit_avsc COMMAND ${ZB_NODE}
    ${CMAKE_CURRENT_SOURCE_DIR}/unit/table/commit_check.mjs ${_zb_commit_out})
  set_tests_properties(test_table_commit_avsc PROPERTIES
    LABELS "unit;interop" FIXTURES_REQUIRED zb_commit_tables TIMEOUT 300)
endif()

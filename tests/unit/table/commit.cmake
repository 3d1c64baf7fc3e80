# Tests of table part commits: requirements, every TableUpdate action,
# all or nothing, allocation-failure torture (commit_apply.c); the
# snapshot producer on tables in a temporary folder, v1 to v3
# (commit_snap.c).
add_executable(test_table_commit unit/table/commit_main.c
  unit/table/commit_apply.c unit/table/commit_snap.c)
target_include_directories(test_table_commit PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/table)
target_link_libraries(test_table_commit PRIVATE zbtest zb_table_commit
  zb_io zb_util PkgConfig::JANSSON)
add_test(NAME test_table_commit COMMAND test_table_commit)
set_tests_properties(test_table_commit PROPERTIES LABELS unit TIMEOUT 300)

# The public API for embedding (include/zamboni/{catalog,table,ops}.h,
# src/ops/api/), tested through include/ alone: like the example, each
# target here has only include/ (and the harness) on its include path and
# links the libraries $<LINK_ONLY:...> through an INTERFACE target, so
# none of src/'s headers is reachable.
#   test_api             the facade's error paths (bad catalog URIs, missing
#                        tables, option versions, compaction's columns, the
#                        orphan age guard), the table getters and a dry run
#                        on a table zb-table-gen writes (label unit)
#   test_api_example     examples/compact_and_expire on a table folder of 16
#                        small files, checked with the zamboni executable:
#                        rows unchanged, fewer data files (label unit)
add_library(zb_test_embed INTERFACE)
target_link_libraries(zb_test_embed INTERFACE $<LINK_ONLY:zbtest>
  $<LINK_ONLY:zb_api>)

add_executable(test_api ${CMAKE_CURRENT_LIST_DIR}/api_test.c)
target_link_libraries(test_api PRIVATE zb_test_embed)
set_target_properties(test_api PROPERTIES INCLUDE_DIRECTORIES
  "${PROJECT_SOURCE_DIR}/include;${PROJECT_SOURCE_DIR}/tests/harness")
target_compile_definitions(test_api PRIVATE
  ZB_TABLE_GEN="$<TARGET_FILE:zb-table-gen>")
add_dependencies(test_api zb-table-gen)
add_test(NAME test_api COMMAND test_api)
set_tests_properties(test_api PROPERTIES LABELS unit TIMEOUT 300)

add_test(NAME test_api_example
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/example_test.sh
          $<TARGET_FILE:zamboni> $<TARGET_FILE:compact_and_expire>
          $<TARGET_FILE:zb-table-gen>)
set_tests_properties(test_api_example PROPERTIES LABELS unit TIMEOUT 300)

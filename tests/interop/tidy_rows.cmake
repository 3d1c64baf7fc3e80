# remove-dangling-deletes and rewrite-manifests on fixture copies, the
# rows checked by the independent reader (tidy_rows.mjs).
find_program(ZB_NODE NAMES node nodejs)
add_test(NAME interop_tidy_rows
  COMMAND ${ZB_NODE} ${CMAKE_CURRENT_LIST_DIR}/tidy_rows.mjs
          $<TARGET_FILE:zamboni> ${PROJECT_SOURCE_DIR}/../shared/fixtures
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(interop_tidy_rows PROPERTIES LABELS interop
  TIMEOUT 300)

# Tables built by the table-writing API, read by icebird (table_write.mjs):
# several processes appending at once through the SQLite catalog lose no
# commit, and the rows read back are the rows written minus the deletes.
find_program(ZB_NODE NAMES node nodejs)
add_test(NAME interop_table_write_concurrent
  COMMAND ${ZB_NODE} ${CMAKE_CURRENT_LIST_DIR}/table_write.mjs
          $<TARGET_FILE:zb-table-gen> 4 6 50 2
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
add_test(NAME interop_table_write_v3
  COMMAND ${ZB_NODE} ${CMAKE_CURRENT_LIST_DIR}/table_write.mjs
          $<TARGET_FILE:zb-table-gen> 2 3 40 3
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(interop_table_write_concurrent interop_table_write_v3
  PROPERTIES LABELS interop TIMEOUT 300)

# Compaction of a hot table (issue 21): zb-hot-writer appends and deletes
# by position every 40 ms for 25 s on a table partitioned by day over two
# days (a folder table on v2, and a v3 table with deletion vectors in the
# SQLite catalog); compact_hot.mjs runs `zamboni compact` three times 5 s
# apart meanwhile and checks that every planned group commits (or the
# report names why not), that concurrent deletes were carried, and that
# the live rows are exactly the writer's account, read by DuckDB (data
# and delete files), the reference reader (hyparquet) and icebird.
add_executable(zb-hot-writer ${PROJECT_SOURCE_DIR}/tools/zb_hot_writer.c)
target_link_libraries(zb-hot-writer PRIVATE zb_ops)
find_program(ZB_NODE NAMES node nodejs)
add_test(NAME interop_compact_hot
  COMMAND ${ZB_NODE} ${CMAKE_CURRENT_LIST_DIR}/compact_hot.mjs
          $<TARGET_FILE:zamboni> $<TARGET_FILE:zb-hot-writer>
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(interop_compact_hot PROPERTIES LABELS interop
  TIMEOUT 240)

# Compaction of streaming-like tables (issue 8): zb-stream-gen builds a
# partitioned and an unpartitioned table of many small appends with
# position and equality deletes and a schema and spec change;
# compact_stream.mjs compacts them with `zamboni compact`, compares the
# live rows before and after with the independent reader
# (scan_reference.mjs) and checks the data file count per partition
# against ceil(bytes / target) + 1, and a sorted run's files are sorted.
add_executable(zb-stream-gen ${PROJECT_SOURCE_DIR}/tools/zb_stream_gen.c)
target_link_libraries(zb-stream-gen PRIVATE zb_ops)
find_program(ZB_NODE NAMES node nodejs)
add_test(NAME interop_compact_stream
  COMMAND ${ZB_NODE} ${CMAKE_CURRENT_LIST_DIR}/compact_stream.mjs
          $<TARGET_FILE:zamboni> $<TARGET_FILE:zb-stream-gen>
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(interop_compact_stream PROPERTIES LABELS interop
  TIMEOUT 400)

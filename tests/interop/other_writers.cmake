# Tables as other writers leave them (issue 22): gzip-compressed metadata
# in a table folder and in the SQLite catalog, a v1 table upgraded to v3
# with v1 (one with an older writer's sequence_number field), v2 and v3
# manifests, a metadata file with a free name named directly, Hadoop
# checksum files, and bad gzip metadata. Each shape is built by the script
# (DuckDB writes the Parquet files, node's zlib and avsc the other
# writer's files, the sqlite3 CLI its catalog commit); scan, compact,
# expire and remove-orphans are checked against scan_reference.mjs.
find_program(ZB_NODE NAMES node nodejs)
add_test(NAME interop_other_writers
  COMMAND ${ZB_NODE} ${CMAKE_CURRENT_LIST_DIR}/other_writers.mjs
          $<TARGET_FILE:zamboni> ${CMAKE_CURRENT_BINARY_DIR}/other_writers
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(interop_other_writers PROPERTIES LABELS interop
  TIMEOUT 120)

# The Parquet writer's page index (pq_writer_opts.page_index) read by
# independent readers (page_index.mjs): test_parquet_page_index leaves its
# files in page-index-files; hyparquet's readColumnIndex/readOffsetIndex
# must match the pages' own headers and statistics, and DuckDB must read
# each file as it reads the same rows written without an index.
find_program(ZB_NODE NAMES node nodejs)
if(NOT ZB_NODE)
  add_test(NAME interop_page_index COMMAND ${CMAKE_COMMAND}
    "-DMSG=node was not found at configure time; run scripts/install-deps.sh and re-run cmake"
    -P ${CMAKE_CURRENT_LIST_DIR}/fail.cmake)
else()
  add_test(NAME interop_page_index
    COMMAND ${ZB_NODE} ${CMAKE_CURRENT_LIST_DIR}/page_index.mjs
            --gen $<TARGET_FILE:test_parquet_page_index>
            --out ${CMAKE_BINARY_DIR}/page-index-files)
endif()
set_tests_properties(interop_page_index PROPERTIES LABELS interop TIMEOUT 600)

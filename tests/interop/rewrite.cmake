# The Parquet writer checked by DuckDB: every fixture file and every corpus
# file is copied through zb-parquet-copy (our reader into our writer) and
# DuckDB must read the same values and field ids from the copy as from the
# original (compare_rewrite.mjs); and again with row-group copy, where the
# compressed pages are copied as they are and only the footer is new; and
# hyparquet and arrow-rs (parquet-wasm) read the rewritten files too.
if(ZB_NODE)
  add_test(NAME interop_parquet_rewrite_fixtures
    COMMAND ${ZB_NODE} ${CMAKE_CURRENT_LIST_DIR}/compare_rewrite.mjs
            --copy $<TARGET_FILE:zb-parquet-copy>
            --out ${CMAKE_BINARY_DIR}/rewrite-fixtures
            ${PROJECT_SOURCE_DIR}/../shared/fixtures)
  add_test(NAME interop_parquet_rewrite_corpus
    COMMAND ${ZB_NODE} ${CMAKE_CURRENT_LIST_DIR}/compare_rewrite.mjs
            --copy $<TARGET_FILE:zb-parquet-copy>
            --out ${CMAKE_BINARY_DIR}/rewrite-corpus
            ${CMAKE_BINARY_DIR}/parquet-corpus)
  add_test(NAME interop_parquet_row_group_copy
    COMMAND ${ZB_NODE} ${CMAKE_CURRENT_LIST_DIR}/compare_rewrite.mjs
            --copy $<TARGET_FILE:zb-parquet-copy> --row-group-copy
            --out ${CMAKE_BINARY_DIR}/rewrite-row-groups
            ${PROJECT_SOURCE_DIR}/../shared/fixtures
            ${CMAKE_BINARY_DIR}/parquet-corpus)
  set_tests_properties(interop_parquet_rewrite_corpus
    interop_parquet_row_group_copy PROPERTIES
    FIXTURES_REQUIRED zb_parquet_corpus)
  # The files our writer made, read by hyparquet as a second reader.
  add_test(NAME interop_parquet_written_hyparquet
    COMMAND ${ZB_NODE} ${CMAKE_CURRENT_LIST_DIR}/compare_parquet.mjs
            --cat $<TARGET_FILE:zb-parquet-cat> --reader hyparquet
            ${CMAKE_BINARY_DIR}/rewrite-fixtures)
  # And by arrow-rs (npm parquet-wasm), as a third reader.
  add_test(NAME interop_parquet_written_arrow_rs
    COMMAND ${ZB_NODE} ${CMAKE_CURRENT_LIST_DIR}/compare_arrow_rs.mjs
            ${CMAKE_BINARY_DIR}/rewrite-fixtures
            ${CMAKE_BINARY_DIR}/rewrite-corpus)
  set_tests_properties(interop_parquet_written_arrow_rs PROPERTIES
    FIXTURES_REQUIRED "zb_parquet_rewritten;zb_parquet_rewritten_corpus")
  # Page statistics in the written files against DuckDB, page by page.
  add_test(NAME interop_parquet_page_stats
    COMMAND ${ZB_NODE} ${CMAKE_CURRENT_LIST_DIR}/compare_page_stats.mjs
            ${CMAKE_BINARY_DIR}/rewrite-fixtures
            ${CMAKE_BINARY_DIR}/rewrite-corpus)
  set_tests_properties(interop_parquet_page_stats PROPERTIES
    FIXTURES_REQUIRED "zb_parquet_rewritten;zb_parquet_rewritten_corpus")
  set_tests_properties(interop_parquet_rewrite_corpus PROPERTIES
    FIXTURES_SETUP zb_parquet_rewritten_corpus)
  set_tests_properties(interop_parquet_rewrite_fixtures PROPERTIES
    FIXTURES_SETUP zb_parquet_rewritten)
  set_tests_properties(interop_parquet_written_hyparquet PROPERTIES
    FIXTURES_REQUIRED zb_parquet_rewritten)
  set_tests_properties(interop_parquet_rewrite_fixtures
    interop_parquet_rewrite_corpus interop_parquet_row_group_copy
    interop_parquet_written_hyparquet interop_parquet_written_arrow_rs
    interop_parquet_page_stats
    PROPERTIES LABELS interop TIMEOUT 1200)
endif()

# Statistics our Parquet writer puts in its files, checked by independent
# readers (compare_stats.mjs): per row group, the footer's min, max and
# null count as DuckDB and hyparquet read them must equal what DuckDB
# computes from that row group's rows; and the Iceberg metrics of the file
# (zb-parquet-copy --iceberg-metrics full) must equal DuckDB's counts,
# min and max over the file for top-level primitive columns. On the
# fixture files and on the generated corpus.
if(ZB_NODE)
  add_test(NAME interop_parquet_stats_fixtures
    COMMAND ${ZB_NODE} ${CMAKE_CURRENT_LIST_DIR}/compare_stats.mjs
            --copy $<TARGET_FILE:zb-parquet-copy>
            --out ${CMAKE_BINARY_DIR}/stats-fixtures
            ${PROJECT_SOURCE_DIR}/../shared/fixtures)
  add_test(NAME interop_parquet_stats_corpus
    COMMAND ${ZB_NODE} ${CMAKE_CURRENT_LIST_DIR}/compare_stats.mjs
            --copy $<TARGET_FILE:zb-parquet-copy>
            --out ${CMAKE_BINARY_DIR}/stats-corpus
            ${CMAKE_BINARY_DIR}/parquet-corpus)
  set_tests_properties(interop_parquet_stats_corpus PROPERTIES
    FIXTURES_REQUIRED zb_parquet_corpus)
  set_tests_properties(interop_parquet_stats_fixtures
    interop_parquet_stats_corpus PROPERTIES LABELS interop TIMEOUT 1200)
endif()

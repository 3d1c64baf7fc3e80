# Tests of Iceberg data-file metrics (src/table/metrics/file_metrics.c): metrics modes
# and their properties, truncation and the upper bound's increment, NaN,
# -0.0, decimals, timestamps, fields in lists. The writer's numbers
# themselves are checked by DuckDB (tests/interop/compare_stats.mjs) and
# in test_parquet_reader (writer.c).
zb_add_unit_test(test_table_metrics unit/table/metrics_main.c
  unit/table/metrics.c)
target_link_libraries(test_table_metrics PRIVATE zb_table_metrics)

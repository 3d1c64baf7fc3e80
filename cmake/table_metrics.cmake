# table, part: metrics. Defines the library zb_table_metrics: Iceberg
# data-file metrics (column sizes, value, null and NaN counts, lower and
# upper bounds under the write.metadata.metrics.* modes, split offsets)
# made from the Parquet writer's per-leaf metrics (src/table/metrics.c).
add_library(zb_table_metrics STATIC src/table/metrics.c src/table/metrics_file.c)
target_link_libraries(zb_table_metrics PUBLIC zb_parquet zb_table_manifest zb_table_values
  zb_table_metadata zb_util)

# zb-parquet-copy --iceberg-metrics prints these metrics for the interop
# check (tests/interop/compare_stats.mjs).
if(TARGET zb-parquet-copy)
  target_link_libraries(zb-parquet-copy PRIVATE zb_table_metrics)
endif()

# ops, part: the table-writing API (create a table, append Parquet data
# files, add position and equality delete files), for tests, benchmarks,
# the demo, and compaction's output files.
add_library(zb_ops STATIC src/ops/table_write.c src/ops/table_settings.c)
target_link_libraries(zb_ops PUBLIC zb_catalog zb_table_commit zb_puffin
  zb_table_metrics zb_table_manifest zb_parquet zb_exec zb_util)

# zb-table-gen: tables made of many small appends from several processes
# (tests/interop/table_write.mjs checks them with icebird).
add_executable(zb-table-gen tools/zb_table_gen.c)
target_link_libraries(zb-table-gen PRIVATE zb_ops)

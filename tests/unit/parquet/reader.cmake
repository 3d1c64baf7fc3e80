# Tests of the Parquet reader and writer: the whole path from file to Arrow batches
# on the fixture tables' files, projection, row-group skipping, the
# memory budget, and truncated or corrupted files; Parquet's compression
# codec ids.
zb_add_unit_test(test_parquet_reader unit/parquet/reader_main.c
  unit/parquet/reader.c unit/parquet/schema.c unit/parquet/writer.c
  unit/parquet/writer_metrics.c unit/parquet/compression.c)
target_link_libraries(test_parquet_reader PRIVATE zb_parquet)
target_compile_definitions(test_parquet_reader PRIVATE
  ZB_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/../shared/fixtures")

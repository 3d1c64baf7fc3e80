# Tests of the Parquet writer's page index (pq_writer_opts.page_index):
# test_parquet_page_index (label unit) decodes the ColumnIndex and
# OffsetIndex of written files back and checks them against the pages.
zb_add_unit_test(test_parquet_page_index unit/parquet/page_index.c)
target_link_libraries(test_parquet_page_index PRIVATE zb_parquet)
target_compile_definitions(test_parquet_page_index PRIVATE
  ZB_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/../shared/fixtures")

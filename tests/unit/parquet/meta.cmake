# Tests of format/parquet part meta: the Thrift compact protocol reader,
# the footer and page header decoders, against hand-built bytes and the
# footers of every fixture file in ../shared/fixtures (skipped with a note
# when that directory is missing); the writers of both (meta_write.c: hand-
# checked bytes; meta_write_files.c: fixture round trips, a tiny file).
add_executable(test_parquet_meta unit/parquet/meta_main.c unit/parquet/meta.c
  unit/parquet/meta_write.c unit/parquet/meta_write_files.c)
target_link_libraries(test_parquet_meta PRIVATE zbtest zb_parquet_meta zb_util)
target_compile_definitions(test_parquet_meta PRIVATE
  ZB_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/../shared/fixtures")
add_test(NAME test_parquet_meta COMMAND test_parquet_meta)
set_tests_properties(test_parquet_meta PROPERTIES LABELS unit TIMEOUT 300)

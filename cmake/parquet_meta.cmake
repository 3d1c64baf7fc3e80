# format/parquet, part: meta. Defines the library zb_parquet_meta: the
# Thrift compact protocol reader and writer (pq_thrift.c,
# pq_thrift_write.c) and the decoders and encoders of the footer and page
# headers (pq_meta.c, pq_meta_write.c). It depends on util only.
add_library(zb_parquet_meta STATIC
  src/format/parquet/pq_thrift.c src/format/parquet/pq_meta.c
  src/format/parquet/pq_thrift_write.c src/format/parquet/pq_meta_write.c)
target_link_libraries(zb_parquet_meta PUBLIC zb_util)

# zb-parquet-write-demo: a tiny Parquet file written by pq_meta_write and
# pq_page_header_write, for the interop check of tests/interop
# (check_written_footer.mjs reads it with DuckDB and hyparquet).
add_executable(zb-parquet-write-demo tools/zb_parquet_write_demo.c)
target_link_libraries(zb-parquet-write-demo PRIVATE zb_parquet_meta zb_util)

# Fuzzing (tests/fuzz/fuzz.cmake): with clang, build libFuzzer binaries of
# the parsers besides the corpus replay tests that every build has.
option(ZB_FUZZ "Build libFuzzer targets (clang only)" OFF)

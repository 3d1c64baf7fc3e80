# format/parquet, part: encoding. Defines the library zb_parquet_encoding:
# the value and level encodings of Encodings.md as pure decoders
# (src/format/parquet/pq_encoding.h), and its micro benchmark.
add_library(zb_parquet_encoding STATIC
  src/format/parquet/pq_encoding.c
  src/format/parquet/pq_delta.c
  src/format/parquet/pq_bitpack.c)
target_link_libraries(zb_parquet_encoding PUBLIC zb_util)

if(ZB_BUILD_BENCH)
  add_executable(bench_parquet_encoding
    ${PROJECT_SOURCE_DIR}/bench/bench_parquet_encoding.c)
  target_link_libraries(bench_parquet_encoding PRIVATE zb_parquet_encoding
                        zb_util)
endif()

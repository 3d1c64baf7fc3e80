# format/parquet, part: meta. Defines the library zb_parquet_meta: the
# Thrift compact protocol reader (pq_thrift.c) and the decoders of the
# footer and page headers (pq_meta.c). It depends on util only.
add_library(zb_parquet_meta STATIC
  src/format/parquet/pq_thrift.c src/format/parquet/pq_meta.c)
target_link_libraries(zb_parquet_meta PUBLIC zb_util)

# Fuzzing (tests/fuzz/fuzz.cmake): with clang, build libFuzzer binaries of
# the parsers besides the corpus replay tests that every build has.
option(ZB_FUZZ "Build libFuzzer targets (clang only)" OFF)

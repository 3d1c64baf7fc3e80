# Tests of format/parquet part encoding: the decoders of pq_encoding.h
# against the examples of Encodings.md, reference encoders written from the
# specification, and pages written by DuckDB (tests/resources/encoding).
zb_add_unit_test(test_parquet_encoding
  ${CMAKE_CURRENT_LIST_DIR}/encoding_main.c
  ${CMAKE_CURRENT_LIST_DIR}/encoding.c
  ${CMAKE_CURRENT_LIST_DIR}/encoding_files.c)
target_link_libraries(test_parquet_encoding PRIVATE zb_parquet_encoding)
target_compile_definitions(test_parquet_encoding PRIVATE
  ZB_ENCODING_RESOURCES="${PROJECT_SOURCE_DIR}/tests/resources/encoding")

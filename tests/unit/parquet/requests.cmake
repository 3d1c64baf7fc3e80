# How many backend reads the Parquet and Avro readers make (each is a
# request on an object store), through a counting backend over local
# files; what they read must equal the local read.
zb_add_unit_test(test_format_requests unit/parquet/requests_main.c
  unit/parquet/requests.c)
target_link_libraries(test_format_requests PRIVATE zb_parquet zb_avro)
target_compile_definitions(test_format_requests PRIVATE
  ZB_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/../shared/fixtures")

# Tests of format/avro (one binary, label unit): schema parsing, every
# fixture manifest and manifest list read fully, truncated and corrupted
# copies, the checks on counts and sizes, a round trip of every type and
# codec, error messages, and allocation-failure torture.
zb_add_unit_test(test_avro unit/avro/avro_main.c unit/avro/ocf_read.c
  unit/avro/ocf_write.c unit/avro/sample.c)
target_link_libraries(test_avro PRIVATE zb_avro)
target_compile_definitions(test_avro PRIVATE
  ZB_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/../shared/fixtures")

# Tests of format/avro (one binary, label unit): schema parsing, every
# fixture manifest and manifest list read fully, truncated and corrupted
# copies, the checks on counts and sizes, a round trip of every type and
# codec, error messages, and allocation-failure torture.
zb_add_unit_test(test_avro unit/avro/avro_main.c unit/avro/ocf_read.c
  unit/avro/ocf_write.c unit/avro/sample.c unit/avro/schema_cache.c)
target_link_libraries(test_avro PRIVATE zb_avro)
target_compile_definitions(test_avro PRIVATE
  ZB_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/../shared/fixtures")
# Threads sharing the schema cache, for scripts/test.sh --tsan.
add_test(NAME test_avro_threads
  COMMAND test_avro test_avro_schema_cache__threads)
set_tests_properties(test_avro_threads PROPERTIES LABELS unit TIMEOUT 120)

# Interop tests of format/avro against avsc (npm, pinned in package.json;
# snappy and zstd through hyparquet-compressors' hysnappy and fzstd):
#   interop_avro_fixtures  zb-avro-cat vs avsc on every fixture .avro file
#                          (Spark, Impala, Trino, PyIceberg, Iceberg Java)
#   interop_avro_gen       zb-avro-gen writes the sample (every type, every
#                          codec, Iceberg ids) to ${CMAKE_BINARY_DIR}/avro-written
#   interop_avro_written   avsc decodes those files: values, metadata and the
#                          field-id/element-id/key-id/value-id attributes
# avro_c_decision.sh (manual) is the test behind not using avro-c.
find_program(ZB_NODE NAMES node nodejs)
set(_zb_avro_dir ${CMAKE_CURRENT_LIST_DIR})
add_executable(zb-avro-gen ${_zb_avro_dir}/gen_avro_files.c
  ${PROJECT_SOURCE_DIR}/tests/unit/avro/sample.c)
target_include_directories(zb-avro-gen PRIVATE
  ${PROJECT_SOURCE_DIR}/tests/unit/avro)
target_link_libraries(zb-avro-gen PRIVATE zb_avro)
if(NOT ZB_NODE)
  foreach(_t interop_avro_fixtures interop_avro_gen interop_avro_written)
    add_test(NAME ${_t} COMMAND ${CMAKE_COMMAND}
      "-DMSG=node was not found at configure time; run scripts/install-deps.sh and re-run cmake"
      -P ${CMAKE_CURRENT_SOURCE_DIR}/interop/fail.cmake)
  endforeach()
else()
  add_test(NAME interop_avro_fixtures
    COMMAND ${ZB_NODE} ${_zb_avro_dir}/compare_avro.mjs
            --cat $<TARGET_FILE:zb-avro-cat>
            ${PROJECT_SOURCE_DIR}/../shared/fixtures)
  add_test(NAME interop_avro_gen
    COMMAND zb-avro-gen ${CMAKE_BINARY_DIR}/avro-written)
  set_tests_properties(interop_avro_gen PROPERTIES
    FIXTURES_SETUP zb_avro_written)
  add_test(NAME interop_avro_written
    COMMAND ${ZB_NODE} ${_zb_avro_dir}/compare_avro.mjs
            --cat $<TARGET_FILE:zb-avro-cat> --written
            ${CMAKE_BINARY_DIR}/avro-written)
  set_tests_properties(interop_avro_written PROPERTIES
    FIXTURES_REQUIRED zb_avro_written)
endif()
set_tests_properties(interop_avro_fixtures interop_avro_gen
  interop_avro_written PROPERTIES LABELS interop TIMEOUT 600)

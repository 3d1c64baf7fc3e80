# The S3 backend (src/io/s3): its parsers alone (unit, no server), and
# every FileIO call against s3rver on loopback, started for the test by
# tests/unit/io/with_s3rver.sh (node, s3rver from node_modules).
add_executable(test_io_s3_parse unit/io/s3_main.c unit/io/s3_parse.c)
target_link_libraries(test_io_s3_parse PRIVATE zbtest zb_io zb_s3_xml zb_util)
add_test(NAME test_io_s3_parse COMMAND test_io_s3_parse)
set_tests_properties(test_io_s3_parse PROPERTIES LABELS unit TIMEOUT 60)

find_program(ZB_NODE NAMES node nodejs)
if(ZB_NODE)
  add_executable(test_io_s3 unit/io/s3_main.c unit/io/s3_server.c
    unit/io/s3_expired.c)
  target_compile_definitions(test_io_s3 PRIVATE ZB_TEST_S3_SERVER)
  target_link_libraries(test_io_s3 PRIVATE zbtest zb_io zb_util)
  add_test(NAME test_io_s3 COMMAND bash
    ${CMAKE_CURRENT_SOURCE_DIR}/unit/io/with_s3rver.sh ${ZB_NODE}
    ${PROJECT_SOURCE_DIR} $<TARGET_FILE:test_io_s3>)
  set_tests_properties(test_io_s3 PROPERTIES LABELS unit TIMEOUT 300)
endif()

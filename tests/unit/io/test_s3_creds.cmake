# The S3 credentials chain (src/io/s3/s3_creds*.c): the local sources in
# order, the reply and profile parsers, and STS web identity, container
# credentials and IMDSv2 against tests/s3/cred_endpoints.mjs, a node server
# on loopback that each case starts (ZB_NODE, ZB_CRED_ENDPOINTS).
find_program(ZB_NODE NAMES node nodejs)
add_executable(test_s3_creds unit/io/test_s3_creds_main.c
  unit/io/test_s3_creds_chain.c unit/io/test_s3_creds_parse.c
  unit/io/test_s3_creds_remote.c unit/io/test_s3_creds_refresh.c)
target_link_libraries(test_s3_creds PRIVATE zbtest zb_io
  zb_io_s3_creds_parse zb_util PkgConfig::CURL PkgConfig::JANSSON
  Threads::Threads)
if(ZB_NODE)
  add_test(NAME test_s3_creds COMMAND test_s3_creds)
  set_tests_properties(test_s3_creds PROPERTIES LABELS unit TIMEOUT 120
    ENVIRONMENT "ZB_NODE=${ZB_NODE};ZB_CRED_ENDPOINTS=${PROJECT_SOURCE_DIR}/tests/s3/cred_endpoints.mjs")
else()
  add_test(NAME test_s3_creds COMMAND ${CMAKE_COMMAND}
    "-DMSG=node was not found at configure time; run scripts/install-deps.sh and re-run cmake"
    -P ${PROJECT_SOURCE_DIR}/tests/interop/fail.cmake)
  set_tests_properties(test_s3_creds PROPERTIES LABELS unit)
endif()

# Tables on S3 (issue 16), against a real S3 server on loopback (s3rver,
# tests/s3/s3rver.mjs) and the independent client (@aws-sdk/client-s3),
# label s3; no request leaves loopback:
#   s3_proxy_selftest  the fault proxy (tests/s3/fault_proxy.mjs) on its
#                      own: the independent client through it, each fault
#                      kind, DeleteObjects per-key errors, multipart counts,
#                      Host header and bodies forwarded unchanged
#   s3_fixtures        every fixture table uploaded reads from s3:// as from
#                      disk (scan rows, --count, describe, plan); a path
#                      table on S3 refuses every committing verb (exit 3,
#                      "catalog"), nothing written
#   s3_demo            `zamboni demo --location s3://...` maintained end to
#                      end; the files zamboni wrote fetched with the
#                      independent client and read by DuckDB and hyparquet,
#                      rows equal before and after
#   s3_faults          through the proxy: 500/503 shares, resets, short
#                      bodies, slow replies, DeleteObjects per-key errors:
#                      every run completes or fails naming the store, live
#                      rows unchanged, no partial or temporary object, no
#                      multipart upload left open, nothing reported deleted
#                      that still exists
#   s3_multipart       the multipart threshold from flag, environment and
#                      zamboni.yml; faults on parts and completions; a lost
#                      completion reply (NoSuchUpload on the retry) taken
#                      as done when the object has our parts' ETag: rows
#                      unchanged, no upload left open
#   s3_creds_refresh   temporary keys (container credentials; a REST
#                      catalog's vended ones, zb-test-rest-server) that
#                      expire during a compaction: fetched again ahead of
#                      their expiry, or after the store's ExpiredToken (the
#                      proxy refuses expired key ids); the run completes
#   s3_bad_input       unknown bucket, unknown key id (403), an endpoint
#                      answering HTML, a listing that is not XML: exit 1,
#                      a message naming the store and key; doctor names the
#                      credentials source, never the secret
find_program(ZB_NODE NAMES node nodejs)
set(_zb_s3_tests s3_proxy_selftest s3_fixtures s3_demo s3_faults s3_bad_input
  s3_multipart s3_creds_refresh)
if(NOT ZB_NODE)
  foreach(_t ${_zb_s3_tests})
    add_test(NAME ${_t} COMMAND ${CMAKE_COMMAND}
      "-DMSG=node was not found at configure time; run scripts/install-deps.sh and re-run cmake"
      -P ${PROJECT_SOURCE_DIR}/tests/interop/fail.cmake)
    set_tests_properties(${_t} PROPERTIES LABELS s3)
  endforeach()
  return()
endif()
add_test(NAME s3_proxy_selftest
  COMMAND ${ZB_NODE} ${CMAKE_CURRENT_LIST_DIR}/proxy_selftest.mjs
          --s3rver ${CMAKE_CURRENT_LIST_DIR}/s3rver.mjs)
set_tests_properties(s3_proxy_selftest PROPERTIES LABELS s3 TIMEOUT 60)
foreach(_t s3_fixtures s3_demo s3_faults s3_bad_input s3_multipart)
  add_test(NAME ${_t}
    COMMAND ${CMAKE_COMMAND} -E env ZB_NODE=${ZB_NODE}
            bash ${CMAKE_CURRENT_LIST_DIR}/${_t}.sh $<TARGET_FILE:zamboni>
            ${PROJECT_SOURCE_DIR}/../shared/fixtures)
  set_tests_properties(${_t} PROPERTIES LABELS s3 TIMEOUT 300)
endforeach()
add_test(NAME s3_creds_refresh
  COMMAND ${CMAKE_COMMAND} -E env ZB_NODE=${ZB_NODE}
          bash ${CMAKE_CURRENT_LIST_DIR}/s3_creds_refresh.sh $<TARGET_FILE:zamboni>
          ${PROJECT_SOURCE_DIR}/../shared/fixtures
          $<TARGET_FILE:zb-test-rest-server>)
set_tests_properties(s3_creds_refresh PROPERTIES LABELS s3 TIMEOUT 300)

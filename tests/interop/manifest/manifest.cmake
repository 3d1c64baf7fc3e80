# Interop tests of table manifests against avsc (tests/interop/manifest):
#   interop_manifest_fixtures  zb-manifest-cat vs avsc_manifests.mjs on the
#                              current snapshot of every fixture table
#   interop_manifest_gen       zb-manifest-gen writes the sample table for
#                              v1, v2, v3 (partitioned and not) to
#                              ${CMAKE_BINARY_DIR}/manifest-written
#   interop_manifest_written   the same comparison on those tables, and
#                              check_written.mjs: the header schemas carry
#                              the spec's field ids
#   interop_manifest_icebird   icebird 0.3.1 lists the same live files
#                              (check_icebird.mjs says where it applies)
find_program(ZB_NODE NAMES node nodejs)
set(_zb_mf_dir ${CMAKE_CURRENT_LIST_DIR})
add_executable(zb-manifest-gen ${_zb_mf_dir}/gen_manifests.c
  ${PROJECT_SOURCE_DIR}/tests/unit/table/manifest_sample.c)
target_include_directories(zb-manifest-gen PRIVATE
  ${PROJECT_SOURCE_DIR}/tests/unit/table)
target_link_libraries(zb-manifest-gen PRIVATE zb_table_manifest)
if(NOT ZB_NODE)
  foreach(_t interop_manifest_fixtures interop_manifest_gen
             interop_manifest_written)
    add_test(NAME ${_t} COMMAND ${CMAKE_COMMAND}
      "-DMSG=node was not found at configure time; run scripts/install-deps.sh and re-run cmake"
      -P ${CMAKE_CURRENT_SOURCE_DIR}/interop/fail.cmake)
  endforeach()
else()
  add_test(NAME interop_manifest_fixtures
    COMMAND ${ZB_NODE} ${_zb_mf_dir}/avsc_manifests.mjs --compare
            --cat $<TARGET_FILE:zb-manifest-cat>
            ${PROJECT_SOURCE_DIR}/../shared/fixtures)
  add_test(NAME interop_manifest_gen
    COMMAND zb-manifest-gen ${CMAKE_BINARY_DIR}/manifest-written)
  set_tests_properties(interop_manifest_gen PROPERTIES
    FIXTURES_SETUP zb_manifest_written)
  add_test(NAME interop_manifest_written
    COMMAND ${ZB_NODE} ${_zb_mf_dir}/check_written.mjs
            --cat $<TARGET_FILE:zb-manifest-cat>
            ${CMAKE_BINARY_DIR}/manifest-written)
  add_test(NAME interop_manifest_icebird
    COMMAND ${ZB_NODE} ${_zb_mf_dir}/check_icebird.mjs
            --cat $<TARGET_FILE:zb-manifest-cat> --only v2-unpart,v3-unpart
            ${CMAKE_BINARY_DIR}/manifest-written)
  set_tests_properties(interop_manifest_written interop_manifest_icebird
    PROPERTIES FIXTURES_REQUIRED zb_manifest_written)
  set_tests_properties(interop_manifest_icebird PROPERTIES LABELS interop
    TIMEOUT 600)
endif()
set_tests_properties(interop_manifest_fixtures interop_manifest_gen
  interop_manifest_written PROPERTIES LABELS interop TIMEOUT 600)

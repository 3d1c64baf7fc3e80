# `zamboni scan` against an independent reader, and its command line.
#
#   interop_scan_fixtures  every snapshot of every table under ../shared/fixtures:
#                          `zamboni scan --format jsonl` and `--count` against
#                          scan_reference.mjs (avsc manifests, hyparquet data,
#                          planning and deletes written from the spec), rows
#                          compared as multisets in a canonical form; the known
#                          exceptions are listed, with reasons, in
#                          scan_compare.mjs (label interop)
#   interop_scan_icebird   the reference reader against icebird (npm) on the
#                          tables icebird reads, so the reference itself is
#                          checked by a reader written by others (label interop)
#   test_cli_scan_print    the batch printer on hand-built batches (label unit)
#   test_cli_scan          usage errors, exit codes, fixture facts, copied
#                          folders, truncated files (tests/cli/cli_scan.sh,
#                          label unit)
#
find_program(ZB_NODE NAMES node nodejs)
set(_zb_scan_fixtures ${PROJECT_SOURCE_DIR}/../shared/fixtures)

add_test(NAME test_cli_scan
  COMMAND bash ${PROJECT_SOURCE_DIR}/tests/cli/cli_scan.sh
          $<TARGET_FILE:zamboni> ${_zb_scan_fixtures})
set_tests_properties(test_cli_scan PROPERTIES LABELS unit TIMEOUT 120)

# The batch printer alone, on hand-built Arrow batches (nested types,
# CSV quoting, bad shapes): the fixtures have no nested columns.
add_executable(test_cli_scan_print ${PROJECT_SOURCE_DIR}/tests/cli/scan_print_test.c
  ${PROJECT_SOURCE_DIR}/src/cli/verbs/scan_print.c)
target_link_libraries(test_cli_scan_print PRIVATE zbtest zb_table_values
  zb_exec zb_io zb_util m)
add_test(NAME test_cli_scan_print COMMAND test_cli_scan_print)
set_tests_properties(test_cli_scan_print PROPERTIES LABELS unit TIMEOUT 60)

if(NOT ZB_NODE)
  foreach(_t interop_scan_fixtures interop_scan_icebird)
    add_test(NAME ${_t} COMMAND ${CMAKE_COMMAND}
      "-DMSG=node was not found at configure time; run scripts/install-deps.sh and re-run cmake"
      -P ${CMAKE_CURRENT_LIST_DIR}/fail.cmake)
    set_tests_properties(${_t} PROPERTIES LABELS interop)
  endforeach()
else()
  add_test(NAME interop_scan_fixtures
    COMMAND ${ZB_NODE} ${CMAKE_CURRENT_LIST_DIR}/scan_compare.mjs
            --zamboni $<TARGET_FILE:zamboni> ${_zb_scan_fixtures})
  set_tests_properties(interop_scan_fixtures PROPERTIES LABELS interop TIMEOUT 600)
  add_test(NAME interop_scan_icebird
    COMMAND ${ZB_NODE} ${CMAKE_CURRENT_LIST_DIR}/scan_icebird.mjs
            ${_zb_scan_fixtures})
  set_tests_properties(interop_scan_icebird PROPERTIES LABELS interop TIMEOUT 600)
endif()

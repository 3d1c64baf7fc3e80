# The operation verbs, maintenance and the read-only verbs
# (src/cli/verbs/), tested through the executable (the maintenance
# run's order at the library level is tests/unit/ops/maintenance.cmake):
#   test_cli_verbs      help of every verb (every flag with its default),
#                       usage errors (2), refusals (3), the table config's
#                       warehouse check (3, nothing touched), --dry-run
#                       changing no byte, worst exit across tables, one
#                       table's abort (4) not stopping the next, the
#                       maintenance order; on fixture copies (label unit)
#   test_cli_demo       the demo twice, --dry-run on the demo (no byte of
#                       the tables or the catalog changes), --status in the
#                       seed's shape, fewer files after (label unit)
#   test_cli_remap      a copy of the demo (made under $ZAMBONI_ROOT by
#                       `zamboni demo` without a folder) maintained through
#                       --remap, by folder and through its copied catalog:
#                       the same rows, the original unchanged; every
#                       table verb's --remap/--uri/--warehouse help and
#                       usage error; a moved table writing outside refused
#                       (label unit)
#   test_cli_resources  the memory budget and threads of a process: each
#                       source, 0 disabling, bad values (2), doctor's and
#                       --verbose's lines, maintenance --json's budget,
#                       --max-group-memory-bytes refusing a group,
#                       --max-concurrent-file-group-rewrites and its key
#                       (label unit)
#   test_cli_parallel_runner  the runner behind --parallel: every table
#                       once, done in order in the calling thread, real
#                       overlap, stop and halt, captured output in order
#   test_cli_maintenance_parallel  `maintenance --parallel 3` over seven
#                       tables (catalog and folder, one broken, one
#                       missing) prints and exits as --parallel 1 (lines,
#                       --json, --status); the tables overlap in time;
#                       SIGTERM starts no new table (label unit)
#   interop_cli_demo_rows  the live rows of every demo table before and
#                       after maintenance, by tests/interop/scan_reference.mjs
#                       (label interop)
find_program(ZB_NODE NAMES node nodejs)
add_test(NAME test_cli_verbs
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_verbs.sh
          $<TARGET_FILE:zamboni> ${PROJECT_SOURCE_DIR}/../shared/fixtures)
set_tests_properties(test_cli_verbs PROPERTIES LABELS unit TIMEOUT 300)
add_test(NAME test_cli_remap
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_remap.sh
          $<TARGET_FILE:zamboni> ${PROJECT_SOURCE_DIR}/../shared/fixtures)
set_tests_properties(test_cli_remap PROPERTIES LABELS unit TIMEOUT 600)
add_test(NAME test_cli_resources
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_resources.sh
          $<TARGET_FILE:zamboni> ${PROJECT_SOURCE_DIR}/../shared/fixtures)
set_tests_properties(test_cli_resources PROPERTIES LABELS unit TIMEOUT 300)
add_test(NAME test_cli_demo
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_demo.sh $<TARGET_FILE:zamboni>)
set_tests_properties(test_cli_demo PROPERTIES LABELS unit TIMEOUT 600)
add_executable(test_cli_parallel_runner
  ${CMAKE_CURRENT_LIST_DIR}/maintenance_parallel_test.c
  ${PROJECT_SOURCE_DIR}/src/cli/verbs/maintenance_parallel.c)
target_include_directories(test_cli_parallel_runner PRIVATE
  ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(test_cli_parallel_runner PRIVATE zbtest zb_util
  Threads::Threads)
add_test(NAME test_cli_parallel_runner COMMAND test_cli_parallel_runner)
set_tests_properties(test_cli_parallel_runner PROPERTIES LABELS unit
  TIMEOUT 60)
add_test(NAME test_cli_maintenance_parallel
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_maintenance_parallel.sh
          $<TARGET_FILE:zamboni> ${PROJECT_SOURCE_DIR}/../shared/fixtures)
set_tests_properties(test_cli_maintenance_parallel PROPERTIES LABELS unit
  TIMEOUT 120)
# S3 settings, read-only table folders on object stores and no secret in
# any output, without an S3 server (issue 16; the server's tests are
# tests/s3/).
add_test(NAME test_cli_s3_offline
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_s3_offline.sh
          $<TARGET_FILE:zamboni> ${PROJECT_SOURCE_DIR}/../shared/fixtures)
set_tests_properties(test_cli_s3_offline PROPERTIES LABELS cli TIMEOUT 120)
if(ZB_NODE)
  add_test(NAME interop_cli_demo_rows
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_demo_rows.sh
            $<TARGET_FILE:zamboni> ${ZB_NODE}
            ${PROJECT_SOURCE_DIR}/tests/interop/scan_reference.mjs)
  set_tests_properties(interop_cli_demo_rows PROPERTIES LABELS interop
    TIMEOUT 600)
else()
  add_test(NAME interop_cli_demo_rows COMMAND ${CMAKE_COMMAND}
    "-DMSG=node was not found at configure time; run scripts/install-deps.sh and re-run cmake"
    -P ${PROJECT_SOURCE_DIR}/tests/interop/fail.cmake)
  set_tests_properties(interop_cli_demo_rows PROPERTIES LABELS interop)
endif()
# The queue verbs on SQLite (issue 17): db migrate, enqueue on the demo,
# tasks list/show/cancel/requeue (--json read by node), history,
# maintenance recording its runs, exit 3 for an unmigrated or newer schema.
if(ZB_NODE)
  add_test(NAME test_cli_queue
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_queue.sh $<TARGET_FILE:zamboni>)
  set_tests_properties(test_cli_queue PROPERTIES LABELS cli TIMEOUT 300)
endif()

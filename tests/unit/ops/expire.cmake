# test_ops_expire: expire and remove-orphans (src/ops/expire/,
# src/ops/orphans/, src/ops/reachable/) on generated tables (SQLite and PATH catalogs in a
# temporary folder) and on copies of the fixture tables.
add_executable(test_ops_expire unit/ops/expire_main.c unit/ops/ops_fixture.c
  unit/ops/ops_fixture_files.c
  unit/ops/expire_reach.c unit/ops/expire_gen.c unit/ops/orphans_gen.c
  unit/ops/orphans_fixtures.c unit/ops/expire_torture.c
  unit/ops/expire_meta.c)
target_include_directories(test_ops_expire PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/ops)
target_link_libraries(test_ops_expire PRIVATE zbtest zb_ops zb_plan
  zb_catalog zb_exec zb_io zb_util Threads::Threads)
target_compile_definitions(test_ops_expire PRIVATE
  ZB_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/../shared/fixtures")
add_test(NAME test_ops_expire COMMAND test_ops_expire)
set_tests_properties(test_ops_expire PROPERTIES LABELS unit TIMEOUT 600)

# The expired table of the generated_table case kept in a folder and read
# by icebird, snapshot by snapshot (expire_check.mjs).
find_program(ZB_NODE NAMES node nodejs)
set(_zb_expire_out ${CMAKE_CURRENT_BINARY_DIR}/expire-table)
if(ZB_NODE)
  add_test(NAME test_ops_expire_table COMMAND sh -c
    "rm -rf '${_zb_expire_out}' && mkdir -p '${_zb_expire_out}' && ZB_EXPIRE_OUT='${_zb_expire_out}' '$<TARGET_FILE:test_ops_expire>' expire__generated_table")
  set_tests_properties(test_ops_expire_table PROPERTIES
    LABELS unit FIXTURES_SETUP zb_expire_table TIMEOUT 300)
  add_test(NAME test_ops_expire_icebird COMMAND ${ZB_NODE}
    ${CMAKE_CURRENT_SOURCE_DIR}/unit/ops/expire_check.mjs ${_zb_expire_out}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(test_ops_expire_icebird PROPERTIES
    LABELS "unit;interop" FIXTURES_REQUIRED zb_expire_table TIMEOUT 300)
endif()
set(_zb_orphans_out ${CMAKE_CURRENT_BINARY_DIR}/orphans-table)
if(ZB_NODE)
  add_test(NAME test_ops_orphans_table COMMAND sh -c
    "rm -rf '${_zb_orphans_out}' && mkdir -p '${_zb_orphans_out}' && ZB_ORPHANS_OUT='${_zb_orphans_out}' '$<TARGET_FILE:test_ops_expire>' orphans__generated_table")
  set_tests_properties(test_ops_orphans_table PROPERTIES
    LABELS unit FIXTURES_SETUP zb_orphans_table TIMEOUT 300)
  add_test(NAME test_ops_orphans_icebird COMMAND ${ZB_NODE}
    ${CMAKE_CURRENT_SOURCE_DIR}/unit/ops/expire_check.mjs ${_zb_orphans_out}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(test_ops_orphans_icebird PROPERTIES
    LABELS "unit;interop" FIXTURES_REQUIRED zb_orphans_table TIMEOUT 300)
endif()

# test_ops_progress: compaction's progress series (ops/ops.h) on a
# generated partitioned table, one and two threads (expire's and
# remove-orphans' are in test_ops_expire, expire_meta.c).
add_executable(test_ops_progress unit/ops/progress_test.c
  unit/ops/ops_fixture.c unit/ops/ops_fixture_files.c)
target_include_directories(test_ops_progress PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/ops)
target_link_libraries(test_ops_progress PRIVATE zbtest zb_ops zb_plan)
add_test(NAME test_ops_progress COMMAND test_ops_progress)
set_tests_properties(test_ops_progress PROPERTIES LABELS unit TIMEOUT 300)

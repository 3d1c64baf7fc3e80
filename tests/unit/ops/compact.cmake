# Tests of compaction (src/ops/compact*.c) on generated tables, with a
# concurrent writer, and on copies of the fixture tables, through the
# PATH catalog. The operation suites' fixture kit (ops_fixture*.c) is shared.
add_executable(test_ops_compact unit/ops/compact_main.c
  unit/ops/compact_util.c unit/ops/compact_gen.c unit/ops/compact_fixtures.c
  unit/ops/compact_race.c unit/ops/compact_sort.c unit/ops/ops_fixture.c
  unit/ops/ops_fixture_files.c unit/ops/compact_lineage.c
  unit/ops/compact_par.c)
target_include_directories(test_ops_compact PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/ops)
target_link_libraries(test_ops_compact PRIVATE zbtest zb_ops zb_plan)
target_compile_definitions(test_ops_compact PRIVATE
  ZB_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/../shared/fixtures")
add_test(NAME test_ops_compact COMMAND test_ops_compact)
set_tests_properties(test_ops_compact PROPERTIES LABELS unit TIMEOUT 600)

# Partition evolution by compaction (src/ops/compact/compact_evolve.c): a day(ts)
# table evolved into a month spec, and the maintenance run's wiring.
add_executable(test_ops_compact_evolve unit/ops/compact_evolve_test.c
  unit/ops/ops_fixture.c unit/ops/ops_fixture_files.c)
target_include_directories(test_ops_compact_evolve PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/ops)
target_link_libraries(test_ops_compact_evolve PRIVATE zbtest zb_ops zb_plan)
add_test(NAME test_ops_compact_evolve COMMAND test_ops_compact_evolve)
set_tests_properties(test_ops_compact_evolve PROPERTIES LABELS unit
  TIMEOUT 300)

# The memory a sort group is planned with under a budget (dry runs).
add_executable(test_ops_compact_mem unit/ops/compact_mem_test.c)
target_link_libraries(test_ops_compact_mem PRIVATE zbtest zb_ops)
add_test(NAME test_ops_compact_mem COMMAND test_ops_compact_mem)
set_tests_properties(test_ops_compact_mem PROPERTIES LABELS unit TIMEOUT 120)

# Issue 21: the position map of a rewrite (compact_carry_map.c).
add_executable(test_ops_compact_carry_map unit/ops/compact_carry_map_test.c)
target_link_libraries(test_ops_compact_carry_map PRIVATE zbtest zb_ops)
add_test(NAME test_ops_compact_carry_map COMMAND test_ops_compact_carry_map)
set_tests_properties(test_ops_compact_carry_map PROPERTIES LABELS unit
  TIMEOUT 60)

# Issue 21: Iceberg's rewrite_data_files options (compact_options.c, the
# planner's selection), each against its definition on generated tables.
add_executable(test_ops_compact_options unit/ops/compact_options_test.c
  unit/ops/compact_util.c unit/ops/ops_fixture.c
  unit/ops/ops_fixture_files.c)
target_include_directories(test_ops_compact_options PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/ops)
target_link_libraries(test_ops_compact_options PRIVATE zbtest zb_ops zb_plan)
add_test(NAME test_ops_compact_options COMMAND test_ops_compact_options)
set_tests_properties(test_ops_compact_options PROPERTIES LABELS unit
  TIMEOUT 120)

# Issue 21: carried deletes for sort and z-order groups
# (compact_carry_sorted.c), checked with the reference reader.
add_executable(test_ops_compact_carry_sorted
  unit/ops/compact_carry_sorted_test.c unit/ops/compact_util.c
  unit/ops/compact_reference.c
  unit/ops/ops_fixture.c unit/ops/ops_fixture_files.c)
target_include_directories(test_ops_compact_carry_sorted PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/ops)
target_link_libraries(test_ops_compact_carry_sorted PRIVATE zbtest zb_ops
  zb_plan)
target_compile_definitions(test_ops_compact_carry_sorted PRIVATE
  ZB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_test(NAME test_ops_compact_carry_sorted
  COMMAND test_ops_compact_carry_sorted)
set_tests_properties(test_ops_compact_carry_sorted PROPERTIES LABELS unit
  TIMEOUT 120)

# Issue 21: a v3 writer merging a DV the group applied (Spark's one DV a
# data file): carried, not dropped; checked with the reference reader.
add_executable(test_ops_compact_merged_dv
  unit/ops/compact_merged_dv.c unit/ops/compact_util.c
  unit/ops/compact_reference.c
  unit/ops/ops_fixture.c unit/ops/ops_fixture_files.c)
target_include_directories(test_ops_compact_merged_dv PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/ops)
target_link_libraries(test_ops_compact_merged_dv PRIVATE zbtest zb_ops
  zb_plan)
target_compile_definitions(test_ops_compact_merged_dv PRIVATE
  ZB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_test(NAME test_ops_compact_merged_dv COMMAND test_ops_compact_merged_dv)
set_tests_properties(test_ops_compact_merged_dv PROPERTIES LABELS unit
  TIMEOUT 120)

# ops, part: compaction (issue 8): planning and grouping (compact_plan.c),
# the binpack rewrite of a group (compact_rewrite.c), the replace commit
# with validation against concurrent deletes (compact_commit.c), the run
# with budget, pool and stop handling (compact.c) and its report lines
# (compact_report.c), the sort and z-order strategies (compact_sort.c),
# rows of older partition specs repartitioned (compact_repart.c), the
# table config's partition_evolution rules (compact_evolve.c).
# table/commit_seq.c lets a replace give its added
# files the data sequence number of the snapshot compaction planned from.
target_sources(zb_table_commit PRIVATE
  ${PROJECT_SOURCE_DIR}/src/table/commit_seq.c)
target_sources(zb_ops PRIVATE
  ${PROJECT_SOURCE_DIR}/src/ops/compact.c
  ${PROJECT_SOURCE_DIR}/src/ops/compact_plan.c
  ${PROJECT_SOURCE_DIR}/src/ops/compact_rewrite.c
  ${PROJECT_SOURCE_DIR}/src/ops/compact_commit.c
  ${PROJECT_SOURCE_DIR}/src/ops/compact_sort.c
  ${PROJECT_SOURCE_DIR}/src/ops/compact_repart.c
  ${PROJECT_SOURCE_DIR}/src/ops/compact_report.c
  ${PROJECT_SOURCE_DIR}/src/ops/compact_evolve.c)
target_link_libraries(zb_ops PUBLIC zb_plan)

if(ZB_BUILD_BENCH AND EXISTS ${PROJECT_SOURCE_DIR}/bench/bench_compact.c)
  add_executable(bench_compact bench/bench_compact.c)
  target_link_libraries(bench_compact PRIVATE zb_ops)
  target_compile_definitions(bench_compact PRIVATE
    ZB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()

# ops, part: expire and remove-orphans, and the reachable-file set they
# share (sorted path streams that spill, the merge join, the table walkers,
# batched parallel deletion).
target_sources(zb_ops PRIVATE
  ${PROJECT_SOURCE_DIR}/src/ops/reach.c
  ${PROJECT_SOURCE_DIR}/src/ops/reach_table.c
  ${PROJECT_SOURCE_DIR}/src/ops/expire.c
  ${PROJECT_SOURCE_DIR}/src/ops/expire_retain.c
  ${PROJECT_SOURCE_DIR}/src/ops/expire_meta.c)
target_sources(zb_ops PRIVATE ${PROJECT_SOURCE_DIR}/src/ops/orphans.c)

# bench_expire: expire and remove-orphans on 1,000,000 files, 1,000
# snapshots (time and peak RSS per phase).
if(ZB_BUILD_BENCH)
  add_executable(bench_expire bench/bench_expire.c)
  target_link_libraries(bench_expire PRIVATE zb_ops)
endif()

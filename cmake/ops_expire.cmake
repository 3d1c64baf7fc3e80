# ops, part: expire and remove-orphans, and the reachable-file set they
# share (sorted path streams that spill, the merge join, the table walkers,
# batched parallel deletion).
target_sources(zb_ops PRIVATE
  ${PROJECT_SOURCE_DIR}/src/ops/reach.c
  ${PROJECT_SOURCE_DIR}/src/ops/reach_table.c
  ${PROJECT_SOURCE_DIR}/src/ops/expire.c
  ${PROJECT_SOURCE_DIR}/src/ops/expire_retain.c)
target_sources(zb_ops PRIVATE ${PROJECT_SOURCE_DIR}/src/ops/orphans.c)

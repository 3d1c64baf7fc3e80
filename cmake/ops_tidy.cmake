# ops, part: apply-properties, remove-dangling-deletes, rewrite-manifests
# (issue 9). remove-dangling-deletes asks the scan planner which delete
# files apply.
target_sources(zb_ops PRIVATE
  ${PROJECT_SOURCE_DIR}/src/ops/apply_props.c
  ${PROJECT_SOURCE_DIR}/src/ops/dangling.c
  ${PROJECT_SOURCE_DIR}/src/ops/rewrite_manifests.c)
target_link_libraries(zb_ops PUBLIC zb_plan)

if(ZB_BUILD_BENCH AND EXISTS ${PROJECT_SOURCE_DIR}/bench/bench_rewrite_manifests.c)
  add_executable(bench_rewrite_manifests bench/bench_rewrite_manifests.c)
  target_link_libraries(bench_rewrite_manifests PRIVATE zb_ops)
endif()

# plan, part: the row stream. Adds to zb_plan (cmake/plan_scan.cmake) the
# reading of a group of scan tasks with every delete applied:
# scan_read.c (the stream), scan_project.c (projection to the read schema,
# promotions, defaults, equality keys), scan_namemap.c (name mapping),
# scan_posdel.c (position deletes, deletion vectors), scan_eqdel.c
# (equality deletes through the spilling key set of exec),
# scan_delindex.c (distinct delete files of a group, data path lookup)
# and scan_estimate.c (the memory estimate). jansson parses the name mapping.
pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
# The name-mapping parser alone, so that its fuzz target builds without
# the rest of the plan layer.
add_library(zb_plan_namemap STATIC src/plan/scan_namemap.c)
target_link_libraries(zb_plan_namemap PUBLIC zb_util PkgConfig::JANSSON)
target_sources(zb_plan PRIVATE
  ${PROJECT_SOURCE_DIR}/src/plan/scan_read.c
  ${PROJECT_SOURCE_DIR}/src/plan/scan_project.c
  ${PROJECT_SOURCE_DIR}/src/plan/scan_posdel.c
  ${PROJECT_SOURCE_DIR}/src/plan/scan_eqdel.c
  ${PROJECT_SOURCE_DIR}/src/plan/scan_estimate.c
  ${PROJECT_SOURCE_DIR}/src/plan/scan_delindex.c)
target_link_libraries(zb_plan PUBLIC zb_plan_namemap zb_parquet zb_exec)

if(ZB_BUILD_BENCH AND EXISTS ${PROJECT_SOURCE_DIR}/bench/bench_scan_read.c)
  add_executable(bench_scan_read bench/bench_scan_read.c)
  target_link_libraries(bench_scan_read PRIVATE zb_plan zb_table_manifest)
endif()

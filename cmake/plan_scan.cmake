# plan, part: scan planning. Defines the library zb_plan: the live data
# files of a snapshot with the delete files that apply to each
# (scan_plan.c: manifest walk and tasks; scan_plan_index.c: the delete
# index; scan_plan_filter.c: partition and bounds filter). The row stream
# adds its sources to zb_plan from cmake/plan_read.cmake.
add_library(zb_plan STATIC
  src/plan/scan_plan.c src/plan/scan_plan_index.c
  src/plan/scan_plan_filter.c)
target_link_libraries(zb_plan PUBLIC zb_table_manifest zb_table_values
  zb_table_metadata zb_io zb_util m)

if(ZB_BUILD_BENCH)
  add_executable(bench_scan_plan bench/bench_scan_plan.c)
  target_link_libraries(bench_scan_plan PRIVATE zb_plan)
endif()

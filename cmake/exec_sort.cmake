# exec, part: what sorting compaction needs, with no knowledge of Iceberg
# or Parquet: normalized sort keys and z-order keys (sortkey.c), Arrow
# batches to and from spill files and the row gather (arrow_spill.c,
# arrow_take.c), the external merge sort (xsort.c) and a thread pool with
# the cgroup-derived core count (pool.c).
target_sources(zb_exec PRIVATE src/exec/sortkey.c src/exec/arrow_spill.c
  src/exec/arrow_take.c src/exec/pool.c src/exec/xsort.c
  src/exec/xsort_merge.c)
if(ZB_BUILD_BENCH)
  # 10M rows sorted by (string, long) under a 64 MiB and a 1 GiB budget.
  add_executable(bench_xsort bench/bench_xsort.c)
  target_link_libraries(bench_xsort PRIVATE zb_exec zb_util)
endif()

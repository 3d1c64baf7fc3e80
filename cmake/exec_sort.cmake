# exec, part: what sorting compaction needs, with no knowledge of Iceberg
# or Parquet: normalized sort keys and z-order keys (sortkey.c), Arrow
# batches to and from spill files and the row gather (arrow_spill.c,
# arrow_take.c), the external merge sort (xsort.c) and a thread pool with
# the cgroup-derived core count (pool.c).
target_sources(zb_exec PRIVATE src/exec/sortkey.c src/exec/arrow_spill.c
  src/exec/arrow_take.c src/exec/pool.c src/exec/xsort.c
  src/exec/xsort_merge.c)

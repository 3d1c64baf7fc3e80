# exec, part: what applying deletes needs, with no knowledge of Iceberg
# files: Roaring bitmaps and deletion-vector blobs (roaring*.c), spill
# files under TMPDIR with a process-wide disk limit (spill.c), and a hash
# set of byte-string keys that spills by partition when the memory budget
# refuses it room (keyset.c).
target_sources(zb_exec PRIVATE src/exec/roaring.c src/exec/roaring_io.c
  src/exec/roaring_iter.c src/exec/roaring_dv.c src/exec/spill.c
  src/exec/keyset.c src/exec/keyset_table.c src/exec/keyset_hash.c)

# bench_keyset: build and probe keys/s and peak RSS of a 5M-key set with
# the budget ample and at 1/20 of the set (spilled).
if(ZB_BUILD_BENCH)
  add_executable(bench_keyset bench/bench_keyset.c)
  target_link_libraries(bench_keyset PRIVATE zb_exec zb_util)
  set_target_properties(bench_keyset PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
endif()

# table, part: manifests. Defines the library zb_table_manifest: Iceberg
# manifest lists and manifests for format versions 1, 2 and 3, read as
# streams with sequence-number, snapshot-id and first-row-id inheritance
# (manifest_read.c, manifest_list.c, manifest_iter.c) and written with the
# spec's Avro schemas (manifest_schema.c, manifest_write.c, manifest_list.c).
add_library(zb_table_manifest STATIC
  src/table/manifest_util.c src/table/manifest_schema.c
  src/table/manifest_read.c src/table/manifest_list.c
  src/table/manifest_write.c src/table/manifest_iter.c)
target_link_libraries(zb_table_manifest PUBLIC zb_avro zb_table_metadata
  zb_table_values zb_io zb_util m)

# zb-manifest-cat: a table's current snapshot as canonical JSON lines, for
# the interop test against avsc (tests/interop/manifest).
add_executable(zb-manifest-cat tools/zb_manifest_cat.c)
target_link_libraries(zb-manifest-cat PRIVATE zb_table_manifest)

if(ZB_BUILD_BENCH)
  add_executable(bench_manifest bench/bench_manifest.c)
  target_link_libraries(bench_manifest PRIVATE zb_table_manifest)
endif()

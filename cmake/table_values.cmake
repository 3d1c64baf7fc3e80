# table, part: values. Iceberg single values (binary and JSON
# serializations, ordering, human strings), the Murmur3 hash and the
# partition transforms (format/spec.md "Partition Transforms", Appendix B
# and D). jansson decodes JSON string escapes.
if(NOT TARGET PkgConfig::JANSSON)
  pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
endif()
add_library(zb_table_values STATIC
  src/table/ice_value.c src/table/ice_value_text.c src/table/ice_value_parse.c
  src/table/murmur3.c
  src/table/transform.c)
target_link_libraries(zb_table_values PUBLIC zb_util
  PRIVATE PkgConfig::JANSSON)

if(ZB_BUILD_BENCH)
  add_executable(bench_transform bench/bench_transform.c)
  target_link_libraries(bench_transform PRIVATE zb_table_values zb_util)
endif()

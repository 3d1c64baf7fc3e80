# Tests of Iceberg values, the Murmur3 hash and partition transforms:
# every published vector of format/spec.md (Appendix B hashes, truncate
# examples, Appendix D serializations), boundary and pre-epoch values,
# corrupt bounds, malformed transform strings, and partition values
# cross-checked against tables written by Spark and Impala
# (/work/shared/fixtures, values_fixtures.c).
zb_add_unit_test(test_table_values unit/table/values_main.c
  unit/table/values.c unit/table/values_json.c unit/table/values_transform.c
  unit/table/values_fixtures.c)
target_link_libraries(test_table_values PRIVATE zb_table_values)

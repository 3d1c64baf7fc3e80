# format/parquet, part: reader and writer. The schema tree, the column
# reader, record assembly and the file reader; the writer's schema, level
# shredding, pages and footer. Joins meta, codec and encoding.
add_library(zb_parquet STATIC
  src/format/parquet/pq_schema.c src/format/parquet/pq_column.c
  src/format/parquet/pq_assemble.c src/format/parquet/pq_reader.c
  src/format/parquet/pq_encode.c src/format/parquet/pq_write_schema.c
  src/format/parquet/pq_writer.c src/format/parquet/pq_writer_copy.c
  src/format/parquet/pq_write_stats.c src/format/parquet/pq_write_metrics.c
  src/format/parquet/pq_write_props.c
  src/format/parquet/pq_dict.c)
target_link_libraries(zb_parquet PUBLIC zb_parquet_meta zb_parquet_codec
  zb_parquet_encoding zb_exec zb_io zb_util)

# zb-parquet-cat: a file's rows as canonical JSON lines, for the interop
# tests that compare them with independent readers.
add_executable(zb-parquet-cat tools/zb_parquet_cat.c)
target_link_libraries(zb-parquet-cat PRIVATE zb_parquet)

# zb-parquet-copy: our reader into our writer, for the interop tests that
# check what DuckDB reads back from the copy.
add_executable(zb-parquet-copy tools/zb_parquet_copy.c)
target_link_libraries(zb-parquet-copy PRIVATE zb_parquet)

# Tests of the Parquet writer's threads (pq_writer_opts.threads):
# test_parquet_writer_threads (label unit; also under TSan, scripts/test.sh
# --tsan) writes the same batches with 1..4 threads and compares the files
# byte for byte; a failure on a thread is reported once.
zb_add_unit_test(test_parquet_writer_threads unit/parquet/writer_threads.c)
target_link_libraries(test_parquet_writer_threads PRIVATE zb_parquet)

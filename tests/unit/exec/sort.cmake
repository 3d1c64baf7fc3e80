# Tests of exec's sorting parts (test_exec_sort): sort keys and z-order
# keys against reference comparators (sort_key.c), Arrow batches through
# spill files and the row gather (sort_spill.c), the external sort against
# qsort under small budgets (sort_xsort.c), the thread pool and cgroup
# limits (sort_pool.c, also run under TSan by scripts/test.sh --tsan, with
# the external sort's own threads: test_exec_sort_threads).
add_executable(test_exec_sort unit/exec/sort_main.c unit/exec/sort_util.c
  unit/exec/sort_key.c unit/exec/sort_spill.c unit/exec/sort_xsort.c
  unit/exec/sort_pool.c)
target_link_libraries(test_exec_sort PRIVATE zbtest zb_exec zb_io zb_util
  Threads::Threads m)
add_test(NAME test_exec_sort COMMAND test_exec_sort)
set_tests_properties(test_exec_sort PROPERTIES LABELS unit TIMEOUT 600)
# The threaded cases alone, for scripts/test.sh --tsan (xsort is
# slow under TSan as a whole).
add_test(NAME test_exec_sort_pool COMMAND test_exec_sort test_exec_sort_pool)
set_tests_properties(test_exec_sort_pool PROPERTIES LABELS unit TIMEOUT 120)
# The sort with its own threads (a run's gather, the final merge ahead),
# for the same TSan run.
add_test(NAME test_exec_sort_threads
  COMMAND test_exec_sort test_exec_sort_xsort__two_threads)
set_tests_properties(test_exec_sort_threads PROPERTIES LABELS unit TIMEOUT 300)

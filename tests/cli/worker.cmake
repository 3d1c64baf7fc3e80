# `zamboni worker` on SQLite with the demo warehouse (cli_worker.sh): the
# start-up checks, the Optimize line from test cgroup trees, the tasks of
# `zamboni enqueue` run by one worker that exits when idle, drain, lifetime.
add_test(NAME test_cli_worker
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_worker.sh $<TARGET_FILE:zamboni>)
set_tests_properties(test_cli_worker PROPERTIES LABELS cli TIMEOUT 300)

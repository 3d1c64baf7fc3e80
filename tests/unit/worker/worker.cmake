# The worker library (src/service/worker): each worker's resources from
# test cgroup trees, the Optimize line, the lease rules. The loops against
# a real queue run in tests/cli/cli_worker.sh and tests/fleet/.
zb_add_unit_test(test_worker unit/worker/worker_main.c
  unit/worker/worker_resources.c)
target_link_libraries(test_worker PRIVATE zb_service_worker)

# zb_service_worker: the worker loops that take tasks from the queue and
# run them (worker.c: loops, heartbeat, drain; worker_task.c: one task;
# worker_resources.c: each worker's memory, cores and spill disk).
add_library(zb_service_worker STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/worker/worker.c
  ${CMAKE_CURRENT_SOURCE_DIR}/worker/worker_task.c
  ${CMAKE_CURRENT_SOURCE_DIR}/worker/worker_resources.c)
target_link_libraries(zb_service_worker PUBLIC zb_service_queue zb_ops
  zb_catalog zb_exec zb_util Threads::Threads m)

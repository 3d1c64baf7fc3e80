# zb_service_planner: serve's planner (planner.h): table signals from the
# metadata and manifest list, due rules, capacity per class, enqueue with
# displacement, the leader lease.
add_library(zb_service_planner STATIC
  ${CMAKE_CURRENT_LIST_DIR}/planner.c
  ${CMAKE_CURRENT_LIST_DIR}/planner_capacity.c
  ${CMAKE_CURRENT_LIST_DIR}/planner_due.c
  ${CMAKE_CURRENT_LIST_DIR}/planner_signals.c
  ${CMAKE_CURRENT_LIST_DIR}/planner_warehouse.c)
target_link_libraries(zb_service_planner PUBLIC zb_service_queue zb_ops
  zb_catalog zb_util PRIVATE Threads::Threads m)

# zb_service_queue: the task queue in a SQL database (queue.h) and the
# worker size classes (size_class.h). SQL only through zb_sqldb
# (catalog/sql/sqldb.h); the operations' names and order from ops/.
add_library(zb_service_queue STATIC
  ${CMAKE_CURRENT_LIST_DIR}/queue_sql.c
  ${CMAKE_CURRENT_LIST_DIR}/queue_schema.c
  ${CMAKE_CURRENT_LIST_DIR}/queue_take.c
  ${CMAKE_CURRENT_LIST_DIR}/queue_admin.c
  ${CMAKE_CURRENT_LIST_DIR}/queue_history.c
  ${CMAKE_CURRENT_LIST_DIR}/queue_workers.c
  ${CMAKE_CURRENT_LIST_DIR}/queue_fence.c
  ${CMAKE_CURRENT_LIST_DIR}/queue_figures.c
  ${CMAKE_CURRENT_LIST_DIR}/queue_clock.c
  ${CMAKE_CURRENT_LIST_DIR}/queue_displace.c
  ${CMAKE_CURRENT_LIST_DIR}/queue_leader.c
  ${CMAKE_CURRENT_LIST_DIR}/queue_json.c)
target_link_libraries(zb_service_queue PUBLIC zb_service_size_class
  zb_catalog zb_util PRIVATE zb_ops PkgConfig::JANSSON Threads::Threads)
# The size classes alone (jansson and util only), so that their fuzz
# target compiles nothing else; part of the queue's library above.
add_library(zb_service_size_class STATIC
  ${CMAKE_CURRENT_LIST_DIR}/../size_class.c)
target_link_libraries(zb_service_size_class PUBLIC zb_util
  PRIVATE PkgConfig::JANSSON)

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
  ${CMAKE_CURRENT_LIST_DIR}/../size_class.c)
target_link_libraries(zb_service_queue PUBLIC zb_catalog zb_util
  PRIVATE zb_ops PkgConfig::JANSSON Threads::Threads)

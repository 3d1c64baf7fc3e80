# zb_service_http: `zamboni serve`'s HTTP side (http.h) on libmicrohttpd
# (Debian: libmicrohttpd-dev, scripts/install-deps.sh). Without it the
# library is not built and serve stays "not available in this build".
pkg_check_modules(MHD IMPORTED_TARGET libmicrohttpd)
if(MHD_FOUND)
  add_library(zb_service_http STATIC
    ${CMAKE_CURRENT_LIST_DIR}/prom.c
    ${CMAKE_CURRENT_LIST_DIR}/http_auth.c
    ${CMAKE_CURRENT_LIST_DIR}/http_health.c
    ${CMAKE_CURRENT_LIST_DIR}/http_metrics.c
    ${CMAKE_CURRENT_LIST_DIR}/http_demand.c
    ${CMAKE_CURRENT_LIST_DIR}/http_server.c)
  target_link_libraries(zb_service_http PUBLIC zb_service_queue zb_util
    PRIVATE PkgConfig::MHD PkgConfig::JANSSON Threads::Threads m)
endif()

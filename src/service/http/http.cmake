# zb_service_http: `zamboni serve`'s HTTP side (http.h) on libmicrohttpd
# (Debian: libmicrohttpd-dev, scripts/install-deps.sh). Without it the
# library is not built and serve stays "not available in this build".
pkg_check_modules(MHD IMPORTED_TARGET libmicrohttpd)
# The dashboard's files, built into the binary (cmake/embed_assets.cmake).
set(ZB_HTTP_ASSETS index.html login.html app.css app.js)
set(_assets_dir ${CMAKE_CURRENT_LIST_DIR}/assets)
set(_assets_c ${CMAKE_CURRENT_BINARY_DIR}/http_assets.c)
list(TRANSFORM ZB_HTTP_ASSETS PREPEND ${_assets_dir}/ OUTPUT_VARIABLE _assets_deps)
list(JOIN ZB_HTTP_ASSETS "," _assets_arg)
add_custom_command(OUTPUT ${_assets_c}
  COMMAND ${CMAKE_COMMAND} -DOUT=${_assets_c} -DDIR=${_assets_dir}
          -DFILES=${_assets_arg}
          -P ${PROJECT_SOURCE_DIR}/cmake/embed_assets.cmake
  DEPENDS ${_assets_deps} ${PROJECT_SOURCE_DIR}/cmake/embed_assets.cmake
  COMMENT "Embedding the dashboard's assets" VERBATIM)
# The paths and the form body alone, for their fuzz target.
add_library(zb_service_http_route STATIC
  ${CMAKE_CURRENT_LIST_DIR}/http_route.c)
target_link_libraries(zb_service_http_route PUBLIC zb_util)
if(MHD_FOUND)
  add_library(zb_service_http STATIC
    ${CMAKE_CURRENT_LIST_DIR}/prom.c
    ${CMAKE_CURRENT_LIST_DIR}/http_auth.c
    ${CMAKE_CURRENT_LIST_DIR}/http_health.c
    ${CMAKE_CURRENT_LIST_DIR}/http_metrics.c
    ${CMAKE_CURRENT_LIST_DIR}/http_demand.c
    ${CMAKE_CURRENT_LIST_DIR}/http_api.c
    ${CMAKE_CURRENT_LIST_DIR}/http_pages.c
    ${_assets_c}
    ${CMAKE_CURRENT_LIST_DIR}/http_server.c)
  target_link_libraries(zb_service_http PUBLIC zb_service_queue zb_util
    zb_service_http_route
    PRIVATE PkgConfig::MHD PkgConfig::JANSSON Threads::Threads m)
endif()

# catalog, part: the Iceberg REST catalog client (src/catalog/catalog_rest*.c)
# added to the zb_catalog library of cmake/catalog.cmake. libcurl belongs to
# this part alone (STYLE.md section 2) and is linked PRIVATE; jansson parses
# and builds the JSON of the requests and replies.
if(TARGET zb_catalog)
  pkg_check_modules(CURL REQUIRED IMPORTED_TARGET libcurl)
  if(NOT TARGET PkgConfig::JANSSON)
    pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
  endif()
  target_sources(zb_catalog PRIVATE
    ${PROJECT_SOURCE_DIR}/src/catalog/catalog_rest.c
    ${PROJECT_SOURCE_DIR}/src/catalog/catalog_rest_http.c
    ${PROJECT_SOURCE_DIR}/src/catalog/catalog_rest_parse.c)
  target_link_libraries(zb_catalog PRIVATE PkgConfig::CURL PkgConfig::JANSSON)
  target_compile_definitions(zb_catalog PRIVATE ZB_HAVE_REST=1)
endif()

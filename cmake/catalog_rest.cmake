# catalog, part: the Iceberg REST catalog client (src/catalog/catalog_rest*.c)
# added to the zb_catalog library of cmake/catalog.cmake. libcurl belongs to
# this part alone (STYLE.md section 2) and is linked PRIVATE; jansson parses
# and builds the JSON of the requests and replies.
#
# The reply parsers (catalog_rest_parse.c: no network, util and jansson
# only) are a library of their own, zb_catalog_rest_parse, so that the
# fuzz target tests/fuzz/fuzz_rest_response.c builds them alone.
if(TARGET zb_catalog)
  pkg_check_modules(CURL REQUIRED IMPORTED_TARGET libcurl)
  if(NOT TARGET PkgConfig::JANSSON)
    pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
  endif()
  add_library(zb_catalog_rest_parse STATIC src/catalog/catalog_rest_parse.c)
  target_link_libraries(zb_catalog_rest_parse PUBLIC zb_util
    PkgConfig::JANSSON)
  target_sources(zb_catalog PRIVATE
    ${PROJECT_SOURCE_DIR}/src/catalog/catalog_rest.c
    ${PROJECT_SOURCE_DIR}/src/catalog/catalog_rest_table.c
    ${PROJECT_SOURCE_DIR}/src/catalog/catalog_rest_http.c)
  target_link_libraries(zb_catalog PUBLIC zb_catalog_rest_parse
    PRIVATE PkgConfig::CURL)
endif()

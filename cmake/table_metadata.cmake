# table, part: metadata. Defines the library zb_table_metadata: Iceberg
# table metadata JSON parsed into a typed model (metadata_parse.c,
# metadata_json.c, metadata_schema.c), written back losslessly and changed
# through setters (metadata_write.c), and the newest metadata file of a
# table folder (metadata_find.c). jansson belongs to this module
# (STYLE.md section 2).
if(NOT TARGET PkgConfig::JANSSON)
  pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
endif()
add_library(zb_table_metadata STATIC
  src/table/metadata_parse.c src/table/metadata_json.c
  src/table/metadata_schema.c src/table/metadata_write.c
  src/table/metadata_find.c src/table/table_props.c)
target_link_libraries(zb_table_metadata PUBLIC zb_io zb_util
  PkgConfig::JANSSON)

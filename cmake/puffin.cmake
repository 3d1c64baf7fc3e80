# format/puffin: Puffin files as v3 tables keep deletion vectors in them
# (writing; readers of DVs go straight to a blob's offset).
pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
add_library(zb_puffin STATIC src/format/puffin/puffin_write.c)
target_link_libraries(zb_puffin PUBLIC zb_util PkgConfig::JANSSON)

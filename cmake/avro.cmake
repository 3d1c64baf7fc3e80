# format/avro: Avro object container files (Iceberg manifests and manifest
# lists), read and written by our own codec (src/format/avro/avro.c says
# why not avro-c). Libraries, each PRIVATE so that no type of theirs
# reaches a zb header:
#   jansson  the schema JSON in each file's header (avro_schema.c says why
#            this module links it)
#   zlib     the deflate codec, and the CRC32 of the snappy codec
#   snappy   the snappy codec, through snappy-c.h
#   zstd     the zstandard codec
# They are used directly, not through format/parquet: the formats never
# depend on each other (STYLE.md section 2).
if(NOT TARGET PkgConfig::JANSSON)
  pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
endif()
foreach(_zb_mod ZSTD:libzstd SNAPPY:snappy ZLIB:zlib)
  string(REPLACE ":" ";" _zb_pair ${_zb_mod})
  list(GET _zb_pair 0 _zb_var)
  list(GET _zb_pair 1 _zb_pc)
  if(NOT TARGET PkgConfig::${_zb_var})
    pkg_check_modules(${_zb_var} REQUIRED IMPORTED_TARGET ${_zb_pc})
  endif()
endforeach()

add_library(zb_avro STATIC
  src/format/avro/avro.c
  src/format/avro/avro_schema.c
  src/format/avro/avro_write.c
  src/format/avro/avro_codec.c)
target_link_libraries(zb_avro
  PUBLIC zb_io zb_util
  PRIVATE PkgConfig::JANSSON PkgConfig::ZSTD PkgConfig::SNAPPY
          PkgConfig::ZLIB)

# zb-avro-cat: a file's records as canonical JSON lines, for the interop
# tests (tests/interop/avro).
add_executable(zb-avro-cat tools/zb_avro_cat.c)
target_link_libraries(zb-avro-cat PRIVATE zb_avro)

if(ZB_BUILD_BENCH)
  add_executable(bench_avro_read bench/bench_avro_read.c)
  target_link_libraries(bench_avro_read PRIVATE zb_avro)
endif()

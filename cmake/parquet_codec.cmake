# format/parquet, part: codec. Defines the library zb_parquet_codec: the
# page codecs of Parquet's Compression.md, one source file per library, each
# library linked PRIVATE so that its headers and types stay in its file.
#
# All come from Debian's -dev packages through their pkg-config files
# (scripts/install-deps.sh installs them):
#   libzstd     ZSTD (zstd's reference library; Parquet's recommended codec)
#   snappy      SNAPPY, through its C API snappy-c.h (the reference library;
#               Debian's libsnappy-dev ships snappy.pc)
#   zlib        GZIP (zlib is the authority Compression.md names for GZIP)
#   liblz4      LZ4_RAW and the deprecated Hadoop-framed LZ4; its block API
#               is all Parquet needs, lz4hc.h included for higher levels
#   libbrotlidec, libbrotlienc
#               BROTLI; libbrotlicommon comes in through their .pc files
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(SNAPPY REQUIRED IMPORTED_TARGET snappy)
pkg_check_modules(ZLIB REQUIRED IMPORTED_TARGET zlib)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
pkg_check_modules(BROTLI REQUIRED IMPORTED_TARGET libbrotlidec libbrotlienc)

add_library(zb_parquet_codec STATIC
  src/format/parquet/codec.c
  src/format/parquet/codec_snappy.c
  src/format/parquet/codec_gzip.c
  src/format/parquet/codec_zstd.c
  src/format/parquet/codec_lz4.c
  src/format/parquet/codec_brotli.c)
target_link_libraries(zb_parquet_codec
  PUBLIC zb_util
  PRIVATE PkgConfig::ZSTD PkgConfig::SNAPPY PkgConfig::ZLIB PkgConfig::LZ4
          PkgConfig::BROTLI)

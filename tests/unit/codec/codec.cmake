# Tests of format/codec: test_codec (label unit).
# The test links zstd, zlib and lz4 itself, to learn zstd's level range and
# to build inputs our writer does not make (zlib streams, raw deflate from
# zlib, Hadoop-framed LZ4); the samples made by the command-line tools are
# read from tests/resources/codec (see make-samples.sh there).
zb_add_unit_test(test_codec unit/codec/codec_main.c unit/codec/codec.c)
target_link_libraries(test_codec PRIVATE zb_codec
  PkgConfig::ZSTD PkgConfig::ZLIB PkgConfig::LZ4)
target_compile_definitions(test_codec PRIVATE
  ZB_CODEC_SAMPLES="${PROJECT_SOURCE_DIR}/tests/resources/codec")

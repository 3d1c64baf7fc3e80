# Fuzz targets of the parsers (STYLE.md section 7). Each target
# tests/fuzz/<t>.c defines LLVMFuzzerTestOneInput and has a seed corpus in
# tests/fuzz/corpora/<name without fuzz_>/, crashing inputs included.
#
# Every build gets replay_<t>: the target linked with standalone_driver.c,
# which runs each corpus file once; ctest runs it with label unit (so the
# sanitizer build checks the corpus too). With -DZB_FUZZ=ON and clang,
# <t> is also built as a libFuzzer binary, with the sources of the listed
# libraries compiled again under -fsanitize=fuzzer so that libFuzzer sees
# their coverage. Run one as:  <t> -max_total_time=60 NEW_DIR CORPUS_DIR

if(ZB_FUZZ AND NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(WARNING "ZB_FUZZ needs clang (libFuzzer); fuzz targets skipped")
endif()

# zb_fuzz_target(NAME LINK libs... INSTRUMENT libs... [EXTERNAL targets...])
#   LINK        what the replay binary links
#   INSTRUMENT  libraries whose sources the libFuzzer binary compiles
#   EXTERNAL    third-party libraries it links as they are
function(zb_fuzz_target name)
  cmake_parse_arguments(F "" "" "LINK;INSTRUMENT;EXTERNAL" ${ARGN})
  # zb_io holds the S3 backend: its parsers' libraries and what they link.
  if("zb_io" IN_LIST F_INSTRUMENT)
    list(APPEND F_INSTRUMENT zb_s3_xml zb_io_s3_creds_parse)
    list(APPEND F_EXTERNAL PkgConfig::CURL PkgConfig::LIBCRYPTO
         PkgConfig::EXPAT PkgConfig::JANSSON)
  endif()
  string(REGEX REPLACE "^fuzz_" "" corpus ${name})
  add_executable(replay_${name} fuzz/standalone_driver.c fuzz/${name}.c)
  target_link_libraries(replay_${name} PRIVATE ${F_LINK})
  add_test(NAME replay_${name}
    COMMAND replay_${name} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpora/${corpus})
  set_tests_properties(replay_${name} PROPERTIES LABELS unit TIMEOUT 120)
  if(ZB_FUZZ AND CMAKE_C_COMPILER_ID MATCHES "Clang")
    set(sources "")
    foreach(lib ${F_INSTRUMENT})
      get_target_property(s ${lib} SOURCES)
      get_target_property(d ${lib} SOURCE_DIR)
      # Sources are relative to the folder that declared the library.
      foreach(f ${s})
        if(IS_ABSOLUTE ${f})
          list(APPEND sources ${f})
        else()
          list(APPEND sources ${d}/${f})
        endif()
      endforeach()
    endforeach()
    set(flags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
        -fno-omit-frame-pointer)
    add_executable(${name} fuzz/${name}.c ${sources})
    # It links none of our libraries, so it takes their include folders
    # (include/ and src/, given by zb_util) itself.
    target_include_directories(${name} PRIVATE
      $<TARGET_PROPERTY:zb_util,INTERFACE_INCLUDE_DIRECTORIES>)
    target_compile_options(${name} PRIVATE ${flags})
    target_link_options(${name} PRIVATE ${flags})
    target_link_libraries(${name} PRIVATE Threads::Threads m ${F_EXTERNAL})
  endif()
endfunction()

# The Parquet footer and page headers (format/parquet, meta part).
foreach(t fuzz_parquet_footer fuzz_parquet_page_header)
  zb_fuzz_target(${t} LINK zb_parquet_meta zb_util
    INSTRUMENT zb_parquet_meta zb_util)
endforeach()

# Column chunk decoding and record assembly: the whole reader.
zb_fuzz_target(fuzz_parquet_page LINK zb_parquet
  INSTRUMENT zb_parquet zb_parquet_meta zb_codec zb_parquet_encoding
             zb_exec zb_io zb_util
  EXTERNAL PkgConfig::ZSTD PkgConfig::SNAPPY PkgConfig::ZLIB PkgConfig::LZ4
           PkgConfig::BROTLI)

# Avro object container files (format/avro): the whole reader on a file
# in memory.
zb_fuzz_target(fuzz_avro_decode LINK zb_avro
  INSTRUMENT zb_avro zb_codec zb_io zb_util
  EXTERNAL PkgConfig::JANSSON PkgConfig::ZSTD PkgConfig::SNAPPY
           PkgConfig::ZLIB PkgConfig::LZ4 PkgConfig::BROTLI)

# Table metadata JSON (src/table/metadata_*.c): parse, and write + parse
# again for what parses. Seeds: small metadata files from ../shared/fixtures
# (apache/impala Apache-2.0, duckdb/duckdb-iceberg and hyparam/icebird MIT)
# and the synthetic v1/v2/v3 documents of tests/unit/table/metadata.c.
zb_fuzz_target(fuzz_table_metadata LINK zb_table_metadata
  INSTRUMENT zb_table_metadata zb_codec zb_io zb_util
  EXTERNAL PkgConfig::JANSSON PkgConfig::ZSTD PkgConfig::SNAPPY
           PkgConfig::ZLIB PkgConfig::LZ4 PkgConfig::BROTLI)

# Gzip-compressed metadata (write.metadata.compression-codec=gzip): the
# input is taken as a gzip stream (the magic forced when missing) and
# loaded through a .gz.metadata.json name, so the inflater and the name
# check see every input; what inflates is parsed. Seeds: gzipped fixture
# metadata, two members, truncated and corrupt streams.
zb_fuzz_target(fuzz_metadata_gzip LINK zb_table_metadata
  INSTRUMENT zb_table_metadata zb_codec zb_io zb_util
  EXTERNAL PkgConfig::JANSSON PkgConfig::ZSTD PkgConfig::SNAPPY
           PkgConfig::ZLIB PkgConfig::LZ4 PkgConfig::BROTLI)

# Commit requirements and update lists (src/table/commit_*.c) on a fixed
# v1 or v2 table: a failed apply leaves the metadata unchanged, a
# successful one writes metadata that parses again. Seeds: hand-written
# lists in the shapes of open-api/rest-catalog-open-api.yaml.
zb_fuzz_target(fuzz_commit_apply LINK zb_table_commit
  INSTRUMENT zb_table_commit zb_table_manifest zb_table_metadata
             zb_table_values zb_avro zb_codec zb_exec zb_io zb_util
  EXTERNAL PkgConfig::JANSSON PkgConfig::ZSTD PkgConfig::SNAPPY
           PkgConfig::ZLIB PkgConfig::LZ4 PkgConfig::BROTLI)

# REST catalog replies (src/catalog/rest/catalog_rest_parse.c): every parser on
# one body. Seeds: hand-written replies in the shapes of
# open-api/rest-catalog-open-api.yaml and Lakekeeper's warehouse list,
# with HTML, truncated and misshapen bodies.
zb_fuzz_target(fuzz_rest_response LINK zb_catalog_rest_parse
  INSTRUMENT zb_catalog_rest_parse zb_util
  EXTERNAL PkgConfig::JANSSON)

# The name mapping table property (plan/read/scan_namemap.c). Seeds: the
# duckdb-name-mapping fixture's mapping, a nested one, misshapen ones.
zb_fuzz_target(fuzz_name_mapping LINK zb_plan_namemap
  INSTRUMENT zb_plan_namemap zb_util EXTERNAL PkgConfig::JANSSON)

# Roaring bitmaps and deletion-vector blobs (exec/roaring/roaring_io.c). Seeds:
# the fixture DV (apache/impala, Apache-2.0) and sets written by our
# serializer (arrays, runs with offsets, bitmaps, many 32-bit keys).
# zb_exec's spill frames use LZ4 (exec/arrow/arrow_spill.c).
zb_fuzz_target(fuzz_roaring LINK zb_exec INSTRUMENT zb_exec zb_io zb_util
  EXTERNAL PkgConfig::LZ4)

# Configuration (issue 10): zamboni.yml through libyaml, .env, and
# table-config.json v2. Seeds: the seed-003 profile example, hand-written
# .env files and table configs, with truncated and rule-breaking ones.
zb_fuzz_target(fuzz_profile_yaml LINK zb_config
  INSTRUMENT zb_config zb_util EXTERNAL PkgConfig::YAML PkgConfig::JANSSON)
zb_fuzz_target(fuzz_dotenv LINK zb_config
  INSTRUMENT zb_config zb_util EXTERNAL PkgConfig::YAML PkgConfig::JANSSON)
zb_fuzz_target(fuzz_table_config LINK zb_ops_table_config
  INSTRUMENT zb_ops_table_config zb_util EXTERNAL PkgConfig::JANSSON)

# The S3 credentials chain (src/io/s3/s3_creds_parse.c and
# s3_creds_profile.c): STS's XML, the container / IMDS JSON, and the AWS
# profile files. Seeds: hand-written replies in the shapes AWS documents
# and files in the shapes of ~/.aws/credentials and ~/.aws/config, with
# truncated, HTML and misshapen ones.
zb_fuzz_target(fuzz_s3_creds_reply LINK zb_io_s3_creds_parse
  INSTRUMENT zb_io_s3_creds_parse zb_util
  EXTERNAL PkgConfig::EXPAT PkgConfig::JANSSON)
zb_fuzz_target(fuzz_s3_creds_profile LINK zb_io_s3_creds_parse
  INSTRUMENT zb_io_s3_creds_parse zb_util
  EXTERNAL PkgConfig::EXPAT PkgConfig::JANSSON)

# S3's XML replies (src/io/s3/s3_xml.c, expat): every parser on one body.
# Seeds: hand-written replies in the shapes of S3's API reference
# (ListObjectsV2, Error, DeleteObjects, multipart), with HTML, cut,
# entity-expanding and deeply nested ones.
zb_fuzz_target(fuzz_s3_xml LINK zb_s3_xml zb_util
  INSTRUMENT zb_s3_xml zb_util EXTERNAL PkgConfig::EXPAT)
zb_fuzz_target(fuzz_size_classes LINK zb_service_size_class
  INSTRUMENT zb_service_size_class zb_util EXTERNAL PkgConfig::JANSSON)

# serve's dashboard: request paths and the login form's body (issue 19).
zb_fuzz_target(fuzz_http_paths LINK zb_service_http_route
  INSTRUMENT zb_service_http_route zb_util)

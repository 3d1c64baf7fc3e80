# Fuzz targets of the parsers (STYLE.md section 7). Each target
# tests/fuzz/<t>.c defines LLVMFuzzerTestOneInput and has a seed corpus in
# tests/fuzz/corpora/<name without fuzz_>/, crashing inputs included.
#
# Every build gets replay_<t>: the target linked with standalone_driver.c,
# which runs each corpus file once; ctest runs it with label unit (so the
# sanitizer build checks the corpus too). With -DZB_FUZZ=ON and clang,
# <t> is also built as a libFuzzer binary, with the parser and util
# sources compiled again under -fsanitize=fuzzer so that libFuzzer sees
# their coverage. Run one as:  <t> -max_total_time=60 NEW_DIR CORPUS_DIR
set(zb_fuzz_targets fuzz_parquet_footer fuzz_parquet_page_header)
set(zb_fuzz_parquet_meta_src
  ${PROJECT_SOURCE_DIR}/src/format/parquet/pq_thrift.c
  ${PROJECT_SOURCE_DIR}/src/format/parquet/pq_meta.c)

foreach(t ${zb_fuzz_targets})
  string(REGEX REPLACE "^fuzz_" "" corpus ${t})
  add_executable(replay_${t} fuzz/standalone_driver.c fuzz/${t}.c)
  target_link_libraries(replay_${t} PRIVATE zb_parquet_meta zb_util)
  add_test(NAME replay_${t}
    COMMAND replay_${t} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpora/${corpus})
  set_tests_properties(replay_${t} PROPERTIES LABELS unit TIMEOUT 120)
endforeach()

# Column chunk decoding needs the whole reader.
add_executable(replay_fuzz_parquet_page fuzz/standalone_driver.c
  fuzz/fuzz_parquet_page.c)
target_link_libraries(replay_fuzz_parquet_page PRIVATE zb_parquet)
add_test(NAME replay_fuzz_parquet_page
  COMMAND replay_fuzz_parquet_page
  ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpora/parquet_page)
set_tests_properties(replay_fuzz_parquet_page PROPERTIES LABELS unit
  TIMEOUT 120)

if(ZB_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(WARNING "ZB_FUZZ needs clang (libFuzzer); fuzz targets skipped")
  else()
    get_target_property(zb_fuzz_util_src zb_util SOURCES)
    list(TRANSFORM zb_fuzz_util_src PREPEND ${PROJECT_SOURCE_DIR}/)
    set(zb_fuzz_flags -fsanitize=fuzzer,address,undefined
        -fno-sanitize-recover=all -fno-omit-frame-pointer)
    foreach(t ${zb_fuzz_targets})
      add_executable(${t} fuzz/${t}.c ${zb_fuzz_parquet_meta_src}
        ${zb_fuzz_util_src})
      target_compile_options(${t} PRIVATE ${zb_fuzz_flags})
      target_link_options(${t} PRIVATE ${zb_fuzz_flags})
      target_link_libraries(${t} PRIVATE Threads::Threads m)
    endforeach()
    # Page decoding and record assembly: every parquet and util source
    # instrumented; the codec libraries as they are.
    set(zb_fuzz_page_src "")
    foreach(lib zb_parquet zb_parquet_meta zb_parquet_codec
                zb_parquet_encoding zb_exec zb_io zb_util)
      get_target_property(s ${lib} SOURCES)
      list(TRANSFORM s PREPEND ${PROJECT_SOURCE_DIR}/)
      list(APPEND zb_fuzz_page_src ${s})
    endforeach()
    add_executable(fuzz_parquet_page fuzz/fuzz_parquet_page.c
      ${zb_fuzz_page_src})
    target_compile_options(fuzz_parquet_page PRIVATE ${zb_fuzz_flags})
    target_link_options(fuzz_parquet_page PRIVATE ${zb_fuzz_flags})
    target_link_libraries(fuzz_parquet_page PRIVATE Threads::Threads m
      PkgConfig::ZSTD PkgConfig::SNAPPY PkgConfig::ZLIB PkgConfig::LZ4
      PkgConfig::BROTLI)
  endif()
endif()

# Avro object container files (format/avro): the whole reader on a file
# in memory. Replayed in every build; a libFuzzer binary under ZB_FUZZ
# with the avro, io and util sources instrumented, the JSON and codec
# libraries as they are.
add_executable(replay_fuzz_avro_decode fuzz/standalone_driver.c
  fuzz/fuzz_avro_decode.c)
target_link_libraries(replay_fuzz_avro_decode PRIVATE zb_avro)
add_test(NAME replay_fuzz_avro_decode
  COMMAND replay_fuzz_avro_decode
  ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpora/avro_decode)
set_tests_properties(replay_fuzz_avro_decode PROPERTIES LABELS unit
  TIMEOUT 120)
if(ZB_FUZZ AND CMAKE_C_COMPILER_ID MATCHES "Clang")
  set(zb_fuzz_avro_src "")
  foreach(lib zb_avro zb_io zb_util)
    get_target_property(s ${lib} SOURCES)
    list(TRANSFORM s PREPEND ${PROJECT_SOURCE_DIR}/)
    list(APPEND zb_fuzz_avro_src ${s})
  endforeach()
  add_executable(fuzz_avro_decode fuzz/fuzz_avro_decode.c
    ${zb_fuzz_avro_src})
  target_compile_options(fuzz_avro_decode PRIVATE
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
    -fno-omit-frame-pointer)
  target_link_options(fuzz_avro_decode PRIVATE
    -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_avro_decode PRIVATE Threads::Threads m
    PkgConfig::JANSSON PkgConfig::ZSTD PkgConfig::SNAPPY PkgConfig::ZLIB)
endif()

# Table metadata JSON (src/table/metadata_*.c): parse, and write + parse
# again for what parses. Seeds: small metadata files from ../shared/fixtures
# (apache/impala Apache-2.0, duckdb/duckdb-iceberg and hyparam/icebird MIT)
# and the synthetic v1/v2/v3 documents of tests/unit/table/metadata.c.
add_executable(replay_fuzz_table_metadata fuzz/standalone_driver.c
  fuzz/fuzz_table_metadata.c)
target_link_libraries(replay_fuzz_table_metadata PRIVATE zb_table_metadata)
add_test(NAME replay_fuzz_table_metadata
  COMMAND replay_fuzz_table_metadata
  ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpora/table_metadata)
set_tests_properties(replay_fuzz_table_metadata PROPERTIES LABELS unit
  TIMEOUT 120)
if(ZB_FUZZ AND CMAKE_C_COMPILER_ID MATCHES "Clang")
  set(zb_fuzz_meta_src "")
  foreach(lib zb_table_metadata zb_io zb_util)
    get_target_property(s ${lib} SOURCES)
    list(TRANSFORM s PREPEND ${PROJECT_SOURCE_DIR}/)
    list(APPEND zb_fuzz_meta_src ${s})
  endforeach()
  add_executable(fuzz_table_metadata fuzz/fuzz_table_metadata.c
    ${zb_fuzz_meta_src})
  target_compile_options(fuzz_table_metadata PRIVATE
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
    -fno-omit-frame-pointer)
  target_link_options(fuzz_table_metadata PRIVATE
    -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_table_metadata PRIVATE Threads::Threads m
    PkgConfig::JANSSON)
endif()

# Interop tests against independent readers (npm): our Parquet reader's
# zb-parquet-cat output is compared, value by value in canonical JSON, with
# DuckDB (@duckdb/node-api) and, where DuckDB cannot read a file, hyparquet.
# Files: compare_parquet.mjs, canonical.mjs, gen_corpus.mjs (README.md);
# check_written_footer.mjs reads a file from our footer and page header
# writers (zb-parquet-write-demo) with both.
# The npm packages come from package.json via scripts/install-deps.sh.
#
#   interop_corpus_gen        gen_corpus.mjs -> ${CMAKE_BINARY_DIR}/parquet-corpus
#   interop_parquet_fixtures  compare on ../shared/fixtures (Spark, Impala, Trino, ...)
#   interop_parquet_corpus    compare on the generated corpus (needs interop_corpus_gen)
#   interop_corpus_extra_gen  gen_corpus_extra.mjs -> ${CMAKE_BINARY_DIR}/parquet-corpus-extra
#                             (what DuckDB cannot write: hyparquet-writer and pqwrite.mjs)
#   interop_parquet_corpus_extra  compare on it (needs interop_corpus_extra_gen)
#   interop_written_footer    a file written by pq_meta_write, read by both

find_program(ZB_NODE NAMES node nodejs)
set(_zb_interop_dir ${CMAKE_CURRENT_LIST_DIR})
set(_zb_corpus_dir ${CMAKE_BINARY_DIR}/parquet-corpus)
set(_zb_corpus_extra_dir ${CMAKE_BINARY_DIR}/parquet-corpus-extra)
set(_zb_fixtures_dir ${PROJECT_SOURCE_DIR}/../shared/fixtures)

if(NOT ZB_NODE)
  # Register the tests anyway so that they fail loudly instead of vanishing.
  foreach(_t interop_corpus_gen interop_parquet_fixtures interop_parquet_corpus
             interop_corpus_extra_gen interop_parquet_corpus_extra)
    add_test(NAME ${_t} COMMAND ${CMAKE_COMMAND}
      "-DMSG=node was not found at configure time; run scripts/install-deps.sh and re-run cmake"
      -P ${_zb_interop_dir}/fail.cmake)
  endforeach()
else()
  # Both scripts exit 1 with "run scripts/install-deps.sh" when
  # node_modules lacks the npm packages.
  add_test(NAME interop_corpus_gen
    COMMAND ${ZB_NODE} ${_zb_interop_dir}/gen_corpus.mjs ${_zb_corpus_dir})
  set_tests_properties(interop_corpus_gen PROPERTIES FIXTURES_SETUP zb_parquet_corpus)

  add_test(NAME interop_parquet_fixtures
    COMMAND ${ZB_NODE} ${_zb_interop_dir}/compare_parquet.mjs
            --cat $<TARGET_FILE:zb-parquet-cat> ${_zb_fixtures_dir})

  add_test(NAME interop_parquet_corpus
    COMMAND ${ZB_NODE} ${_zb_interop_dir}/compare_parquet.mjs
            --cat $<TARGET_FILE:zb-parquet-cat> ${_zb_corpus_dir})
  set_tests_properties(interop_parquet_corpus PROPERTIES FIXTURES_REQUIRED zb_parquet_corpus)

  # The extra corpus (README.md, "The extra corpus"). gen_corpus_extra.mjs
  # exits 1 when a file lacks the feature it is meant to carry or neither
  # DuckDB nor hyparquet can read it. The comparison is against DuckDB,
  # which wrote none of the files; hyparquet only where DuckDB cannot read
  # a file (Hadoop-framed LZ4), and those files come from pqwrite.mjs, not
  # from hyparquet-writer. (--reader both would also hold our reader to
  # hyparquet's bugs with legacy lists and bare repeated fields split
  # across pages: README.md.)
  add_test(NAME interop_corpus_extra_gen
    COMMAND ${ZB_NODE} ${_zb_interop_dir}/gen_corpus_extra.mjs ${_zb_corpus_extra_dir})
  set_tests_properties(interop_corpus_extra_gen PROPERTIES FIXTURES_SETUP zb_parquet_corpus_extra)

  add_test(NAME interop_parquet_corpus_extra
    COMMAND ${ZB_NODE} ${_zb_interop_dir}/compare_parquet.mjs
            --cat $<TARGET_FILE:zb-parquet-cat> --reader duckdb ${_zb_corpus_extra_dir})
  set_tests_properties(interop_parquet_corpus_extra PROPERTIES FIXTURES_REQUIRED zb_parquet_corpus_extra)
endif()

if(NOT ZB_NODE)
  add_test(NAME interop_written_footer COMMAND ${CMAKE_COMMAND}
    "-DMSG=node was not found at configure time; run scripts/install-deps.sh and re-run cmake"
    -P ${_zb_interop_dir}/fail.cmake)
else()
  add_test(NAME interop_written_footer
    COMMAND ${ZB_NODE} ${_zb_interop_dir}/check_written_footer.mjs
            --demo $<TARGET_FILE:zb-parquet-write-demo>
            ${CMAKE_BINARY_DIR}/written-footer)
endif()
set_tests_properties(interop_written_footer PROPERTIES LABELS interop TIMEOUT 300)

set_tests_properties(interop_corpus_gen interop_parquet_fixtures interop_parquet_corpus
  interop_corpus_extra_gen interop_parquet_corpus_extra
  PROPERTIES LABELS interop TIMEOUT 1200)

# Avro object container files against avsc (tests/interop/avro).
include(${CMAKE_CURRENT_LIST_DIR}/avro/avro.cmake)

# Manifest lists and manifests against avsc (tests/interop/manifest).
include(${CMAKE_CURRENT_LIST_DIR}/manifest/manifest.cmake)

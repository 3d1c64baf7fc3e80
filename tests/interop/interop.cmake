# Interop tests against independent readers (npm): our Parquet reader's
# zb-parquet-cat output is compared, value by value in canonical JSON, with
# DuckDB (@duckdb/node-api) and, where DuckDB cannot read a file, hyparquet.
# Files: compare_parquet.mjs, canonical.mjs, gen_corpus.mjs (README.md).
# The npm packages come from package.json via scripts/install-deps.sh.
#
#   interop_corpus_gen        gen_corpus.mjs -> ${CMAKE_BINARY_DIR}/parquet-corpus
#   interop_parquet_fixtures  compare on ../shared/fixtures (Spark, Impala, Trino, ...)
#   interop_parquet_corpus    compare on the generated corpus (needs interop_corpus_gen)

if(TARGET zb-parquet-cat)
  find_program(ZB_NODE NAMES node nodejs)
  set(_zb_interop_dir ${CMAKE_CURRENT_LIST_DIR})
  set(_zb_corpus_dir ${CMAKE_BINARY_DIR}/parquet-corpus)
  set(_zb_fixtures_dir ${PROJECT_SOURCE_DIR}/../shared/fixtures)

  if(NOT ZB_NODE)
    # Register the tests anyway so that they fail loudly instead of vanishing.
    foreach(_t interop_corpus_gen interop_parquet_fixtures interop_parquet_corpus)
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
  endif()

  set_tests_properties(interop_corpus_gen interop_parquet_fixtures interop_parquet_corpus
    PROPERTIES LABELS interop TIMEOUT 1200)
endif()

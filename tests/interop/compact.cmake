# Compaction against the independent reader (label interop): the fixture
# tables compacted by test_ops_compact (ZB_COMPACT_OUT keeps the copies)
# and read back by scan_reference.mjs next to the originals
# (compact_compare.mjs): the same live rows, the snapshot a replace.
find_program(ZB_NODE NAMES node nodejs)
set(_zb_compact_out ${CMAKE_CURRENT_BINARY_DIR}/compact-fixtures)
set(_zb_compact_fx ${PROJECT_SOURCE_DIR}/../shared/fixtures)
if(ZB_NODE)
  add_test(NAME interop_compact_tables COMMAND sh -c
    "rm -rf '${_zb_compact_out}' && mkdir -p '${_zb_compact_out}' && ZB_COMPACT_OUT='${_zb_compact_out}' '$<TARGET_FILE:test_ops_compact>' test_ops_compact_fixtures__all")
  set_tests_properties(interop_compact_tables PROPERTIES
    LABELS interop FIXTURES_SETUP zb_compact_tables TIMEOUT 600)
  add_test(NAME interop_compact_reference COMMAND ${ZB_NODE}
    ${CMAKE_CURRENT_LIST_DIR}/compact_compare.mjs ${_zb_compact_out}
    ${_zb_compact_fx})
  set_tests_properties(interop_compact_reference PROPERTIES
    LABELS interop FIXTURES_REQUIRED zb_compact_tables TIMEOUT 600)
else()
  add_test(NAME interop_compact_reference COMMAND ${CMAKE_COMMAND}
    "-DMSG=node was not found at configure time; run scripts/install-deps.sh and re-run cmake"
    -P ${CMAKE_CURRENT_LIST_DIR}/fail.cmake)
  set_tests_properties(interop_compact_reference PROPERTIES LABELS interop)
endif()

# Partition evolution (src/ops/compact/compact_evolve.c): the table that
# test_ops_compact_evolve's maintenance case evolved (ZB_EVOLVE_KEEP keeps
# it), read by scan_reference.mjs (compact_evolve_check.mjs): the same
# rows as before, each file's rows in its day or month partition.
find_program(ZB_NODE NAMES node nodejs)
set(_zb_evolve_out ${CMAKE_CURRENT_BINARY_DIR}/compact-evolve)
if(ZB_NODE)
  add_test(NAME interop_compact_evolve COMMAND sh -c
    "rm -rf '${_zb_evolve_out}' && ZB_EVOLVE_KEEP='${_zb_evolve_out}' '$<TARGET_FILE:test_ops_compact_evolve>' test_ops_evolve__maintenance && '${ZB_NODE}' '${CMAKE_CURRENT_LIST_DIR}/compact_evolve_check.mjs' '${_zb_evolve_out}'")
  set_tests_properties(interop_compact_evolve PROPERTIES
    LABELS interop TIMEOUT 300)
endif()

# Issue 21: Iceberg's rewrite_data_files options through the CLI (plan's
# reasons, the split of a file above max-file-size-bytes, --rewrite-all
# with a sort on single-file partitions), rows checked by DuckDB.
set(_zb_opts_out ${CMAKE_CURRENT_BINARY_DIR}/compact-options)
if(ZB_NODE)
  add_test(NAME interop_compact_options COMMAND sh -c
    "rm -rf '${_zb_opts_out}' && ZB_OPTS_KEEP='${_zb_opts_out}' '$<TARGET_FILE:test_ops_compact_options>' test_ops_compact_options__keep && '${ZB_NODE}' '${CMAKE_CURRENT_LIST_DIR}/compact_options.mjs' '$<TARGET_FILE:zamboni>' '${_zb_opts_out}'")
  set_tests_properties(interop_compact_options PROPERTIES
    LABELS interop TIMEOUT 120)
endif()

# Issue 21: deletes carried while binpack moves rows into another partition
# spec (test_ops_compact's carried_into_new_spec cases keep their tables in
# ZB_CARRY_SPEC_KEEP), read by scan_reference.mjs: the replace leaves the
# rows the concurrent delete alone left, its delete files of the new spec.
set(_zb_carry_spec_out ${CMAKE_CURRENT_BINARY_DIR}/compact-carry-spec)
if(ZB_NODE)
  add_test(NAME interop_compact_carry_spec COMMAND sh -c
    "rm -rf '${_zb_carry_spec_out}' && ZB_CARRY_SPEC_KEEP='${_zb_carry_spec_out}' '$<TARGET_FILE:test_ops_compact>' test_ops_compact_race__carried_into_new_spec_v2 test_ops_compact_race__carried_into_new_spec_v3 && '${ZB_NODE}' '${CMAKE_CURRENT_LIST_DIR}/compact_carry_spec_check.mjs' '${_zb_carry_spec_out}/v2-t1' '${_zb_carry_spec_out}/v2-t2' '${_zb_carry_spec_out}/v3-t1' '${_zb_carry_spec_out}/v3-t2'")
  set_tests_properties(interop_compact_carry_spec PROPERTIES
    LABELS interop TIMEOUT 300)
endif()

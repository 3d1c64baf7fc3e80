# Tests of exec's delete primitives (src/exec/roaring, spill.c, keyset): Roaring
# bitmaps and deletion-vector blobs (deletes_roaring.c), spill files
# (deletes_spill.c), the spilling key set and budget try-grow
# (deletes_keyset.c). zlib's crc32 checks ours; the DV fixture comes from
# ../shared/fixtures.
if(NOT TARGET PkgConfig::ZLIB)
  pkg_check_modules(ZLIB REQUIRED IMPORTED_TARGET zlib)
endif()
add_executable(test_exec_deletes unit/exec/deletes_main.c
  unit/exec/deletes_roaring.c unit/exec/deletes_spill.c
  unit/exec/deletes_keyset.c)
target_include_directories(test_exec_deletes PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/exec)
target_link_libraries(test_exec_deletes PRIVATE zbtest zb_exec zb_io zb_util
  PkgConfig::ZLIB)
target_compile_definitions(test_exec_deletes PRIVATE
  ZB_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/../shared/fixtures")
add_test(NAME test_exec_deletes COMMAND test_exec_deletes)
set_tests_properties(test_exec_deletes PROPERTIES LABELS unit TIMEOUT 300)

# zb-roaring-tool and the comparison with CRoaring (npm roaring-wasm) in
# both directions: deletes_roaring_wasm.mjs, label unit (needs node and
# scripts/install-deps.sh; fails loudly without them).
add_executable(zb-roaring-tool unit/exec/deletes_roaring_tool.c)
target_link_libraries(zb-roaring-tool PRIVATE zb_exec zb_util)
find_program(ZB_NODE NAMES node nodejs)
if(ZB_NODE)
  add_test(NAME interop_roaring_croaring
    COMMAND ${ZB_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/unit/exec/deletes_roaring_wasm.mjs
      $<TARGET_FILE:zb-roaring-tool> ${CMAKE_BINARY_DIR}/roaring-interop)
  set_tests_properties(interop_roaring_croaring PROPERTIES LABELS unit
    TIMEOUT 120)
endif()

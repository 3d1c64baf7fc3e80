# Tests of exec's delete primitives (cmake/exec_deletes.cmake): Roaring
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

# make install / cmake --install (issue 20): the zamboni executable,
# libzamboni (shared and static) with the public headers and zamboni.pc,
# the man page, bash completion and the examples under share/doc/zamboni/.
# Included from the top-level CMakeLists.txt after src/.
#
# libzamboni is what include/zamboni/ declares: zb_api and every static
# library it reaches. The layers stay static libraries of their own (their
# link lists are DESIGN.md's dependency rules); libzamboni is made of
# their object files, so that the layer split costs an embedder nothing.
include(GNUInstallDirs)

option(ZB_LIBZAMBONI
  "Build libzamboni.so and libzamboni.a (the library's layers compile -fPIC)" ON)

# The static libraries reachable from TARGET through link lists, and the
# outside libraries they name (imported targets, plain names like m).
function(zb_link_closure target out_libs out_external)
  set(seen "")
  set(external "")
  set(todo ${target})
  while(todo)
    list(POP_FRONT todo t)
    if(t IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${t})
    foreach(prop LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      get_target_property(deps ${t} ${prop})
      if(NOT deps)
        continue()
      endif()
      foreach(d ${deps})
        # $<LINK_ONLY:x> as CMake writes PRIVATE deps of static libraries
        string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" d "${d}")
        if(TARGET ${d})
          get_target_property(imported ${d} IMPORTED)
          get_target_property(type ${d} TYPE)
          if(imported)
            list(APPEND external ${d})
          elseif(type STREQUAL "STATIC_LIBRARY" OR type STREQUAL "OBJECT_LIBRARY")
            list(APPEND todo ${d})
          endif()
        elseif(NOT d MATCHES "^\\$<")
          list(APPEND external ${d})
        endif()
      endforeach()
    endforeach()
  endwhile()
  list(REMOVE_DUPLICATES external)
  set(${out_libs} ${seen} PARENT_SCOPE)
  set(${out_external} ${external} PARENT_SCOPE)
endfunction()

if(ZB_LIBZAMBONI)
  zb_link_closure(zb_api zb_lib_parts zb_lib_external)
  set(zb_lib_objects "")
  foreach(t ${zb_lib_parts})
    set_target_properties(${t} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    list(APPEND zb_lib_objects $<TARGET_OBJECTS:${t}>)
  endforeach()

  add_library(zamboni_shared SHARED ${zb_lib_objects})
  target_link_libraries(zamboni_shared PRIVATE ${zb_lib_external})
  # Only the public API is exported: the zb_* functions the headers of
  # include/zamboni/ declare, read from them here so the list cannot
  # drift. The layers' own functions stay inside and may change freely.
  file(GLOB_RECURSE zb_pub_headers ${PROJECT_SOURCE_DIR}/include/zamboni/*.h)
  set(zb_pub_names "")
  foreach(h ${zb_pub_headers})
    file(READ ${h} text)
    string(REGEX MATCHALL "zb_[a-z0-9_]+\\(" calls "${text}")
    list(APPEND zb_pub_names ${calls})
  endforeach()
  list(TRANSFORM zb_pub_names REPLACE "\\($" "")
  list(REMOVE_DUPLICATES zb_pub_names)
  list(SORT zb_pub_names)
  list(JOIN zb_pub_names ";\n    " zb_pub_list)
  set(zb_version_script ${CMAKE_BINARY_DIR}/libzamboni.map)
  file(WRITE ${zb_version_script}.new
    "ZAMBONI_0 {\n  global:\n    ${zb_pub_list};\n  local:\n    *;\n};\n")
  configure_file(${zb_version_script}.new ${zb_version_script} COPYONLY)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${zb_pub_headers})
  target_link_options(zamboni_shared PRIVATE
    -Wl,--version-script=${zb_version_script})
  # Every symbol resolved at link time (a missing library is a build error,
  # not a user's dlopen error); not under the sanitizers, whose runtime
  # clang links into executables only.
  if(NOT ZB_SANITIZE AND NOT ZB_SANITIZE_THREAD AND NOT ZB_FUZZ)
    target_link_options(zamboni_shared PRIVATE -Wl,--no-undefined)
  endif()
  set_target_properties(zamboni_shared PROPERTIES
    OUTPUT_NAME zamboni VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}
    LINK_DEPENDS ${zb_version_script})

  add_library(zamboni_static STATIC ${zb_lib_objects})
  set_target_properties(zamboni_static PROPERTIES OUTPUT_NAME zamboni)
  add_custom_target(libzamboni DEPENDS zamboni_shared zamboni_static)

  # zamboni.pc: the outside libraries by their pkg-config names for a
  # static link (Requires.private); a shared link needs only -lzamboni.
  set(zb_pc_requires_private
    "jansson libzstd snappy zlib liblz4 libbrotlidec libbrotlienc sqlite3 libcurl expat libcrypto yaml-0.1")
  if(TARGET PkgConfig::LIBPQ)
    string(APPEND zb_pc_requires_private " libpq")
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/packaging/zamboni.pc.in
    ${CMAKE_BINARY_DIR}/zamboni.pc @ONLY)

  install(TARGETS zamboni_shared zamboni_static
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/zamboni
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
  install(FILES ${CMAKE_BINARY_DIR}/zamboni.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()

install(TARGETS zamboni RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# zamboni(1) from the executable's own --help (help2man), so the page
# cannot drift from the program. Without help2man there is no page, and
# configure says so.
find_program(ZB_HELP2MAN help2man)
if(ZB_HELP2MAN)
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/zamboni.1.gz
    COMMAND ${ZB_HELP2MAN} --no-info --no-discard-stderr
            --name "Apache Iceberg table maintenance"
            --include ${PROJECT_SOURCE_DIR}/packaging/zamboni.h2m
            --output ${CMAKE_BINARY_DIR}/zamboni.1 $<TARGET_FILE:zamboni>
    COMMAND gzip -9nf ${CMAKE_BINARY_DIR}/zamboni.1
    DEPENDS zamboni ${PROJECT_SOURCE_DIR}/packaging/zamboni.h2m
    COMMENT "zamboni(1) by help2man")
  add_custom_target(zamboni_man ALL DEPENDS ${CMAKE_BINARY_DIR}/zamboni.1.gz)
  install(FILES ${CMAKE_BINARY_DIR}/zamboni.1.gz
    DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man not found: make install has no zamboni(1)")
endif()

install(FILES ${PROJECT_SOURCE_DIR}/packaging/bash-completion/zamboni
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/examples/zamboni.yml
  ${PROJECT_SOURCE_DIR}/packaging/examples/table-config.json
  ${PROJECT_SOURCE_DIR}/packaging/examples/zamboni.cron
  ${PROJECT_SOURCE_DIR}/env.sample
  DESTINATION ${CMAKE_INSTALL_DOCDIR})

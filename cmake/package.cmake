# The .deb (cpack -G DEB) of issue 20: everything make install puts under
# /usr, the systemd units, the maintainer scripts that make the system user
# zamboni, and the Debian files lintian asks of a package. Included last
# from the top-level CMakeLists.txt.
#
# The packaging build: packaging/deb-cache.cmake (RelWithDebInfo with
# assertions, ZB_WERROR off, hardening, only what the package holds). A
# package never runs without assertions: cpack refuses a build whose flags
# define NDEBUG (a Release build as CMake sets it).

# The units go under /usr/lib/systemd/system whatever the prefix: that is
# where systemd looks for a package's units.
# ExecStart names the installed binary (@CMAKE_INSTALL_FULL_BINDIR@).
foreach(unit zamboni-serve.service zamboni-worker@.service)
  configure_file(${PROJECT_SOURCE_DIR}/packaging/systemd/${unit}.in
    ${CMAKE_BINARY_DIR}/systemd/${unit} @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/systemd/${unit}
    DESTINATION lib/systemd/system COMPONENT systemd)
endforeach()

configure_file(${PROJECT_SOURCE_DIR}/packaging/debian/changelog.in
  ${CMAKE_BINARY_DIR}/debian/changelog @ONLY)
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/debian/changelog.gz
  COMMAND gzip -9nc ${CMAKE_BINARY_DIR}/debian/changelog
          > ${CMAKE_BINARY_DIR}/debian/changelog.gz
  DEPENDS ${CMAKE_BINARY_DIR}/debian/changelog)
add_custom_target(zamboni_changelog ALL
  DEPENDS ${CMAKE_BINARY_DIR}/debian/changelog.gz)
install(FILES ${CMAKE_BINARY_DIR}/debian/changelog.gz
  ${PROJECT_SOURCE_DIR}/packaging/debian/copyright
  ${PROJECT_SOURCE_DIR}/docs/deploy.md
  DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(ZB_PACKAGE_MAINTAINER "Zamboni maintainers <maintainers@example.org>"
  CACHE STRING "Maintainer field of the .deb")

set(CPACK_PACKAGE_NAME zamboni)
set(CPACK_PACKAGE_VENDOR "Zamboni")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Apache Iceberg table maintenance")
set(CPACK_PACKAGE_CONTACT ${ZB_PACKAGE_MAINTAINER})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
# Debian's own file name: zamboni_0.1.0_amd64.deb
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${ZB_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_SECTION database)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The long description; CPack puts the summary above it as the synopsis.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
"Zamboni keeps Apache Iceberg tables healthy: it compacts small files,
applies deletes, rewrites manifests, expires snapshots and removes orphan
files, without losing a row or deleting a live file. It runs from cron, one
line per warehouse, or as a fleet: zamboni serve plans tasks into a queue
in PostgreSQL or SQLite and zamboni worker processes, one systemd instance
per size class, take them.

This package has the zamboni command, libzamboni (shared and static) with
its headers and zamboni.pc, and the systemd units.")
# Depends from the libraries the binaries actually link (dpkg-shlibdeps),
# adduser for the maintainer scripts.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
# A shlibs file for libzamboni.so.0 (the ldconfig trigger: debian/triggers).
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  ${PROJECT_SOURCE_DIR}/packaging/debian/postinst
  ${PROJECT_SOURCE_DIR}/packaging/debian/postrm
  ${PROJECT_SOURCE_DIR}/packaging/debian/triggers)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL OFF)
string(TOUPPER "${CMAKE_BUILD_TYPE}" zb_bt)
if("${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${zb_bt}}" MATCHES "NDEBUG")
  file(WRITE ${CMAKE_BINARY_DIR}/cpack_refuse_ndebug.cmake
    "message(FATAL_ERROR \"zamboni: no package from a build without assertions (NDEBUG in the C flags of ${CMAKE_BUILD_TYPE}); use RelWithDebInfo\")\n")
  set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_BINARY_DIR}/cpack_refuse_ndebug.cmake)
endif()
include(CPack)

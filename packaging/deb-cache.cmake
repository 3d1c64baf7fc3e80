# The packaging build's settings, one place for tests/deploy/deb_test.sh,
# deploy/docker/Dockerfile and docs/deploy.md:
#   cmake -C packaging/deb-cache.cmake -S . -B build-deb -G Ninja
#   cmake --build build-deb --target zamboni libzamboni zamboni_man zamboni_changelog
#   (cd build-deb && cpack -G DEB)
# RelWithDebInfo keeps assert() (-O2 -g, no NDEBUG): they guard safety
# such as rows in equal rows out. ZB_WERROR is off so that a newer
# compiler's new warning does not stop a package build; the project's own
# builds keep it on. Only what the package holds is built: no tests, no
# benchmarks, and install does not build "all".
set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "")
set(CMAKE_INSTALL_PREFIX /usr CACHE PATH "")
set(ZB_WERROR OFF CACHE BOOL "")
set(ZB_BUILD_TESTS OFF CACHE BOOL "")
set(ZB_BUILD_BENCH OFF CACHE BOOL "")
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON CACHE BOOL "")
# Debian's hardening: fortified libc calls, stack protector, read-only
# relocations bound at start.
set(CMAKE_C_FLAGS "-D_FORTIFY_SOURCE=2 -fstack-protector-strong" CACHE STRING "")
set(CMAKE_EXE_LINKER_FLAGS "-Wl,-z,relro,-z,now" CACHE STRING "")
set(CMAKE_SHARED_LINKER_FLAGS "-Wl,-z,relro,-z,now" CACHE STRING "")

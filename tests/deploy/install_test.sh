#!/usr/bin/env bash
# make install of this build (issue 20), staged with DESTDIR: the files
# land where cmake/install.cmake says, zamboni.pc gives a working compile
# and link of examples/compact_and_expire.c against the staged
# libzamboni.so (pkg-config's sysroot pointing at the stage), the staged
# zamboni runs, and the library exports only the public zb_* functions.
# Needs no root; the package itself is tested by deb_test.sh.
# Usage: install_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
pass=0
fail=0
tmp=$(mktemp -d)
out=$tmp/out err=$tmp/err
: >"$out"; : >"$err"
trap 'rm -rf "$tmp"' EXIT
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() {
    echo "FAIL $1: $2"
    sed 's/^/     stdout: /' "$out" | tail -8
    sed 's/^/     stderr: /' "$err" | tail -8
    fail=$((fail + 1))
}
run() { "$@" >"$out" 2>"$err" </dev/null; }

stage=$tmp/stage
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")
if DESTDIR=$stage run cmake --install "$build"; then
    ok "cmake --install with DESTDIR (prefix $prefix)"
else
    bad "cmake --install" "exit $?"
    echo "install_test: $pass passed, $fail failed"; exit 1
fi
root=$stage$prefix
missing=""
for f in bin/zamboni include/zamboni/zamboni.h include/zamboni/sys/io_backend.h \
         "$libdir/libzamboni.a" "$libdir/libzamboni.so.0" "$libdir/pkgconfig/zamboni.pc" \
         share/man/man1/zamboni.1.gz share/bash-completion/completions/zamboni \
         share/doc/zamboni/zamboni.yml share/doc/zamboni/env.sample \
         share/doc/zamboni/table-config.json share/doc/zamboni/zamboni.cron \
         lib/systemd/system/zamboni-serve.service lib/systemd/system/zamboni-worker@.service; do
    [ -e "$root/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && ok "installed files" || bad "installed files" "missing:$missing"
if grep -q "^ExecStart=$prefix/bin/zamboni worker --size-class %i" \
       "$root/lib/systemd/system/zamboni-worker@.service"; then
    ok "the units start $prefix/bin/zamboni"
else
    bad "the units' ExecStart" "not $prefix/bin/zamboni"
fi
if run "$root/bin/zamboni" --version && grep -qx 'zamboni [0-9.]*' "$out"; then
    ok "staged zamboni --version: $(cat "$out")"
else
    bad "staged zamboni --version" "exit or output"
fi
# The examples are the real thing: they pass the program's own checks.
if run "$root/bin/zamboni" table-config validate "$root/share/doc/zamboni/table-config.json"; then
    ok "example table-config.json is valid"
else
    bad "example table-config.json" "refused"
fi
if (cd "$tmp" && cp "$root/share/doc/zamboni/zamboni.yml" . &&
    run "$root/bin/zamboni" doctor); grep -q '^config: resolved' "$out"; then
    ok "example zamboni.yml is read (doctor: config resolved)"
else
    bad "example zamboni.yml" "doctor did not resolve it"
fi

export PKG_CONFIG_PATH=$root/$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage
flags=$(pkg-config --cflags --libs zamboni 2>"$err")
if [[ $flags == *"-I$root/include"* ]] &&
   run cc -std=c11 -Wall -Wextra -Werror -o "$tmp/ex" "$src/examples/compact_and_expire.c" $flags &&
   LD_LIBRARY_PATH=$root/$libdir run "$tmp/ex"; [ $? -eq 2 ] &&
   grep -q '^usage: compact_and_expire' "$err" &&
   LD_LIBRARY_PATH=$root/$libdir ldd "$tmp/ex" | grep -q "$root/$libdir/libzamboni.so.0"; then
    ok "built and run against the staged libzamboni.so by pkg-config"
else
    bad "pkg-config build" "flags '$flags'"
fi
# Only the API of include/zamboni/ leaves the library.
exported=$(nm -D --defined-only "$root/$libdir/libzamboni.so.0" | awk '$2 ~ /[TDBR]/ {sub(/@.*/, "", $3); print $3}' | sort)
declared=$(grep -ho '\bzb_[a-z0-9_]*(' "$src"/include/zamboni/*.h "$src"/include/zamboni/sys/*.h |
           tr -d '(' | sort -u)
extra=$(comm -23 <(echo "$exported") <(echo "$declared") | grep -v '^ZAMBONI_0$' | tr '\n' ' ')
if [ -n "$exported" ] && [ -z "$extra" ] && echo "$exported" | grep -qx zb_ops_compact; then
    ok "libzamboni.so exports the public API only ($(echo "$exported" | wc -l) symbols)"
else
    bad "exports" "not declared in include/zamboni: $extra"
fi
echo "install_test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

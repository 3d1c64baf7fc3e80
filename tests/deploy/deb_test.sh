#!/usr/bin/env bash
# The .deb end to end (issue 20, "Done when"): the packaging build (only
# what the package holds: zamboni, libzamboni, the man page; RelWithDebInfo
# with assertions, ZB_WERROR off), cpack -G DEB, lintian without an error,
# dpkg -i on this machine, then what a user does: zamboni --version and the
# demo from /usr/bin, a program compiled against pkg-config's zamboni
# (shared, and static with --static), the units verified, the system user;
# finally dpkg --purge and nothing of the package left.
#
# Installs a package system-wide, so it needs root or passwordless sudo
# and exits 77 (skipped) without them, or when a zamboni package is
# already installed (it is not ours to remove). Whatever happens, a
# package this test installed is purged on exit.
#
# Usage: deb_test.sh SOURCE_DIR WORK_DIR
#   WORK_DIR  the packaging build goes to WORK_DIR/build (kept between runs:
#             a second run rebuilds only what changed)
set -u
src=$(cd "$1" && pwd)
work=$2
mkdir -p "$work"
work=$(cd "$work" && pwd)

if [ "$(id -u)" -eq 0 ]; then
    sudo=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
else
    echo "SKIP: installing the .deb needs root or passwordless sudo"
    exit 77
fi
if dpkg-query -W -f='${Status}' zamboni 2>/dev/null | grep -q 'installed'; then
    echo "SKIP: a zamboni package is installed already; this test would remove it"
    exit 77
fi
if getent passwd zamboni >/dev/null; then
    echo "SKIP: a user zamboni exists already; purging the package would remove it"
    exit 77
fi
for tool in cpack dpkg-deb dpkg-shlibdeps lintian help2man pkg-config cc; do
    if ! command -v "$tool" >/dev/null; then
        echo "FAIL: $tool not found (scripts/install-deps.sh installs it)"
        exit 1
    fi
done

ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
pass=0
fail=0
installed=0
tmp=$(mktemp -d)
out=$tmp/out err=$tmp/err
: >"$out"; : >"$err"
cleanup() {
    if [ "$installed" = 1 ]; then
        "${sudo[@]}" dpkg --purge zamboni >/dev/null 2>&1 ||
            echo "cleanup: dpkg --purge zamboni failed; remove it by hand"
    fi
    [ -n "${lintian_pid:-}" ] && kill "$lintian_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Each line says how long its step took (the test has a CI budget).
step=$SECONDS
ok() { echo "PASS $1 [$((SECONDS - step)) s]"; pass=$((pass + 1)); step=$SECONDS; }
bad() {
    echo "FAIL $1: $2"
    sed 's/^/     stdout: /' "$out" | tail -12
    sed 's/^/     stderr: /' "$err" | tail -12
    fail=$((fail + 1))
    step=$SECONDS
}
run() { "$@" >"$out" 2>"$err" </dev/null; }
finish() {
    echo "deb_test: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit $?
}

# --- the packaging build (packaging/deb-cache.cmake) ------------------------
b=$work/build
if run cmake -C "$src/packaging/deb-cache.cmake" -S "$src" -B "$b" -G Ninja &&
   run cmake --build "$b" -j2 --target zamboni libzamboni zamboni_man \
       zamboni_changelog; then
    ok "packaging build"
else
    bad "packaging build" "cmake failed"; finish
fi
# The package keeps assertions: no NDEBUG on the compile lines.
if grep -q -- '-DNDEBUG' "$b/compile_commands.json"; then
    bad "assertions kept" "NDEBUG in $b/compile_commands.json"
elif ! grep -q -- '-Werror' "$b/compile_commands.json"; then
    ok "assertions kept, -Werror off in the packaging build"
else
    bad "-Werror off" "-Werror in $b/compile_commands.json"
fi
rm -f "$b"/zamboni_*.deb
if (cd "$b" && run cpack -G DEB) && deb=$(ls "$b"/zamboni_*_*.deb 2>/dev/null) &&
   [ -f "$deb" ]; then
    ok "cpack -G DEB: $(basename "$deb")"
else
    bad "cpack -G DEB" "no .deb"; finish
fi

# lintian takes a while; it reads only the .deb, so it runs meanwhile.
lintian --tag-display-limit 0 "$deb" >"$tmp/lintian" 2>&1 &
lintian_pid=$!

# Depends come from the libraries linked (dpkg-shlibdeps), not by hand.
deps=$(dpkg-deb -f "$deb" Depends)
if [[ $deps == *libjansson4* && $deps == *libc6* && $deps == *libcurl* &&
      $deps == *adduser* ]]; then
    ok "Depends from the linked libraries ($(echo "$deps" | tr ',' '\n' | wc -l) entries)"
else
    bad "Depends from the linked libraries" "Depends: $deps"
fi
contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
missing=""
for f in ./usr/bin/zamboni ./usr/include/zamboni/zamboni.h \
         ./usr/lib/$ma/pkgconfig/zamboni.pc \
         ./usr/lib/$ma/libzamboni.a \
         ./usr/lib/$ma/libzamboni.so.0 \
         ./usr/share/man/man1/zamboni.1.gz \
         ./usr/share/bash-completion/completions/zamboni \
         ./usr/lib/systemd/system/zamboni-serve.service \
         ./usr/lib/systemd/system/zamboni-worker@.service \
         ./usr/share/doc/zamboni/zamboni.yml ./usr/share/doc/zamboni/env.sample \
         ./usr/share/doc/zamboni/table-config.json \
         ./usr/share/doc/zamboni/zamboni.cron ./usr/share/doc/zamboni/copyright; do
    grep -qxF "$f" <<<"$contents" || missing="$missing $f"
done
[ -z "$missing" ] && ok "package contents" || bad "package contents" "missing:$missing"

# --- install ------------------------------------------------------------------
installed=1
if run "${sudo[@]}" dpkg -i "$deb"; then
    ok "dpkg -i"
else
    bad "dpkg -i" "exit $?"; finish
fi
# The rest runs as a user would, without this build's files around.
for v in $(env | grep -o '^ZAMBONI_[A-Z0-9_]*'); do unset "$v"; done
export HOME=$tmp/home
mkdir -p "$HOME" "$tmp/cwd"
cd "$tmp/cwd" || exit 1
hash -r
if [ "$(command -v zamboni)" = /usr/bin/zamboni ] && run zamboni --version &&
   grep -qx 'zamboni [0-9][0-9.]*' "$out"; then
    ok "zamboni --version from /usr/bin: $(cat "$out")"
else
    bad "zamboni --version" "$(command -v zamboni)"
fi

# The demo, then maintenance on it; rows counted before and after.
demo=$tmp/demo
count_rows() {
    local t n total=0
    for t in events users; do
        n=$(ZAMBONI_ROOT=$demo /usr/bin/zamboni scan "demo.$t" --count 2>>"$err") || return 1
        total=$((total + n))
    done
    echo "$total"
}
if run /usr/bin/zamboni demo "$demo" && rows0=$(count_rows) && [ "$rows0" -gt 0 ]; then
    ok "zamboni demo ($rows0 rows)"
else
    bad "zamboni demo" "exit or count failed"; rows0=x
fi
if ZAMBONI_ROOT=$demo run /usr/bin/zamboni maintenance --warehouse demo --status &&
   grep -q 'demo.events' "$out" && rows1=$(count_rows) && [ "$rows1" = "$rows0" ]; then
    ok "maintenance on the demo, rows unchanged ($rows1)"
else
    bad "maintenance on the demo" "exit $?, rows '$rows0' -> '${rows1:-}'"
fi

# A program against the installed library through pkg-config alone.
example=$src/examples/compact_and_expire.c
flags=$(pkg-config --cflags --libs zamboni 2>"$err")
if [ -n "$flags" ] && run cc -std=c11 -Wall -Wextra -Werror -o "$tmp/ex_shared" \
       "$example" $flags &&
   ldd "$tmp/ex_shared" | grep -Eq 'libzamboni.so.0 => /(usr/)?lib/'; then
    ok "compiled with pkg-config --cflags --libs zamboni ($flags)"
else
    bad "compiled with pkg-config" "flags '$flags'"
fi
# libzamboni.a, its dependencies shared: pkg-config --static would want
# the static archives of libcurl's own dependencies too.
sflags="$(pkg-config --libs $(pkg-config --print-requires-private zamboni) 2>"$err") -lpthread -lm"
if run cc -std=c11 -o "$tmp/ex_static" "$example" \
       $(pkg-config --cflags zamboni) -Wl,-Bstatic -lzamboni -Wl,-Bdynamic $sflags &&
   ! ldd "$tmp/ex_static" | grep -q libzamboni; then
    ok "linked libzamboni.a (its Requires.private shared)"
else
    bad "linked libzamboni.a" "flags '$sflags'"
fi
# The shared one on a fresh demo table: compact and expire, rows unchanged.
rm -rf "$demo" && run /usr/bin/zamboni demo "$demo"
table=$demo/warehouses/demo/demo/events
before=$(/usr/bin/zamboni scan "$table" --count 2>/dev/null)
if run "$tmp/ex_shared" "$table" 0 && grep -q '^compact: [1-9][0-9]* group(s)' "$out" &&
   grep -q '^expire: expired [1-9]' "$out" &&
   after=$(/usr/bin/zamboni scan "$table" --count 2>/dev/null) &&
   [ -n "$before" ] && [ "$after" = "$before" ]; then
    ok "the program compacts and expires through libzamboni.so ($after rows)"
else
    bad "the program through libzamboni.so" "rows '$before' -> '${after:-}'"
fi
run "$tmp/ex_static"
[ $? -eq 2 ] && grep -q '^usage: compact_and_expire' "$err" &&
    ok "the static one runs (usage, exit 2)" || bad "the static one runs" "no usage"

# The units as systemd reads them, with the binary now in place.
if command -v systemd-analyze >/dev/null; then
    cp '/usr/lib/systemd/system/zamboni-worker@.service' "$tmp/zamboni-worker@standard.service"
    if run systemd-analyze verify --man=no /usr/lib/systemd/system/zamboni-serve.service \
           "$tmp/zamboni-worker@standard.service" && [ ! -s "$err" ]; then
        ok "systemd-analyze verify: serve and worker@standard"
    else
        bad "systemd-analyze verify" "see stderr"
    fi
fi
if grep -q 'ExecStart=/usr/bin/zamboni worker --size-class %i --max-lifetime 0 --idle-exit-after 0' \
       '/usr/lib/systemd/system/zamboni-worker@.service'; then
    ok "worker@ runs one size class with no lifetime and no idle exit"
else
    bad "worker@ ExecStart" "unexpected"
fi
if getent passwd zamboni >/dev/null &&
   [ "$(stat -c '%U:%G %a' /var/lib/zamboni)" = "zamboni:zamboni 750" ]; then
    ok "system user zamboni, /var/lib/zamboni 750"
else
    bad "system user zamboni" "$(getent passwd zamboni) $(stat -c '%U:%G %a' /var/lib/zamboni 2>&1)"
fi
# Completion from the installed program's --help.
words=$(bash -c 'source /usr/share/bash-completion/completions/zamboni
                 COMP_WORDS=(zamboni wor); COMP_CWORD=1; _zamboni; echo "${COMPREPLY[*]}"
                 COMP_WORDS=(zamboni worker --dra); COMP_CWORD=2; _zamboni; echo "${COMPREPLY[*]}"')
if [ "$words" = $'worker\n--drain-timeout' ]; then
    ok "bash completion: commands and flags"
else
    bad "bash completion" "got '$words'"
fi

# --- lintian ----------------------------------------------------------------
wait "$lintian_pid"
lintian_rc=$?
lintian_pid=""
errors=$(grep -c '^E: ' "$tmp/lintian")
warnings=$(grep -c '^W: ' "$tmp/lintian")
# lintian exits non-zero for a tag of severity error, and when it fails.
if [ "$lintian_rc" -eq 0 ] && [ "$errors" -eq 0 ]; then
    ok "lintian: no error ($warnings warnings)"
else
    cp "$tmp/lintian" "$out"; : >"$err"
    bad "lintian" "exit $lintian_rc, $errors errors"
fi
grep '^W: ' "$tmp/lintian" | sed 's/^/     lintian: /'

# --- remove -------------------------------------------------------------------
cd / || exit 1
if run "${sudo[@]}" dpkg --purge zamboni; then
    installed=0
    ok "dpkg --purge"
else
    bad "dpkg --purge" "exit $?"
fi
left=""
dpkg-query -W -f='${Status}' zamboni 2>/dev/null | grep -q installed && left="$left package"
for f in /usr/bin/zamboni /usr/lib/$ma/libzamboni.so.0 \
         /usr/lib/$ma/pkgconfig/zamboni.pc /usr/include/zamboni \
         /usr/lib/systemd/system/zamboni-serve.service /var/lib/zamboni; do
    [ -e "$f" ] && left="$left $f"
done
getent passwd zamboni >/dev/null && left="$left user"
pkg-config --exists zamboni 2>/dev/null && left="$left pkg-config"
[ -z "$left" ] && ok "nothing left after purge" || bad "nothing left after purge" "left:$left"
finish

# tests/cli/harness.sh - sourced by the CLI test scripts: the zamboni
# binary ($1) and the fixtures ($2, optional) as absolute paths, a private
# temporary root, home and working folder (no ZAMBONI_* of the caller's),
# $out and $err (the last run's streams), and
#   ok NAME / bad NAME WHY          count a check (bad shows the output)
#   run ARGS...                     zamboni ARGS into $out and $err
#   expect NAME WANT_EXIT STDOUT_RE STDERR_RE -- ARGS...
#   snapshot DIR                    every file under DIR with its checksum
#   copy FIXTURE DEST               a fresh copy of a fixture table
# A script ends with: harness_done [NAME] (the counts; fails on a failure).
set -u
zb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
fx=
if [ $# -ge 2 ]; then fx=$(cd "$2" && pwd) || exit 1; fi
pass=0
fail=0
tmp=$(mktemp -d)
out=$tmp/out err=$tmp/err
# u+w first: some checks make folders read-only.
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
# A configuration of our own: no profile, .env or root of the caller's.
mkdir -p "$tmp/root" "$tmp/home" "$tmp/cwd"
cd "$tmp/cwd" || exit 1
for v in $(env | grep -o '^ZAMBONI_[A-Z0-9_]*'); do unset "$v"; done
export ZAMBONI_ROOT=$tmp/root HOME=$tmp/home

ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() {
    echo "FAIL $1: $2"
    sed 's/^/     stdout: /' "$out" | head -14
    sed 's/^/     stderr: /' "$err" | head -8
    fail=$((fail + 1))
}

run() { "$zb" "$@" >"$out" 2>"$err" </dev/null; }

# expect NAME WANT_EXIT STDOUT_PATTERN STDERR_PATTERN -- ARGS...
expect() {
    local name=$1 want=$2 out_pat=$3 err_pat=$4
    shift 5
    run "$@"
    local got=$?
    if [ "$got" -ne "$want" ]; then
        bad "$name" "exit $got, want $want"
    elif [ -n "$out_pat" ] && ! grep -qE -- "$out_pat" "$out"; then
        bad "$name" "stdout lacks /$out_pat/"
    elif [ -n "$err_pat" ] && ! grep -qE -- "$err_pat" "$err"; then
        bad "$name" "stderr lacks /$err_pat/"
    else
        ok "$name"
    fi
}

# A listing of every file under a folder with its checksum.
snapshot() { (cd "$1" && find . -type f | LC_ALL=C sort | xargs -d '\n' sha256sum); }
copy() { rm -rf "$2" && cp -a "$fx/$1" "$2"; }

harness_done() {
    echo "${1:+$1: }$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}

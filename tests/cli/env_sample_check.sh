#!/usr/bin/env bash
# Lint: every ZAMBONI_* variable named in the sources must be listed in
# env.sample (seed 003: "env.sample lists every variable Zamboni reads").
# A name counts as read when it appears anywhere under SRC_DIR (code,
# string or comment): a comment naming a variable promises users it
# exists. Names listed in env.sample but not found are reported as notes.
# Usage: env_sample_check.sh SRC_DIR ENV_SAMPLE
# Then checks itself: a source naming an unlisted variable must fail.
set -u
src=${1:?SRC_DIR}
sample=${2:?ENV_SAMPLE}

check() {   # check SRC SAMPLE -> prints missing names, returns 1 if any
    local s=$1 f=$2 missing=0 name
    [ -f "$f" ] || { echo "env_sample_check: $f does not exist"; return 1; }
    for name in $(grep -rhoE 'ZAMBONI_[A-Z0-9_]*[A-Z0-9]' "$s" \
                      --include='*.c' --include='*.h' | sort -u); do
        if ! grep -qE "^[[:space:]]*(#[[:space:]]*)?(export[[:space:]]+)?${name}=" "$f"; then
            echo "env_sample_check: $name is read under $s but not listed in $f"
            grep -rnE "\b${name}\b" "$s" --include='*.c' --include='*.h' \
                | head -3 | sed 's/^/    /'
            missing=1
        fi
    done
    return $missing
}

pass=0 fail=0
if check "$src" "$sample"; then
    echo "env_sample_check: every ZAMBONI_* variable under $src is in $sample"
    pass=$((pass + 1))
else
    fail=$((fail + 1))
fi
for name in $(grep -oE '^[[:space:]]*(#[[:space:]]*)?(export[[:space:]]+)?ZAMBONI_[A-Z0-9_]+=' "$sample" \
                  | grep -oE 'ZAMBONI_[A-Z0-9_]+' | sort -u); do
    grep -rqE "\b${name}\b" "$src" --include='*.c' --include='*.h' \
        || echo "env_sample_check: note: $name is listed but not read under $src"
done

# self-test: an unlisted variable is caught
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src"
printf 'const char *v = getenv("ZAMBONI_URI");\n' > "$tmp/src/a.c"
printf 'const char *w = getenv("ZAMBONI_NOT_LISTED_9");\n' > "$tmp/src/b.h"
printf '# comment\nZAMBONI_URI=\n' > "$tmp/env.sample"
if check "$tmp/src" "$tmp/env.sample" >"$tmp/out"; then
    echo "env_sample_check: self-test: an unlisted variable was not caught"
    fail=$((fail + 1))
elif ! grep -q 'ZAMBONI_NOT_LISTED_9 is read' "$tmp/out" ||
     grep -q 'ZAMBONI_URI is read' "$tmp/out"; then
    echo "env_sample_check: self-test: wrong report:"; cat "$tmp/out"
    fail=$((fail + 1))
else
    pass=$((pass + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

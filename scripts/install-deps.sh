#!/usr/bin/env bash
# Installs every Debian package that Zamboni's build and tests need, and the
# npm packages of package.json when there is one. Idempotent: when everything
# is already present it prints nothing and touches no package index.
#
# The list is the whole of DESIGN.md's dependency set, so that a later change
# that starts using one of them needs no new install step.
set -euo pipefail

debs=(
    build-essential cmake pkg-config ninja-build clang
    libjansson-dev      # JSON: table metadata, REST catalog
    libcurl4-openssl-dev # HTTP: REST catalog, S3
    libssl-dev          # S3: Content-MD5 of DeleteObjects (OpenSSL, as libcurl's TLS)
    libexpat1-dev       # S3: streaming XML of listings, errors, STS replies
    libsqlite3-dev      # embedded SQL catalog and queue
    libpq-dev postgresql # PostgreSQL catalog and queue; server for integration tests
    libyaml-dev         # zamboni.yml
    libzstd-dev libsnappy-dev zlib1g-dev liblz4-dev libbrotli-dev # Parquet/Avro codecs
    libmicrohttpd-dev   # serve/worker HTTP endpoints
    nodejs npm          # independent readers used by the interop tests
    # the .deb (cmake/package.cmake, tests/deploy/deb_test.sh):
    dpkg-dev file       # dpkg-shlibdeps for the Depends; CPack finds the ELF files with file
    help2man            # zamboni(1) from --help
    lintian             # the package checked for errors
    bash-completion     # the completion script's home (/usr/share/bash-completion)
    adduser             # the maintainer scripts' system user
    sqlite3             # tests/interop/other_writers.mjs: another writer's catalog commit
    chromium            # the dashboard's browser test (tests/serve/dashboard_browser.mjs)
)

missing=()
for p in "${debs[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done

# Node.js and npm may come from outside Debian's packages on some images;
# a working node and npm on PATH is as good as the packages.
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
    filtered=()
    for p in "${missing[@]+"${missing[@]}"}"; do
        case "$p" in nodejs|npm) ;; *) filtered+=("$p") ;; esac
    done
    missing=("${filtered[@]+"${filtered[@]}"}")
fi

if [ "${#missing[@]}" -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "install-deps: installing ${missing[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The manifests' test (tests/deploy/manifests_test.mjs) needs kubectl with
# kustomize v4 or later; Debian's kubernetes-client is older, so it is not
# installed from here: say so rather than fail later.
if ! command -v kubectl >/dev/null 2>&1; then
    echo "install-deps: kubectl not found: the test deploy_manifests will fail (needs kubectl >= 1.21, kustomize v4+)" >&2
fi

# npm packages (exact versions in package.json); the lock file stays out of git.
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -f "$here/package.json" ]; then
    stamp="$here/node_modules/.zb-installed"
    if [ ! -f "$stamp" ] || [ "$here/package.json" -nt "$stamp" ]; then
        echo "install-deps: npm install" >&2
        (cd "$here" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
        touch "$stamp"
    fi
fi

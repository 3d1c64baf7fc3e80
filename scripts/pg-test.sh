#!/usr/bin/env bash
# A throwaway PostgreSQL server on loopback for the tests: a private
# cluster in a temporary folder (owned by user postgres when run as root,
# since the server refuses to run as root), on a free port, trust auth on
# 127.0.0.1 only.
#
#   bash scripts/pg-test.sh run CMD [ARGS...]
#       start a server, run CMD with ZB_TEST_PG_URL set to its URL, stop the
#       server and remove its folder; exits with CMD's status. When the
#       PostgreSQL server binaries are missing, CMD runs without the URL
#       (the PostgreSQL tests then skip) and a note says so.
#   bash scripts/pg-test.sh start DIR    start a server in DIR, print its URL
#   bash scripts/pg-test.sh stop DIR     stop the server in DIR
set -euo pipefail

pg_bin() {
    local d
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
            echo "$d"
            return 0
        fi
    done
    if command -v initdb >/dev/null 2>&1; then
        dirname "$(command -v initdb)"
        return 0
    fi
    return 1
}

as_owner() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

start() {
    local dir=$1 bin port
    bin=$(pg_bin) || { echo "pg-test: no PostgreSQL server binaries" >&2; return 1; }
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then
        chown postgres: "$dir"
    fi
    as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust \
        --no-sync >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; return 1; }
    port=$(free_port)
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=100" \
        start >/dev/null \
        || { cat "$dir/server.log" >&2; return 1; }
    echo "$port" >"$dir/port"
    echo "postgresql://postgres@127.0.0.1:$port/postgres"
}

stop() {
    local dir=$1 bin
    bin=$(pg_bin) || return 0
    if [ -d "$dir/data" ]; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
}

case "${1:-}" in
    start)
        start "$2"
        ;;
    stop)
        stop "$2"
        ;;
    run)
        shift
        if ! pg_bin >/dev/null; then
            echo "pg-test: no PostgreSQL server binaries; PostgreSQL tests skip" >&2
            exec "$@"
        fi
        # Under /tmp, not $TMPDIR: user postgres must reach the folder.
        dir=$(mktemp -d /tmp/zb-pg.XXXXXX)
        chmod 755 "$dir"
        trap 'stop "$dir"; rm -rf "$dir"' EXIT
        url=$(start "$dir")
        echo "pg-test: PostgreSQL at $url" >&2
        status=0
        ZB_TEST_PG_URL=$url "$@" || status=$?
        exit "$status"
        ;;
    *)
        echo "usage: scripts/pg-test.sh run CMD... | start DIR | stop DIR" >&2
        exit 2
        ;;
esac

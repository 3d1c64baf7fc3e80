#!/usr/bin/env bash
# tests/serve/demo_fleet.sh - `zamboni demo DIR --fleet` (issue 19): the
# demo, then serve on the default listen address and one worker in the
# background; it prints the dashboard's URL and how to stop them, the
# dashboard answers, the worker registers and maintains the demo's
# tables, and the printed stop command ends both. Skipped (77) when
# 127.0.0.1:8650 is taken. Usage: demo_fleet.sh ZAMBONI
set -euo pipefail
zb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
pids=""
cleanup() {
    [ -n "$pids" ] && kill -KILL $pids 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$tmp"/demo/serve.log "$tmp"/demo/worker.log; do [ -f "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done; exit 1; }
if curl -s -m 2 -o /dev/null http://127.0.0.1:8650/ 2>/dev/null; then
    echo "SKIP: 127.0.0.1:8650 is taken"; exit 77
fi
unset ZAMBONI_ROOT ZAMBONI_URI ZAMBONI_QUEUE_URI ZAMBONI_WAREHOUSE ZAMBONI_SERVE_TOKEN
"$zb" demo "$tmp/demo" --fleet > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "demo --fleet exit $?"; }
grep -q '^  dashboard: http://127.0.0.1:8650/$' "$tmp/out" || { cat "$tmp/out"; fail "no dashboard URL"; }
stop=$(grep -A1 '^stop them:$' "$tmp/out" | tail -1 | sed 's/^  //')
[ "$stop" = "kill \$(cat \"$tmp/demo/fleet.pids\")" ] || fail "stop command: '$stop'"
pids=$(cat "$tmp/demo/fleet.pids")
[ "$(echo $pids | wc -w)" = 2 ] || fail "fleet.pids: '$pids'"
curl -s -m 5 http://127.0.0.1:8650/ | grep -q '/assets/app.js' || fail "no dashboard page"
ok=0
for _ in $(seq 1 150); do
    f=$(curl -s -m 5 http://127.0.0.1:8650/api/v1/fleet || true)
    if echo "$f" | grep -q '"workers":\[{' && \
       curl -s -m 5 'http://127.0.0.1:8650/api/v1/runs' | grep -q '"outcome":"success"'; then
        ok=1; break
    fi
    sleep 0.2
done
[ $ok = 1 ] || fail "no worker or no successful run within 30 s"
eval "$stop"
for p in $pids; do
    for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$p" 2>/dev/null && fail "pid $p still runs after the stop command"
done
pids=""
echo "demo --fleet: started, answered, maintained, stopped"

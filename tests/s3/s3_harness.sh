# tests/s3/s3_harness.sh - sourced by the S3 test scripts, after the CLI
# harness (tests/cli/harness.sh: $zb, $fx, $tmp, ok/bad/run/expect,
# harness_done). Adds an S3 server on loopback and the settings a user
# sets for it:
#   s3_start BUCKET...     s3rver (tests/s3/s3rver.mjs) with these buckets;
#                          exports ZAMBONI_S3_ENDPOINT (the server),
#                          ZAMBONI_S3_PATH_STYLE_ACCESS=true and s3rver's
#                          keys as AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY,
#                          AWS_REGION; sets $s3_url
#   proxy_start [FLAGS]    tests/s3/fault_proxy.mjs in front of it: $proxy_url
#   use_proxy / use_direct ZAMBONI_S3_ENDPOINT to the proxy or the server
#   proxy_faults JSON      the proxy's faults (POST /__proxy/faults)
#   proxy_reset            its counters to zero
#   proxy_stats            its counters (JSON) on stdout
#   s3_put LOCAL URI       upload a file or folder (independent client)
#   s3_get URI DIR         download everything under URI
#   s3_list URI            "SIZE KEY" lines of everything under URI
# The independent client always talks to the server itself, never
# through the proxy. Every server started here is stopped on exit.
# The node executable: $ZB_NODE, else node on PATH.
s3_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
node=${ZB_NODE:-node}
s3_pids=""
s3_cleanup() {
    local p
    for p in $s3_pids; do kill "$p" 2>/dev/null; done
    for p in $s3_pids; do wait "$p" 2>/dev/null; done
    chmod -R u+w "$tmp" 2>/dev/null
    rm -rf "$tmp"
}
trap s3_cleanup EXIT
# No credentials, profile or endpoint of the caller's.
for v in $(env | grep -o '^AWS_[A-Z0-9_]*'); do unset "$v"; done
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true
# A budget of our own: no warning about the machine's memory in every output.
export ZAMBONI_MEMORY_BUDGET_BYTES=2147483648
# s3rver answers a range on an empty object with a length and no body: a
# request that stalls is cut after 5 s here (the default, 30 s, would make
# each read of the 0-byte version-hint.text of a fixture cost a minute).
export ZAMBONI_S3_TIMEOUT_SECONDS=5

# start_listening NAME CMD... : runs CMD in the background, waits for
# its `listening PORT` line; sets ${NAME}_port.
start_listening() {
    local name=$1 log=$tmp/$1.out i port=""
    shift
    "$@" >"$log" 2>"$tmp/$name.err" &
    local pid=$!
    s3_pids="$s3_pids $pid"
    for i in $(seq 1 200); do
        port=$(sed -n '1s/^listening \([0-9][0-9]*\)$/\1/p' "$log" 2>/dev/null)
        [ -n "$port" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if [ -z "$port" ]; then
        echo "FAIL $name did not start: $(head -c 2000 "$tmp/$name.err")"
        exit 1
    fi
    printf -v "${name}_port" '%s' "$port"
    printf -v "${name}_pid" '%s' "$pid"
}

s3_start() {
    local args="" b
    for b in "$@"; do args="$args --bucket $b"; done
    mkdir -p "$tmp/s3data"
    # shellcheck disable=SC2086
    start_listening s3 "$node" "$s3_here/s3rver.mjs" --dir "$tmp/s3data" --port 0 $args
    s3_url=http://127.0.0.1:$s3_port
    export ZAMBONI_S3_ENDPOINT=$s3_url ZAMBONI_S3_PATH_STYLE_ACCESS=true
    export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1
}

proxy_start() {
    start_listening proxy "$node" "$s3_here/fault_proxy.mjs" --target "$s3_url" --listen 0 "$@"
    proxy_url=http://127.0.0.1:$proxy_port
}
use_proxy() { export ZAMBONI_S3_ENDPOINT=$proxy_url; }
use_direct() { export ZAMBONI_S3_ENDPOINT=$s3_url; }
proxy_faults() { curl -sf -X POST --data "$1" "$proxy_url/__proxy/faults" >/dev/null; }
proxy_reset() { curl -sf -X POST "$proxy_url/__proxy/reset" >/dev/null; }
proxy_stats() { curl -sf "$proxy_url/__proxy/stats"; }

s3_put() { ZAMBONI_S3_ENDPOINT=$s3_url "$node" "$s3_here/s3_put.mjs" "$1" "$2" >/dev/null </dev/null; }
s3_get() { ZAMBONI_S3_ENDPOINT=$s3_url "$node" "$s3_here/s3_get.mjs" "$1" "$2" >/dev/null </dev/null; }
s3_list() { ZAMBONI_S3_ENDPOINT=$s3_url "$node" "$s3_here/s3_list.mjs" "$1" </dev/null; }

#!/bin/bash
# Runs a command with an S3 server on loopback for it:
#   with_s3rver.sh NODE SOURCE_DIR COMMAND...
# starts tests/s3/s3rver.mjs (bucket "zbtest"), html_endpoint.mjs and
# fault_endpoint.mjs, sets ZB_TEST_S3_ENDPOINT, ZB_TEST_HTML_ENDPOINT,
# ZB_TEST_FAULT_ENDPOINT and the AWS_* keys s3rver
# knows, runs COMMAND, then stops both servers and removes their data.
set -u
node=$1 src=$2
shift 2
work=$(mktemp -d "${TMPDIR:-/tmp}/zb-s3.XXXXXX")
# The servers' pids go to a file: start runs in a command substitution
# (a subshell), where an array would not reach cleanup.
cleanup() {
    local p
    for p in $(cat "$work/pids" 2>/dev/null); do
        pkill -P "$p" 2>/dev/null     # s3rver.mjs's restarted node
        kill "$p" 2>/dev/null
    done
    wait 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

# start NAME SCRIPT ARGS...: waits for its "listening PORT" line.
start() {
    local name=$1 i
    shift
    "$node" "$@" >"$work/$name.out" 2>"$work/$name.err" &
    echo $! >>"$work/pids"
    for i in $(seq 1 200); do
        if read -r word port <"$work/$name.out" 2>/dev/null &&
           [ "$word" = listening ]; then
            echo "$port"
            return 0
        fi
        sleep 0.05
    done
    echo "with_s3rver.sh: $name did not start:" >&2
    cat "$work/$name.err" >&2
    return 1
}

s3port=$(start s3rver "$src/tests/s3/s3rver.mjs" --dir "$work/data" \
         --bucket zbtest) || exit 1
htmlport=$(start html "$src/tests/unit/io/html_endpoint.mjs") || exit 1
faultport=$(start fault "$src/tests/unit/io/fault_endpoint.mjs") || exit 1
export ZB_TEST_FAULT_ENDPOINT="http://127.0.0.1:$faultport"
export ZB_TEST_S3_ENDPOINT="http://127.0.0.1:$s3port"
export ZB_TEST_HTML_ENDPOINT="http://127.0.0.1:$htmlport"
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER
export AWS_REGION=us-east-1
"$@"

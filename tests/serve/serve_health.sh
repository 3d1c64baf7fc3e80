#!/usr/bin/env bash
# Issue 18, "Done when" (c): /health (readiness) answers 503 within its
# timeout, with a body that names the failed check, while the test's own
# PostgreSQL server is stopped, and 200 once it is back; /livez (liveness)
# stays 200 throughout; so do the answers' times. The server is one of
# this test's own (scripts/pg-test.sh start DIR), never the shared one of
# the other tests. Also: ZAMBONI_SERVE_TOKEN guards every endpoint but
# /health and /livez.
# Usage: serve_health.sh ZAMBONI ZB_TABLE_GEN NODE
. "$(dirname "${BASH_SOURCE[0]}")/serve_harness.sh"

here_scripts=$(cd "$serve_here/../../scripts" && pwd)
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r | head -1)
[ -x "$pg_bin/pg_ctl" ] || pg_bin=$(dirname "$(command -v pg_ctl 2>/dev/null || echo /none/x)")
[ -x "$pg_bin/pg_ctl" ] || { echo "SKIP: no pg_ctl"; exit 77; }
pgdir=$(mktemp -d /tmp/zb-serve-pg.XXXXXX)
chmod 755 "$pgdir"
serve_extra_cleanup='pg_own_stop'
pg_own_stop() { bash "$here_scripts/pg-test.sh" stop "$pgdir"; rm -rf "$pgdir"; }
own_url=$(bash "$here_scripts/pg-test.sh" start "$pgdir") || { echo "FAIL cannot start a server of its own"; exit 1; }
own_port=$(cat "$pgdir/port")
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
pg_own_start_again() {
    as_owner "$pg_bin/pg_ctl" -D "$pgdir/data" -l "$pgdir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $own_port -k $pgdir -c fsync=off -c max_connections=100" \
        start >/dev/null
}
pg_own_halt() { as_owner "$pg_bin/pg_ctl" -D "$pgdir/data" -m immediate -w stop >/dev/null; }
export ZAMBONI_URI=$own_url ZAMBONI_QUEUE_URI=$own_url
echo "serve: a server of its own at port $own_port"

export ZAMBONI_SIZE_CLASSES='[{"name":"small","cores":1,"memory":"512Mi","max_jobs":2}]'
expect migrate 0 '' '' -- db migrate
wh_config w1 '{"version": 2, "warehouse": "w1"}'
export ZAMBONI_SERVE_TOKEN=sesame-$$
serve_start s --warehouse w1 --plan-interval 1s || exit 1

http s /health
[ "$code" = 200 ] && ok "health_200_while_up" || bad health_200_while_up "HTTP $code: $(head -c 200 "$tmp/body")"

# the token: every endpoint but /health and /livez
http s /metrics
[ "$code" = 401 ] || [ "$code" = 403 ] && ok "metrics_needs_token ($code)" || bad metrics_needs_token "HTTP $code"
http s "/demand?class=small"
[ "$code" = 401 ] || [ "$code" = 403 ] && ok "demand_needs_token ($code)" || bad demand_needs_token "HTTP $code"
http s /metrics -H "Authorization: Bearer wrong"
[ "$code" = 401 ] || [ "$code" = 403 ] && ok "metrics_wrong_token ($code)" || bad metrics_wrong_token "HTTP $code"
SERVE_TOKEN=$ZAMBONI_SERVE_TOKEN http s /metrics
[ "$code" = 200 ] && ok metrics_with_token || bad metrics_with_token "HTTP $code"
if grep -rq "$ZAMBONI_SERVE_TOKEN" "$tmp/s.log"; then bad token_not_logged "the log holds the token"; else ok token_not_logged; fi

pg_own_halt && ok "own_server_stopped" || bad own_server_stopped "pg_ctl stop failed"
t0=$(date +%s%N)
got503() { HTTP_MAX_TIME=15 http s /health && [ "$code" = 503 ]; }
if wait_until 20 got503; then
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    ok "health_503_when_down (${ms} ms after the stop: $(head -c 120 "$tmp/body" | tr '\n' ' '))"
else
    bad health_503_when_down "HTTP $code: $(head -c 200 "$tmp/body")"; show_log s
fi
# each answer within the check's timeout (a few seconds), never a hang
worst=0
for i in 1 2 3; do
    a=$(date +%s%N)
    HTTP_MAX_TIME=15 http s /health
    ms=$(( ($(date +%s%N) - a) / 1000000 ))
    [ "$ms" -gt "$worst" ] && worst=$ms
    [ "$code" = 503 ] || break
done
[ "$code" = 503 ] && [ "$worst" -le 6000 ] && ok "health_503_within_timeout (worst ${worst} ms)" ||
    bad health_503_within_timeout "HTTP $code, worst ${worst} ms"
grep -qiE 'database|queue|postgres|connect|timeout' "$tmp/body" && ok "health_body_names_the_check" ||
    bad health_body_names_the_check "body: $(head -c 200 "$tmp/body")"
for i in 1 2 3; do
    a=$(date +%s%N)
    http s /livez
    ms=$(( ($(date +%s%N) - a) / 1000000 ))
    [ "$code" = 200 ] && [ "$ms" -le 2000 ] || break
done
[ "$code" = 200 ] && [ "$ms" -le 2000 ] && ok "livez_200_while_down" || bad livez_200_while_down "HTTP $code in ${ms} ms"
sleep 2                            # a planner cycle or two against no database
kill -0 "$s_pid" 2>/dev/null && ok serve_survives_the_outage || { bad serve_survives_the_outage "it exited"; show_log s; }

pg_own_start_again && ok own_server_back || bad own_server_back "pg_ctl start failed"
got200() { http s /health && [ "$code" = 200 ]; }
t0=$(date +%s%N)
if wait_until 30 got200; then
    ok "health_200_when_back ($(( ($(date +%s%N) - t0) / 1000000 )) ms)"
else
    bad health_200_when_back "HTTP $code: $(head -c 200 "$tmp/body")"; show_log s
fi
http s /livez
[ "$code" = 200 ] && ok livez_200_after || bad livez_200_after "HTTP $code"
SERVE_TOKEN=$ZAMBONI_SERVE_TOKEN http s "/demand?class=small"
[ "$code" = 200 ] && [ "$(jq -r .demand "$tmp/body")" = 0 ] && ok demand_after_outage || bad demand_after_outage "HTTP $code $(head -c 100 "$tmp/body")"
kill -TERM "$s_pid"
proc_wait s 20
[ "$s_rc" = 0 ] && ok serve_sigterm_exit_0 || { bad serve_sigterm_exit_0 "exit $s_rc"; show_log s; }
harness_done serve_health

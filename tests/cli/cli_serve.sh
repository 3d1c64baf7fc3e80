#!/usr/bin/env bash
# `zamboni serve` on the demo warehouse (src/cli/verbs/verb_serve.c,
# src/service/http): the start-up checks (a bad --listen or
# --plan-interval: exit 2; the queue schema missing: exit 3), then a real
# serve with a token on a free loopback port: /livez and /health open,
# /metrics and /demand 401 without the token, /metrics parsed by an
# independent Prometheus text parser (npm parse-prometheus-text-format),
# /demand's JSON, the planner's tasks in both; SIGTERM: exit 0 and the
# stop line.
# Usage: cli_serve.sh PATH/TO/zamboni SOURCE_DIR
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh" "$1"
src=${2:?SOURCE_DIR}

expect help 0 'Usage: zamboni serve' '' -- serve --help
grep -q -- '--listen ADDR:PORT' "$out" && grep -q '0.0.0.0:8650' "$out" &&
    grep -q -- '--plan-interval DURATION' "$out" &&
    grep -q -- '--queue-uri URI' "$out" &&
    ok help_flags || bad help_flags "flags missing"
d=$tmp/demo
run demo "$d" && ok demo || bad demo "exit $?"
export ZAMBONI_ROOT=$d
expect bad_listen 2 '' "listen address '8650' is not ADDR:PORT" \
    -- serve --listen 8650
expect bad_interval 2 '' 'plan interval \(0, --plan-interval\) must be at least 1s' \
    -- serve --plan-interval 0
expect no_schema 3 '' 'db migrate' -- serve --listen 127.0.0.1:0
expect unknown_flag 2 '' '' -- serve --bogus
expect migrate 0 '' '' -- db migrate

# --- a real serve ---------------------------------------------------------
log=$tmp/serve.log
ZAMBONI_SERVE_TOKEN=tok-cli "$zb" serve --listen 127.0.0.1:0 \
    --plan-interval 1s --warehouse demo >"$out" 2>"$log" </dev/null &
pid=$!
port=
for _ in $(seq 1 100); do
    port=$(sed -n 's/^serve http listening=127\.0\.0\.1:\([0-9]*\) token=set$/\1/p' "$log")
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] && ok listening_line || bad listening_line "$(cat "$log")"
base=http://127.0.0.1:${port:-1}
grep -q '^serve replica=[^ ]* warehouses=demo plan_interval_ms=1000 event=start$' "$log" &&
    ok start_line || bad start_line "$(cat "$log")"
code() { curl -s --noproxy '*' -o "$tmp/body" -w '%{http_code}' "$@"; }
[ "$(code "$base/livez")" = 200 ] && ok livez || bad livez "not 200"
[ "$(code "$base/health")" = 200 ] && grep -q '^queue_database: ok$' "$tmp/body" &&
    ok health || bad health "$(cat "$tmp/body")"
[ "$(code "$base/metrics")" = 401 ] && ok metrics_needs_token || bad metrics_needs_token "not 401"
[ "$(code -H 'Authorization: Bearer nope' "$base/demand?class=standard")" = 401 ] &&
    ok demand_wrong_token || bad demand_wrong_token "not 401"
auth='Authorization: Bearer tok-cli'
# the planner's first cycle puts the demo's tasks on the queue
added=0
for _ in $(seq 1 50); do
    grep -q '^planner event=added ' "$log" && { added=1; break; }
    sleep 0.1
done
[ $added = 1 ] && ok planner_added || bad planner_added "$(cat "$log")"
[ "$(code -H "$auth" "$base/metrics")" = 200 ] && ok metrics_200 || bad metrics_200 "not 200"
cp "$tmp/body" "$tmp/metrics.txt"
sched=$(sqlite3 "$d/catalog.db" "SELECT count(*) FROM zamboni_tasks WHERE state = 'scheduled' AND size_class = 'standard'" 2>/dev/null || echo "")
if command -v node >/dev/null && [ -d "$src/node_modules/parse-prometheus-text-format" ]; then
    SCHED=$sched PARSER=$src/node_modules/parse-prometheus-text-format node -e '
      const parse = require(process.env.PARSER);
      const fams = parse(require("fs").readFileSync(process.argv[1], "utf8"));
      const by = Object.fromEntries(fams.map(f => [f.name, f]));
      const need = { zamboni_tasks: "GAUGE", zamboni_attempts_total: "COUNTER",
        zamboni_demand: "GAUGE", zamboni_planner_tasks_added_total: "COUNTER",
        zamboni_planner_leader: "GAUGE",
        zamboni_planner_cycle_duration_seconds: "GAUGE" };
      for (const [n, t] of Object.entries(need))
        if (!by[n] || by[n].type !== t || !by[n].help) {
          console.error("family " + n + " missing or not " + t); process.exit(1); }
      const s = by.zamboni_tasks.metrics.find(m =>
        m.labels.class === "standard" && m.labels.state === "scheduled");
      if (!s || (process.env.SCHED !== "" && s.value !== process.env.SCHED)) {
        console.error("scheduled tasks " + JSON.stringify(s)); process.exit(1); }
      const outcomes = by.zamboni_attempts_total.metrics.map(m => m.labels.outcome).sort();
      if (outcomes.join() !== "abandoned,cancelled,failed,lost,success") {
        console.error("outcomes " + outcomes); process.exit(1); }
      if (Number(by.zamboni_planner_tasks_added_total.metrics[0].value) < 1 ||
          by.zamboni_planner_leader.metrics[0].value !== "1") {
        console.error("planner figures"); process.exit(1); }' "$tmp/metrics.txt" 2>"$err" &&
        ok metrics_parsed || bad metrics_parsed "$(cat "$err")"
else
    echo "SKIP metrics_parsed (node or parse-prometheus-text-format missing)"
fi
[ "$(code -H "$auth" "$base/demand?class=standard")" = 200 ] && ok demand_200 || bad demand_200 "not 200"
if command -v node >/dev/null; then
    node -e '
      const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      if (d.class !== "standard" || !Number.isInteger(d.demand) || d.demand < 1 ||
          Object.keys(d).length !== 2) process.exit(1);' "$tmp/body" &&
        ok demand_json || bad demand_json "$(cat "$tmp/body")"
fi
[ "$(code -H "$auth" "$base/demand?class=nope")" = 404 ] && grep -q '"error"' "$tmp/body" &&
    ok demand_unknown_404 || bad demand_unknown_404 "$(cat "$tmp/body")"
[ "$(code -H "$auth" "$base/demand")" = 400 ] && ok demand_missing_400 || bad demand_missing_400 "not 400"

kill -TERM "$pid"
wait "$pid"
got=$?
[ $got -eq 0 ] && ok sigterm_exit_0 || bad sigterm_exit_0 "exit $got: $(tail -3 "$log")"
grep -q '^serve replica=[^ ]* event=stop reason=signal$' "$log" &&
    ok stop_line || bad stop_line "$(tail -3 "$log")"
[ "$(code "$base/livez")" = 000 ] && ok http_stopped || bad http_stopped "still answers"

harness_done cli_serve

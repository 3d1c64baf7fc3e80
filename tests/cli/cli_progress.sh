#!/usr/bin/env bash
# The progress line of the operation verbs (src/cli/verbs/progress.c): with
# stderr not a terminal, compact, expire and remove-orphans write no
# carriage return or escape to either stream; under a pseudo-terminal
# (script(1), when present) the line is drawn and erased, and the report
# lines stay whole.
# Usage: cli_progress.sh PATH/TO/zamboni FIXTURES_DIR
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
# A budget given, so that a machine without a cgroup memory limit does not
# add its "no memory limit found" warning to stderr (cli_resources.sh
# tests that warning).
export ZAMBONI_MEMORY_BUDGET_BYTES=1073741824
esc=$(printf '\033')
cr=$(printf '\r')

t=$tmp/t
copy impala-v2-pos-some-files "$t"
for v in compact expire remove-orphans; do
    extra=
    [ "$v" = remove-orphans ] && extra="--older-than-days 1"
    run "$v" $extra "$t"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        bad "plain_$v" "exit $rc: $(head -3 "$err")"
    elif grep -q "[$esc$cr]" "$out" "$err"; then
        bad "plain_$v" "control characters on a non-terminal"
    elif [ -s "$err" ]; then
        bad "plain_$v" "stderr not empty: $(head -3 "$err")"
    else
        ok "plain_$v"
    fi
done

if command -v script >/dev/null 2>&1 &&
   script -qec true /dev/null >/dev/null 2>&1; then
    t2=$tmp/t2
    copy impala-v2-pos-some-files "$t2"
    script -qec "'$zb' expire '$t2'" /dev/null >"$tmp/tty" 2>&1 </dev/null
    if grep -q "expire: files deleted" "$tmp/tty" &&
       grep -q "$cr$esc\[K" "$tmp/tty"; then
        ok tty_line_drawn_and_erased
    else
        bad tty_line_drawn_and_erased "$(od -c "$tmp/tty" | head -5)"
    fi
    # What a terminal shows: each line (the terminal ends it with CR LF)
    # from its last carriage return.
    if sed -e "s/$esc\[K//g" -e "s/$cr\$//" "$tmp/tty" |
       awk -F"$cr" '{ print $NF }' |
       grep -qE "^$t2: expired [0-9]+ snapshot\(s\), retained [0-9]+, deleted [1-9][0-9]* file\(s\)$"; then
        ok tty_report_whole
    else
        bad tty_report_whole "$(head -3 "$tmp/tty")"
    fi
else
    echo "SKIP tty checks: script(1) cannot make a terminal here"
fi
harness_done

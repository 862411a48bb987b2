#!/bin/sh
# escalate.sh — `warden run --escalate MODE --justification TEXT` through
# the real approval service: each of the four outcomes, with answerers in
# worker processes.  Only allowed-once runs the command, once, under the
# asked mode and not after; every other outcome is named and runs nothing;
# the answerer sees tool bash, the command, the mode and the reason; the
# audit pair and the run's event are in the session log.
. "$top_srcdir/tests/run/lib.sh"

ZOO=$top_builddir/tests/zoo/.libs
RULES=$top_builddir/plugins/rules/.libs/rules.so
for f in "$ZOO/zoo_answerer.so" "$ZOO/zoo_decide_hang.so" "$RULES"; do
	[ -e "$f" ] || { echo "FAIL: $f was not built"; exit 1; }
done

# answerers NAME SECTION-LINES...: a read-only bwrap config with this chain.
answerers() {
	name=$1
	shift
	EXTRA="plugin_dir = $ZOO" config "$name" read-only bwrap "$@"
}
answerers allow "[answerer rules]
plugin = $RULES
deny = bash:*rm -rf*
allow = bash:*echo escalated*"
answerers reject "[answerer no]
plugin = zoo_answerer
decision = rejected"
answerers cancel "[answerer stop]
plugin = zoo_answerer
decision = cancelled"
answerers none
answerers hang "[answerer hang]
plugin = zoo_decide_hang"
answerers broken "[answerer boom]
plugin = zoo_decide_error"
answerers chain "[answerer rules]
plugin = $RULES
allow = read:*" "[answerer no]
plugin = zoo_answerer
decision = rejected"

# session CONFIG: a fresh session in $T/ws, exported.
session() {
	WARDEN_SESSION=$("$WARDEN" --config "$T/$1.ini" session new --cwd "$T/ws" | tail -n 1)
	export WARDEN_SESSION
}

# events CONFIG TYPE: the session's events of TYPE, one JSON object a line.
events() {
	"$WARDEN" --config "$T/$1.ini" session show "$WARDEN_SESSION" --json |
		"$PY" -c 'import json, sys
for e in json.load(sys.stdin)["events"]:
    if e["type"] == sys.argv[1]:
        print(json.dumps(e, sort_keys=True))' "$2"
}

echo "---- allowed-once: the command runs once, under the asked mode"
session allow
wr allow run --json --escalate danger-full-access --justification 'publish the report' \
	-c "echo escalated >'$T/outside/file'"
expect "allowed-once runs it" 0 class=ok mode=danger-full-access mode_source=explicit backend=None
[ "$(cat "$T/outside/file")" = escalated ] && ok "the write outside landed" || fail "the write outside did not land"
err_has "says who allowed it and why" "^warden: run: escalation to danger-full-access allowed once \(answerer rules: allow = bash:\*echo escalated\* \($T/allow.ini:[0-9]*\)\)$"
"$PY" - "$(events allow approval/asked)" "$(events allow approval/decided)" "$T/outside/file" <<'PY' || fail "audit pair"
import json, sys
asked, decided = json.loads(sys.argv[1]), json.loads(sys.argv[2])
flat = json.dumps(asked)
assert "bash" in flat and "echo escalated >'%s'" % sys.argv[3] in flat, asked
assert "danger-full-access" in flat and "publish the report" in flat, asked
assert decided["outcome"] == "allowed-once", decided
assert decided["answerer"] == "rules" and decided["delegated"] == [], decided
assert decided["reason"].startswith("allow = bash:*echo escalated* ("), decided
assert asked["request_id"] == decided["request_id"], (asked, decided)
print("ok: approval/asked carries tool, subject, mode and reason; approval/decided allowed-once")
PY
events allow sandbox/run | tail -n 1 | "$PY" -c '
import json, sys
e = json.load(sys.stdin)
assert e["mode"] == "danger-full-access" and e["mode_source"] == "explicit", e
assert e["escalation"]["outcome"] == "allowed-once" and e["escalation"]["request_id"], e
assert e["escalation"]["answerer"] == "rules", e
assert e["escalation"]["reason"].startswith("allow = bash:*echo escalated* ("), e
print("ok: the run event records the escalation")' || fail "run event"
echo original >"$T/outside/file"
wr allow run --json -c "echo again >'$T/outside/file'"
expect "the next run is back under the session's mode" 1 class=denied mode=read-only
[ "$(cat "$T/outside/file")" = original ] && ok "not persisted: the outside file is unchanged" ||
	fail "the escalation outlived its run"
"$WARDEN" --config "$T/allow.ini" session state | grep -q '^mode: read-only (config)$' &&
	ok "no sandbox/mode event was written" || fail "the session's mode changed"
wr allow run --escalate workspace-write --justification 'write the build' -- sh -c "echo escalated >'$T/ws/built'"
expect "an argv escalation to workspace-write" 0
[ -e "$T/ws/built" ] && ok "workspace-write was granted for it" || fail "no write in the workspace"
wr allow run --json --escalate danger-full-access --justification x -c "rm -rf '$T/outside'"
expect "the rules answerer's deny" 77 class=None started=False refused=escalation
[ -e "$T/outside/file" ] && ok "nothing ran" || fail "the rejected command ran"
err_has "the escalating caller is told the rule" "^warden: run: escalation to danger-full-access was not granted: the approval outcome is rejected: answerer rules: deny = bash:\*rm -rf\* \($T/allow.ini:[0-9]*\); nothing was run$"
tail -n 1 "$T/out" | "$PY" -c '
import json, sys
e = json.load(sys.stdin)["escalation"]
assert e["outcome"] == "rejected" and e["answerer"] == "rules", e
assert e["reason"].startswith("deny = bash:*rm -rf* (") and e["delegated"] == [], e
print("ok: run --json gives the deciding answerer and its reason")' || fail "run --json escalation reason"

echo "---- the answerers that delegated are named, in order"
session chain
wr chain run --json --escalate danger-full-access --justification x -c "echo escalated >'$T/outside/file'"
expect "a chain: rules delegates, the next one rejects" 77
tail -n 1 "$T/out" | "$PY" -c '
import json, sys
e = json.load(sys.stdin)["escalation"]
assert e["outcome"] == "rejected" and e["answerer"] == "no" and e["delegated"] == ["rules"], e
assert e["reason"] is None, e
print("ok: run --json names the delegating answerer")' || fail "run --json delegated"
[ "$(events chain approval/decided | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["delegated"])')" = "['rules']" ] &&
	ok "approval/decided records who delegated" || fail "approval/decided delegated"

echo "---- every other outcome: named, nothing runs"
for c in reject cancel none; do
	session $c
	wr $c run --json --escalate danger-full-access --justification 'need it' \
		-c "echo escalated >'$T/outside/file'"
	case $c in
	reject) outcome=rejected ;; cancel) outcome=cancelled ;; none) outcome=unavailable ;;
	esac
	expect "$c: refused" 77 class=None started=False refused=escalation
	[ "$(cat "$T/outside/file")" = original ] && ok "$c: nothing ran" || fail "$c: the command ran"
	err_has "$c: names the outcome" "^warden: run: escalation to danger-full-access was not granted: the approval outcome is $outcome: .*; nothing was run$"
	[ "$(events $c approval/decided | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["outcome"])')" = $outcome ] &&
		ok "$c: approval/decided says $outcome" || fail "$c: approval/decided"
done
echo "---- a failing answerer: named once, with its own reason"
session broken
wr broken run --escalate danger-full-access --justification x -c "echo escalated >'$T/outside/file'"
expect "an answerer that fails" 77
err_has "its name and reason, said once" "^warden: run: escalation to danger-full-access was not granted: the approval outcome is unavailable: answerer boom: failed: the policy service is unreachable; nothing was run$"
grep -q 'answerer boom: answerer boom' "$T/err" && fail "the answerer is named twice: $(cat "$T/err")"
[ "$(cat "$T/outside/file")" = original ] && ok "nothing ran" || fail "the command ran after a failing answerer"

session allow
"$WARDEN" --config "$T/allow.ini" policy set never >/dev/null
wr allow run --escalate danger-full-access --justification x -c "echo escalated >'$T/outside/file'"
expect "policy never: rejected before any answerer" 77
err_has "policy never is named" "outcome is rejected"
[ "$(cat "$T/outside/file")" = original ] && ok "nothing ran" || fail "the command ran under policy never"

echo "---- withdrawn: SIGINT while the answerer hangs"
session hang
(cd "$T/ws" && exec "$WARDEN" --config "$T/hang.ini" run --escalate danger-full-access \
	--justification x -c "echo escalated >'$T/outside/file'") >"$T/out" 2>"$T/err" </dev/null &
wpid=$!
i=0
until [ -n "$(events hang approval/asked)" ] || [ $i -ge 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 0.3
kill -INT $wpid
wait $wpid
rc=$?
expect "SIGINT withdraws the request" 130
err_has "cancelled is named" "outcome is cancelled"
[ "$(cat "$T/outside/file")" = original ] && ok "nothing ran" || fail "the command ran after a withdrawal"

finish

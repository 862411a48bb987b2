#!/bin/sh
# escalate-network.sh — `warden run --escalate-network`, alone and with
# --escalate MODE, through the real approval service, against real servers
# on this machine (tests/run/net-servers.py: each writes a marker when
# contacted).  Only allowed-once runs the command with the network
# enabled, once: the next run is restricted again and the session's knob
# is unchanged; every other outcome runs nothing.  The request carries the
# network asked for (approval/asked, the exec answerer's JSON), and the
# run's report and event say the network came from the escalation.
. "${top_srcdir:?run by make check}/tests/run/lib.sh"

CLIENT=$top_srcdir/tests/run/net-client.py
ZOO=$top_builddir/tests/zoo/.libs
RULES=$top_builddir/plugins/rules/.libs/rules.so
EXEC=$top_builddir/plugins/exec/.libs/exec.so
for f in "$ZOO/zoo_answerer.so" "$RULES" "$EXEC"; do
	[ -e "$f" ] || { echo "FAIL: $f was not built"; exit 1; }
done
SOCKDIR=$(mktemp -d /var/tmp/warden-esc-net-XXXXXX)
chmod 755 "$SOCKDIR"
net_servers "$T/net" "$SOCKDIR"
TARGETS="tcp4 unix abstract"

# The exec answerer: keeps the request it was shown, then allows.
cat >"$T/answer.sh" <<EOF
#!/bin/sh
cat >"$T/request.json"
echo allowed-once
EOF
chmod 755 "$T/answer.sh"

for b in bwrap landlock; do
	EXTRA="plugin_dir = $ZOO" config "allow-$b" read-only "$b" "[answerer rules]
plugin = $RULES
allow = bash:*net-client.py*"
	EXTRA="plugin_dir = $ZOO" config "reject-$b" read-only "$b" "[answerer no]
plugin = zoo_answerer
decision = rejected"
done
config exec read-only landlock "[answerer shown]
plugin = $EXEC
command = $T/answer.sh"

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

# client CONFIG WARDEN-RUN-ARGS...: the client against $TARGETS; markers
# afresh.
client() {
	c=$1
	shift
	rm -rf "$T/net/markers"
	mkdir "$T/net/markers"
	wr "$c" run --json "$@" -- "$PY" "$CLIENT" "$T/net/addresses" $TARGETS
	sleep 0.3
}

# reached WHAT YES|NO: every target's marker and the client's line agree.
reached() {
	for t in $TARGETS; do
		line=$(grep "^$t: " "$T/out" || echo "$t: no line")
		if [ "$2" = yes ]; then
			[ -e "$T/net/markers/$t" ] && [ "${line#*: }" = reached ] &&
				ok "$1: $t reached" || fail "$1: $t not reached ($line)"
		else
			[ ! -e "$T/net/markers/$t" ] &&
				ok "$1: $t not contacted" || fail "$1: $t was contacted ($line)"
		fi
	done
}

for b in bwrap landlock; do
	echo "---- $b: allowed-once runs it with the network enabled, once"
	session "allow-$b"
	client "allow-$b" --escalate-network --justification 'fetch the dependencies'
	expect "$b: allowed-once" 0 class=ok mode=read-only mode_source=config \
		network=enabled network_source=explicit backend="$b" network_enforcement=full
	reached "$b: escalated" yes
	err_has "$b: says who allowed it" "^warden: run: escalation to network enabled allowed once \(answerer rules: allow = bash:\*net-client.py\* \($T/allow-$b.ini:[0-9]*\)\)$"
	tail -n 1 "$T/out" | "$PY" -c '
import json, sys
e = json.load(sys.stdin)["escalation"]
assert e["network"] == "enabled" and e["mode"] is None, e
assert e["outcome"] == "allowed-once" and e["answerer"] == "rules", e
print("ok: run --json: escalation.network enabled, no mode asked")' || fail "$b: run --json escalation"
	"$PY" - "$(events "allow-$b" approval/asked)" "$(events "allow-$b" sandbox/run | tail -n 1)" <<'PY' || fail "$b: audit"
import json, sys
asked, run = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert asked["requested_network"] == "enabled", asked
assert "requested_mode" not in asked, asked
assert asked["reason"] == "fetch the dependencies", asked
assert run["network"] == "enabled" and run["network_source"] == "explicit", run
assert run["escalation"]["network"] == "enabled", run
print("ok: approval/asked carries requested_network; sandbox/run says explicit")
PY
	client "allow-$b"
	expect "$b: the next run is restricted again" 0 network=restricted network_source=config
	reached "$b: after the escalation" no
	"$WARDEN" --config "$T/allow-$b.ini" session state | grep -q '^network: restricted (config)$' &&
		ok "$b: no sandbox/network event was written" || fail "$b: the session's network changed"

	echo "---- $b: with --escalate workspace-write: both, once"
	client "allow-$b" --escalate workspace-write --escalate-network --justification 'build and fetch'
	expect "$b: mode and network" 0 mode=workspace-write mode_source=explicit \
		network=enabled network_source=explicit
	reached "$b: mode and network" yes
	err_has "$b: both named" "^warden: run: escalation to workspace-write with network enabled allowed once"
	events "allow-$b" approval/asked | tail -n 1 | "$PY" -c '
import json, sys
a = json.load(sys.stdin)
assert a["requested_mode"] == "workspace-write" and a["requested_network"] == "enabled", a
print("ok: the request carries both")' || fail "$b: request with both"
	# --escalate alone asks for no network.
	client "allow-$b" --escalate workspace-write --justification 'build'
	expect "$b: --escalate alone" 0 mode=workspace-write network=restricted network_source=config
	reached "$b: --escalate alone" no
	events "allow-$b" approval/asked | tail -n 1 | "$PY" -c '
import json, sys
a = json.load(sys.stdin)
assert "requested_network" not in a, a
print("ok: --escalate alone asks for no network")' || fail "$b: --escalate alone asked for the network"

	echo "---- $b: rejected: nothing runs"
	session "reject-$b"
	client "reject-$b" --escalate-network --justification 'fetch'
	expect "$b: rejected" 77 class=None started=False refused=escalation
	untouched=1
	for t in $TARGETS; do
		[ -e "$T/net/markers/$t" ] && untouched=0
	done
	[ $untouched = 1 ] && ok "$b: rejected: no server contacted" || fail "$b: rejected: a server was contacted"
	[ -z "$(grep -v '^{' "$T/out")" ] && ok "$b: rejected: the client never ran" || fail "$b: rejected: output $(cat "$T/out")"
	err_has "$b: names the outcome" "^warden: run: escalation to network enabled was not granted: the approval outcome is rejected: answerer no; nothing was run$"
done

echo "---- the exec answerer is shown the network asked for"
session exec
client exec --escalate-network --justification 'fetch'
expect "exec: allowed-once" 0 network=enabled network_source=explicit
"$PY" - "$T/request.json" <<'PY' || fail "exec answerer's request: $(cat "$T/request.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["network"] == "enabled" and r["mode"] == "", r
assert r["reason"] == "fetch", r
print("ok: the exec answerer's JSON has network enabled")
PY

echo "---- usage"
session allow-landlock
wr allow-landlock run --escalate-network -- true
expect "--escalate-network without --justification" 64
err_has "says what is missing" '^warden: run: --escalate-network needs --justification TEXT'
wr allow-landlock run --justification x -- true
expect "--justification alone" 64
err_has "names both escalations" 'goes with --escalate MODE or --escalate-network'
(unset WARDEN_SESSION; cd "$T/ws" && "$WARDEN" --config "$T/allow-landlock.ini" run \
	--escalate-network --justification x -- true) >"$T/out" 2>"$T/err" </dev/null
rc=$?
expect "--escalate-network without a session" 64
err_has "needs a session" '--escalate-network needs a session'
finish

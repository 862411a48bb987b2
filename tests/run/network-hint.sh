#!/bin/sh
# network-hint.sh — the agent's hint after a run the restricted network
# refused: against a real TCP server and a real unix socket server on this
# machine (each writes a marker when contacted), a command that fails
# because its connection was refused is `denied`, says so on standard
# error with how to ask (--escalate-network) and in --json
# (network_denied, network_denial); the same failure with the network
# enabled, a file denial, and an ordinary failure say nothing of the
# network; under approval policy never the line says escalation is not
# possible.
. "${top_srcdir:?run by make check}/tests/run/lib.sh"

SOCKDIR=$(mktemp -d /var/tmp/warden-net-hint-XXXXXX)
chmod 755 "$SOCKDIR"
net_servers "$T/net" "$SOCKDIR"
PORT=$(sed -n 's/^tcp4 //p' "$T/net/addresses")
SOCK=$(sed -n 's/^unix //p' "$T/net/addresses")

# The commands: bash's /dev/tcp, curl, and Python on the unix socket.
TCP="exec 3<>/dev/tcp/127.0.0.1/$PORT && echo connected"
CURL="curl -sS --max-time 5 http://127.0.0.1:$PORT/"
UNIX="import socket; s = socket.socket(socket.AF_UNIX); s.connect('$SOCK'); print('connected')"

contacted() {
	[ -n "$(ls "$T/net/markers" 2>/dev/null)" ]
}

for b in bwrap landlock; do
	config "$b" read-only "$b"
	wr "$b" session new --cwd "$T/ws"
	sid=$(tail -n 1 "$T/out")

	echo "---- $b: a connection the restricted network refused"
	for kind in tcp curl unix; do
		rm -rf "$T/net/markers"
		mkdir "$T/net/markers"
		case $kind in
		tcp) wr "$b" --session "$sid" run --json -c "$TCP" ;;
		curl) wr "$b" --session "$sid" run --json -c "$CURL" ;;
		unix) wr "$b" --session "$sid" run --json -- "$PY" -c "$UNIX" ;;
		esac
		if [ "$rc" = 0 ]; then
			fail "$b $kind: the command succeeded: $(cat "$T/out")"
			continue
		fi
		expect "$b $kind: denied" "$rc" class=denied network=restricted \
			network_denied=True escalate_network=True escalate_to=None denied_path=None \
			"denial=a connection was refused: the network is restricted (no TCP, UDP or host socket)"
		contacted && fail "$b $kind: a server was contacted" || ok "$b $kind: no server contacted"
		[ "$(field network_denial)" != None ] && ok "$b $kind: network_denial: $(field network_denial)" ||
			fail "$b $kind: no network_denial"
		case $kind in unix) dash='-- ...' ;; *) dash="-c '...'" ;; esac
		err_has "$b $kind: the hint says how to ask" \
			"^warden: denied by the restricted network \(read-only sandbox, $b\): .*; to ask for the network: warden run --escalate-network --justification 'WHY' $dash$"
		grep -q -- '--escalate workspace-write' "$T/err" &&
			fail "$b $kind: a file-denial hint was given too: $(cat "$T/err")" ||
			ok "$b $kind: no file-denial hint"
	done
	events=$("$WARDEN" --config "$T/$b.ini" session show "$sid" --json)
	printf '%s' "$events" | "$PY" -c '
import json, sys
e = [e for e in json.load(sys.stdin)["events"] if e["type"] == "sandbox/run"][-1]
assert e["network_denied"] is True and e["network_denial"], e
print("ok: the sandbox/run event carries network_denied")' || fail "$b: the event"

	echo "---- $b: the same with the network enabled reaches the server"
	wr "$b" --session "$sid" network set enabled
	rm -rf "$T/net/markers"
	mkdir "$T/net/markers"
	wr "$b" --session "$sid" run --json -c "$TCP"
	expect "$b: enabled" 0 class=ok network=enabled network_denied=False network_denial=None
	contacted && ok "$b: enabled: the server was contacted" || fail "$b: enabled: no marker"
	# A port nobody listens on: refused by the host, not by the sandbox.
	wr "$b" --session "$sid" run --json -c "exec 3<>/dev/tcp/127.0.0.1/1"
	expect "$b: enabled, nobody listening" 1 class=failed network_denied=False
	grep -q 'restricted network' "$T/err" && fail "$b: enabled: a network hint: $(cat "$T/err")" ||
		ok "$b: enabled: no network hint"
	wr "$b" --session "$sid" network set restricted

	echo "---- $b: a file denial and an ordinary failure say nothing of the network"
	wr "$b" --session "$sid" run --json -c "echo x >'$T/outside/file'"
	expect "$b: file denial" 1 class=denied network_denied=False network_denial=None \
		escalate_network=False escalate_to=workspace-write
	err_has "$b: the file hint" "^warden: denied by the read-only sandbox \($b\): .*--escalate workspace-write"
	grep -q 'restricted network' "$T/err" && fail "$b: file denial: a network hint" || ok "$b: file denial: no network hint"
	wr "$b" --session "$sid" run --json -c "echo nope >&2; exit 3"
	expect "$b: ordinary failure" 3 class=failed network_denied=False
	[ -s "$T/err" ] && [ "$(cat "$T/err")" = nope ] && ok "$b: no hint at all" || fail "$b: ordinary failure: $(cat "$T/err")"

	echo "---- $b: approval policy never"
	wr "$b" --session "$sid" policy set never
	wr "$b" --session "$sid" run --json -c "$TCP"
	expect "$b: policy never" "$rc" class=denied network_denied=True escalate_network=False escalate_to=None
	err_has "$b: policy never" "^warden: denied by the restricted network \(read-only sandbox, $b\): .*; escalation is not possible \(approval policy never\)$"
done
finish

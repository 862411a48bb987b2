#!/bin/sh
# evidence.sh — results that never mislead, through real bwrap and
# Landlock runs: a denial is claimed only with evidence.  Stderr that
# merely reads like a refusal (a server that is down, a program that
# prints the backend's words about a path it never touched) is `failed`
# with a hint, never `denied`, `network_denied` or an escalation offer;
# a real refused write outside the root stays `denied`; a signal death
# reads the same on both backends; run --json carries the enforcement
# detail; escalating to the mode already in force is a usage error.
. "${top_srcdir:?run by make check}/tests/run/lib.sh"

for b in bwrap landlock; do
	config "$b" workspace-write "$b"

	echo "---- $b: a database that is down is no network denial"
	wr "$b" run --json -c 'echo "could not connect to server: Connection refused" >&2; exit 2'
	expect "$b: refused connection without evidence is failed" 2 class=failed \
		network_denied=False escalate_network=False escalate_to=None denial=None
	[ "$(field hint)" != None ] && ok "$b: a hint says what it may be" || fail "$b: no hint"
	err_has "$b: the hint is on stderr" '^warden: failed, not denied: .*--escalate-network'

	echo "---- $b: a closed port of this host, asked for over TCP"
	wr "$b" run --json -c 'exec 3<>/dev/tcp/127.0.0.1/1'
	case $b in
	# Its own network namespace refuses it as the host would: no evidence.
	bwrap) expect "$b: nothing listens on the host: failed" 1 class=failed network_denied=False escalate_network=False ;;
	# Landlock's TCP rule answers EACCES: the guard's own refusal.
	landlock) expect "$b: the guard refused it: denied" 1 class=denied network_denied=True escalate_network=True ;;
	esac

	echo "---- $b: the backend's words about paths it never refused"
	wr "$b" run --json -c "echo 'cp: cannot create regular file /srv/$$-none/x: Read-only file system' >&2; exit 1"
	expect "$b: a directory that does not exist" 1 class=failed denied_path=None escalate_to=None
	wr "$b" run --json -c "echo 'cp: cannot create regular file $T/ws/x: Read-only file system' >&2; echo '$T/ws/y: Permission denied' >&2; exit 1"
	expect "$b: a path inside the writable root" 1 class=failed denied_path=None escalate_to=None
	wr "$b" run --json -c "echo 'touch: something: Read-only file system; Permission denied' >&2; exit 1"
	expect "$b: no path at all" 1 class=failed escalate_to=None

	echo "---- $b: a real refused write stays denied"
	wr "$b" run --json -c "echo x > '$T/outside/new'"
	expect "$b: outside the root" 1 class=denied "denied_path=$T/outside/new" escalate_to=danger-full-access hint=None
	[ ! -e "$T/outside/new" ] && ok "$b: nothing written outside" || fail "$b: $T/outside/new was written"

	echo "---- $b: a signal and an exit told apart"
	wr "$b" run --json -c 'kill -TERM $$'
	expect "$b: killed by SIGTERM" 143 class=failed exit=None signal=15
	wr "$b" run --json -c 'exit 143'
	expect "$b: exit 143" 143 class=failed exit=143 signal=None

	echo "---- $b: escalating to the mode in force"
	wr "$b" session new --cwd "$T/ws"
	sid=$(tail -n 1 "$T/out")
	wr "$b" --session "$sid" run --json --escalate workspace-write --justification same -c true
	[ "$rc" = 64 ] && ok "$b: usage error (64)" || fail "$b: --escalate to the mode in force: exit $rc: $(cat "$T/err")"
	err_has "$b: it says why" 'already'
done

echo "---- the enforcement detail in run --json"
config ll-ro read-only landlock
wr ll-ro run --json -c true
expect "landlock: ok" 0 class=ok enforcement=full
[ "$(field detail)" != None ] && [ "$(field detail)" != '<absent>' ] &&
	ok "detail: $(field detail)" || fail "run --json has no detail: $(tail -n 1 "$T/out")"

finish

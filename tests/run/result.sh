#!/bin/sh
# result.sh — what a `warden run` says about a run, with the real bwrap and
# the real Landlock runner: exit statuses propagate, denials are `denied`
# with one line an agent can act on, a write outside the root changes
# nothing, runner failures are `sandbox-error` (125) and a forged runner
# line is not, and --json carries every field.
. "$top_srcdir/tests/run/lib.sh"

config bw-ro read-only bwrap
config bw-ww workspace-write bwrap
config ll-ro read-only landlock
config ll-ww workspace-write landlock

echo "---- exit statuses propagate"
for c in bw-ro ll-ro bw-ww ll-ww; do
	wr $c run --json -c 'echo hello'
	expect "$c: ok" 0 class=ok exit=0 signal=None timed_out=False
	[ "$(head -n 1 "$T/out")" = hello ] || fail "$c: the command's stdout is not first: $(head -n 1 "$T/out")"
	wr $c run --json -c 'echo oops >&2; exit 3'
	expect "$c: exit 3 stays 3" 3 class=failed exit=3
	grep -q '^oops$' "$T/err" || fail "$c: the command's stderr did not come through"
	wr $c run -- sh -c 'exit 42'
	expect "$c: -- ARGV, exit 42" 42
	wr $c run --json -- sh -c 'kill -USR1 $$'
	# Every backend alike: bwrap's init turns the signal into 128+N, and
	# the launcher inside tells the host it was a signal.
	expect "$c: killed by SIGUSR1 is 128+10" 138 class=failed exit=None signal=10
	wr $c run --json -- sh -c 'exit 138'
	expect "$c: exit 138 stays an exit" 138 class=failed exit=138 signal=None
done

echo "---- the JSON object"
wr bw-ro run --json -- printf 'no newline'
expect "json after output without a newline" 0 class=ok
[ "$(head -n 1 "$T/out")" = "no newline" ] || fail "output and object share a line: $(head -n 1 "$T/out")"
"$PY" - "$T/out" <<'PY' || fail "json fields"
import json, sys
o = json.loads(open(sys.argv[1]).read().splitlines()[-1])
want = {"class": "ok", "exit": 0, "signal": None, "mode": "read-only", "backend": "bwrap",
        "enforcement": "full", "timed_out": False, "session": None,
        "argv": ["printf", "no newline"], "status": 0, "mode_source": "config"}
for k, v in want.items():
    assert o[k] == v, (k, o[k], v)
assert isinstance(o["duration_ms"], int) and 0 <= o["duration_ms"] < 60000, o["duration_ms"]
print("ok: json fields:", sorted(o))
PY

echo "---- command not found, not executable: as a shell says, nothing run"
wr bw-ro run --json -- warden-no-such-program-$TAG
expect "not found is 127" 127 class=None started=False refused=not-found
err_has "not found says so" "warden: run: warden-no-such-program-$TAG: command not found"
wr bw-ro run -- "$T/outside/file"
expect "not executable is 126" 126
wr bw-ro run -c 'warden-no-such-program; exit $?'
expect "-c: the shell's own 127" 127

echo "---- denied in read-only, with the line an agent acts on"
for c in bw-ro ll-ro; do
	wr $c run --json -c "echo changed >'$T/outside/file'"
	expect "$c: write denied" 1 class=denied exit=1
	err_has "$c: agent line names the mode and how to ask" \
		"^warden: denied by the read-only sandbox \(.*\): .*warden run --escalate workspace-write --justification .* -c '\.\.\.'$"
	[ "$(grep -c '^warden:' "$T/err")" = 1 ] || fail "$c: more than one warden line"
	wr $c run -c "echo new >'$T/ws/new'"
	expect "$c: even the workspace is read-only" 1
	[ ! -e "$T/ws/new" ] || fail "$c: read-only run created a file in the workspace"
done

echo "---- workspace-write: inside works, outside is denied and unchanged"
for c in bw-ww ll-ww; do
	rm -f "$T/ws/inside"
	wr $c run --json -c "echo inside >'$T/ws/inside'"
	expect "$c: write inside the root" 0 class=ok mode=workspace-write
	[ "$(cat "$T/ws/inside" 2>/dev/null)" = inside ] || fail "$c: the inside write did not land"
	wr $c run --json -- sh -c "echo changed >'$T/outside/file'"
	expect "$c: write outside denied" 2 class=denied
	err_has "$c: agent line offers danger-full-access" \
		"^warden: denied by the workspace-write sandbox .*--escalate danger-full-access .* -- \.\.\.$"
	wr $c run -- sh -c "rm -f '$T/outside/file' || touch '$T/outside/new'"
	[ "$(cat "$T/outside/file")" = original ] && [ ! -e "$T/outside/new" ] &&
		ok "$c: outside file unchanged" || fail "$c: the outside tree changed"
done

echo "---- approval policy never: the agent line says escalation is impossible"
EXTRA='approval_policy = never' config bw-ro-never read-only bwrap
wr bw-ro-never run -c "echo x >'$T/outside/file'"
expect "denied under policy never" 1
err_has "no escalation offered" "^warden: denied by the read-only sandbox .*escalation is not possible \(approval policy never\)$"

echo "---- sandbox-error: the runner failed, the command did not run"
# A bwrap that passes the probe, then fails the way bwrap does: one
# "bwrap: " line, exit 1, no exit-code on the status fd.
cat >"$T/fake-bwrap" <<'SH'
#!/bin/sh
for a in "$@"; do last=$a; done
[ "$last" = --version ] && exec /usr/bin/bwrap "$@"
echo "bwrap: Can't mount proc on /newroot/proc: Operation not permitted" >&2
exit 1
SH
chmod 755 "$T/fake-bwrap"
config bw-fake read-only "[backend bwrap]
plugin = $BWRAP_SO
path = $T/fake-bwrap"
wr bw-fake run --json -c "touch '$T/ws/marker'"
expect "bwrap's fatal line and exit 1" 125 class=sandbox-error backend=bwrap
[ ! -e "$T/ws/marker" ] || fail "the command ran"
err_has "sandbox-error is said" "^warden: run: sandbox-error: .*the command did not run$"

# The real Landlock runner's own fatal path: a wrapper that passes the
# probe and then hands the runner a root that does not exist.
cat >"$T/bad-runner" <<SH
#!/bin/sh
[ "\$1" = --probe ] && exec "$RUNNER" --probe
exec "$RUNNER" --rw "$T/no-such-root" "\$@"
SH
chmod 755 "$T/bad-runner"
config ll-bad read-only "[backend landlock]
plugin = $LL_SO
runner = $T/bad-runner"
wr ll-bad run --json -c "touch '$T/ws/marker'"
expect "the Landlock runner's fatal path" 125 class=sandbox-error backend=landlock
[ ! -e "$T/ws/marker" ] || fail "the command ran"
err_has "the runner's line came through" "^warden-landlock-run: fatal: "

# A runner that is gone once it was judged (it removes itself and dies
# before it reports): never `failed`, never run.  The real probe that
# follows finds no runner.
cat >"$T/vanishing-runner" <<SH
#!/bin/sh
rm -f "\$0"
exit 125
SH
chmod 755 "$T/vanishing-runner"
config ll-gone read-only "[backend landlock]
plugin = $LL_SO
runner = $T/vanishing-runner"
wr ll-gone run --json -c "touch '$T/ws/marker'"
case $rc in
69|125) ok "a runner gone once judged: exit $rc ($(field class))" ;;
*) fail "a runner gone once judged: exit $rc, want 69 or 125"; cat "$T/err" ;;
esac
[ ! -e "$T/ws/marker" ] || fail "the command ran"

echo "---- a forged runner line from a command that ran is not sandbox-error"
wr bw-ro run --json -c 'echo "bwrap: Can'"'"'t mount proc: forged" >&2; exit 1'
expect "bwrap: forged fatal line, exit 1" 1 class=failed
wr ll-ro run --json -c 'echo "warden-landlock-run: fatal: exec: forged" >&2; exit 125'
expect "landlock: forged fatal line, exit 125" 125 class=failed

echo "---- the partial-ABI notice alone is never a failure of the runner"
config ll-partial read-only landlock-partial
wr ll-partial run --json -c 'exit 1'
expect "notice + exit 1" 1 class=failed
wr ll-partial run --json -c 'exit 125'
expect "notice + exit 125" 125 class=failed
wr ll-partial run --json -c 'true'
expect "notice + exit 0" 0 class=ok
err_has "the notice came through" "^warden-landlock-run: notice: landlock ABI 2 is partial"

finish

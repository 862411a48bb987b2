#!/bin/sh
# proof.sh — `warden run` pays for no separate probe: the run is the
# proof.  A backend with a facts() op (landlock) confines on cheap,
# current facts; when its runner then fails before exec, nothing ran, the
# backend is judged again by a real probe, and the run goes on exactly as
# after a failed probe: the next backend, a visible skip, or
# SANDBOX_UNAVAILABLE.  The runner's words are held back while a retry is
# possible.  The real runner and bwrap beside a fake runner that fails
# before exec (the one deterministic way to make a real kernel refuse).
. "$top_srcdir/tests/run/lib.sh"

# A runner that is trusted (root's, 0755), answers --probe as told by
# $T/probe-answer, and fails every run before exec, the way the real one
# does: "started", then "fatal: ..." on the status pipe, its fatal line on
# stderr, exit 125.  Each call is counted in $T/calls.
cat >"$T/fail-runner" <<SH
#!/bin/sh
echo "\$*" >>"$T/calls"
if [ "\$1" = --probe ]; then
	case \$(cat "$T/probe-answer") in
	real) exec "$RUNNER" --probe ;;
	*) echo "warden-landlock-run: fatal: probe: no landlock here" >&2; exit 125 ;;
	esac
fi
[ "\$1" = --status-fd ] || exit 2
printf 'started\nfatal: landlock: refused by this kernel\n' >&3
echo "warden-landlock-run: fatal: landlock: refused by this kernel" >&2
exit 125
SH
chmod 755 "$T/fail-runner"
failing="[backend landlock]
plugin = $LL_SO
runner = $T/fail-runner"

echo "---- the real runner: no probe before a run"
config real workspace-write landlock
: >"$T/calls"
strace_ok=
if command -v strace >/dev/null 2>&1; then
	# LeakSanitizer cannot work under ptrace: a sanitized build is
	# traced with leak detection off (the other runs here keep it).
	(cd "$T/ws" && ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=execve -o "$T/trace" \
		"$WARDEN" --config "$T/real.ini" run --json -c 'echo ran >marker') \
		>"$T/out" 2>"$T/err" </dev/null
	rc=$?
	strace_ok=1
else
	wr real run --json -c 'echo ran >marker'
fi
expect "a landlock run" 0 class=ok backend=landlock enforcement=partial
[ "$(cat "$T/ws/marker")" = ran ] || fail "the command did not run"
if [ -n "$strace_ok" ]; then
	grep -q -- '--probe' "$T/trace" && fail "warden run probed the runner: $(grep -- --probe "$T/trace")"
	n=$(grep -c "execve(\"$RUNNER\"" "$T/trace")
	[ "$n" = 1 ] && ok "one runner exec, no probe" || fail "$n runner execs"
else
	echo "NOTE: strace is not installed: the exec count is not checked here"
fi
wr real plugins --json
grep -q '"enforcement"' "$T/out" && ok "warden plugins still probes (and answers)" ||
	fail "warden plugins: $(cat "$T/out")"

echo "---- a runner that fails before exec, its probe fails too: the next backend"
echo fail >"$T/probe-answer"
: >"$T/calls"
rm -f "$T/ws/marker"
config fall workspace-write "$failing" bwrap
wr fall run --json -c 'echo once >>marker'
expect "bwrap runs it after landlock's runner failed" 0 class=ok backend=bwrap started=True
[ "$(cat "$T/ws/marker")" = once ] || fail "the command ran $(wc -l <"$T/ws/marker" 2>/dev/null) times, want once"
[ "$(grep -c -- '--status-fd' "$T/calls")" = 1 ] || fail "the failing runner ran $(grep -c -- '--status-fd' "$T/calls") times"
[ "$(grep -c -- '--probe' "$T/calls")" = 1 ] || fail "the failing runner was not probed once after the failure"
err_has "the failed attempt is named" \
	"^warden: run: backend landlock: its runner failed before exec \(.*refused by this kernel.*\); judged again by a real probe$"
err_has "then the skip, as after a failed probe" \
	"^warden: run: backend landlock was skipped: .*no landlock here.*; bwrap confines the command$"
grep -q '^warden-landlock-run: fatal' "$T/err" &&
	fail "the failed runner's own line reached stderr though the run went on"
"$PY" - "$T/out" <<'PY' || fail "--json skipped"
import json, sys
o = json.loads(open(sys.argv[1]).read().splitlines()[-1])
s = o["skipped"]
assert [x["backend"] for x in s] == ["landlock", "landlock"], s
assert "failed before exec" in s[0]["reason"] and "no landlock here" in s[1]["reason"], s
print("ok: --json names both judgements:", [x["reason"][:50] for x in s])
PY

echo "---- its probe passes but the run fails again: sandbox-error, once"
echo real >"$T/probe-answer"
: >"$T/calls"
rm -f "$T/ws/marker"
config again workspace-write "$failing"
wr again run --json -c 'echo once >>marker'
expect "a second pre-exec failure is the answer" 125 class=sandbox-error started=False
[ ! -e "$T/ws/marker" ] || fail "the command ran"
[ "$(grep -c -- '--status-fd' "$T/calls")" = 2 ] || fail "runs: $(grep -c -- '--status-fd' "$T/calls"), want 2 (facts, then after the probe)"
[ "$(grep -c '^warden-landlock-run: fatal: landlock: refused' "$T/err")" = 1 ] &&
	ok "the last runner's words reach stderr once" ||
	{ fail "runner lines on stderr"; sed 's/^/  stderr: /' "$T/err"; }

echo "---- only backend, probe fails: SANDBOX_UNAVAILABLE, nothing ran"
echo fail >"$T/probe-answer"
wr again run --json -c 'echo once >>marker'
expect "unavailable after the real probe" 69 started=False refused=unavailable
err_has "the refusal names the probe's reason" "SANDBOX_UNAVAILABLE.*no landlock here"
[ ! -e "$T/ws/marker" ] || fail "the command ran"

finish

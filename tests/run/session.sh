#!/bin/sh
# session.sh — `warden run` with a session: the session's mode and root
# decide, every run appends a sandbox/run event, --require-full refuses a
# partial backend before anything runs, an escalation that is not
# allowed-once runs nothing, and a log that cannot be written stops the
# run before it starts.
. "$top_srcdir/tests/run/lib.sh"

config cfg read-only bwrap

# events ID [PHASE]: the sandbox/run events of session ID that end a run
# (or those of PHASE: start), one JSON object a line.
events() {
	"$WARDEN" --config "$T/cfg.ini" session show "$1" --json |
		"$PY" -c 'import json, sys
for e in json.load(sys.stdin)["events"]:
    if e["type"] == "sandbox/run" and e.get("phase", "end") == sys.argv[1]:
        print(json.dumps(e, sort_keys=True))' "${2:-end}"
}

mkdir "$T/proj"
id=$("$WARDEN" --config "$T/cfg.ini" session new --cwd "$T/proj" | tail -n 1)
[ -n "$id" ] || { echo "FAIL: session new"; exit 1; }
export WARDEN_SESSION="$id"

echo "---- the session's mode and root decide"
wr cfg run --json -c "echo x >'$T/proj/a'"
expect "config default read-only applies" 1 class=denied mode=read-only mode_source=config session="$id"
"$WARDEN" --config "$T/cfg.ini" mode set workspace-write >/dev/null || fail "mode set"
wr cfg run --json -c "echo x >'$T/proj/a'"
expect "session workspace-write: the session's cwd is writable" 0 class=ok mode=workspace-write mode_source=session
wr cfg run --json -c "echo x >'$T/ws/a'"
expect "the configured root is not the session's root" 1 class=denied
unset WARDEN_SESSION
wr cfg run --json -c "echo x >'$T/ws/b'"
expect "without a session: config mode" 1 class=denied session=None
export WARDEN_SESSION="$id"

echo "---- every run appends a sandbox/run event"
events "$id" >"$T/ev"
n=$(wc -l <"$T/ev")
[ "$n" = 3 ] && ok "three runs, three events" || fail "$n sandbox/run events, want 3"
"$PY" - "$T/ev" "$T/proj" <<'PY' || fail "event fields"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
want = [("denied", "read-only", 1), ("ok", "workspace-write", 0), ("denied", "workspace-write", 1)]
for e, (cls, mode, code) in zip(ev, want):
    assert e["class"] == cls and e["mode"] == mode and e["exit"] == code, e
    assert e["backend"] == "bwrap" and e["enforcement"] == "full", e
    assert e["argv"][:2] == ["bash", "-c"], e
    assert isinstance(e["duration_ms"], int) and e["timed_out"] is False, e
    assert e["status"] == code and e["started"] is True, e
print("ok: event fields:", sorted(ev[0]))
PY
"$WARDEN" --config "$T/cfg.ini" session show "$id" --json >"$T/all"
"$PY" - "$T/all" <<'PY' || fail "start events"
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["events"] if e["type"] == "sandbox/run"]
by_seq = {e["seq"]: e for e in ev}
ends = [e for e in ev if e["phase"] == "end"]
assert len(ends) == 3 and len(ev) == 6, ev
for e in ends:
    s = by_seq[e["start_seq"]]
    assert s["phase"] == "start" and s["seq"] < e["seq"], (s, e)
    for k in ("argv", "mode", "mode_source", "backend", "enforcement", "root"):
        assert s[k] == e[k], (k, s, e)
    assert "class" not in s and "exit" not in s, s
print("ok: each run's start is logged before it, and its end names it")
PY
wr cfg run -c 'exit 7'
expect "the plain form records too" 7
[ "$(events "$id" | tail -n 1 | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["exit"])')" = 7 ] &&
	ok "exit 7 recorded" || fail "exit 7 not recorded"

echo "---- --require-full: a partial backend is refused before anything runs"
# Landlock's workspace-write is partial on every kernel (metadata outside
# the root is not governed): a real partial backend.
config partial workspace-write landlock
id2=$("$WARDEN" --config "$T/partial.ini" session new --cwd "$T/proj" | tail -n 1)
WARDEN_SESSION=$id2 wr partial run --json --require-full -c "touch '$T/proj/marker'"
expect "--require-full with a partial backend" 77 class=None started=False refused=require-full
[ ! -e "$T/proj/marker" ] && ok "nothing ran" || fail "the command ran"
err_has "the refusal names the backend and what is partial" \
	"^warden: run: refused: require_full is set and no backend enforces workspace-write fully \(landlock: .*metadata.*\); nothing was run$"
[ "$(events "$id2" | tail -n 1 | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["refused"])')" = require-full ] &&
	ok "the refusal is recorded" || fail "the refusal is not recorded"
EXTRA='require_full = yes' config partial-cfg workspace-write landlock
wr partial-cfg run -c "touch '$T/proj/marker'"
expect "require_full = yes" 77
[ ! -e "$T/proj/marker" ] && ok "nothing ran" || fail "the command ran"
wr partial run --json -c true
expect "without it, partial runs and says so" 0 enforcement=partial class=ok
config partial-then-bwrap workspace-write landlock bwrap
wr partial-then-bwrap run --json --require-full -c true
expect "--require-full takes the next backend that is full" 0 backend=bwrap enforcement=full
wr partial-then-bwrap run --json -c true
expect "without it, the first usable backend" 0 backend=landlock enforcement=partial

echo "---- an escalation that is not allowed-once runs nothing"
wr cfg run --json --escalate workspace-write --justification 'needs to write the build dir' -c "touch '$T/outside/esc'"
expect "--escalate to the mode in force (workspace-write) is a usage error" 64
err_has "it says the run is already there" "^warden: run: --escalate workspace-write: the run is already in workspace-write"
[ ! -e "$T/outside/esc" ] && ok "nothing ran" || fail "the command ran"
for m in danger-full-access; do
	wr cfg run --json --escalate $m --justification 'needs to write the build dir' -c "touch '$T/outside/esc'"
	expect "--escalate $m without an answer" 77 class=None started=False refused=escalation
	[ ! -e "$T/outside/esc" ] && ok "nothing ran" || fail "the escalated command ran"
	err_has "names the outcome" "^warden: run: escalation to $m was not granted: the approval outcome is unavailable: no answerer is configured; nothing was run$"
done
wr cfg run --escalate read-only --justification x -c true
expect "escalating to read-only is a usage error" 64
wr cfg run --escalate workspace-write -c true
expect "--escalate without --justification" 64
(unset WARDEN_SESSION; wr cfg run --escalate workspace-write --justification x -c "touch '$T/ws/nosess'"
 expect "--escalate without a session" 64 && err_has "says the session is needed" "needs a session"
 exit $failures) || failures=$((failures + 1))
[ ! -e "$T/ws/nosess" ] || fail "an escalation without a session ran"

echo "---- a damaged log stops the run before it starts"
id3=$("$WARDEN" --config "$T/cfg.ini" session new --cwd "$T/proj" | tail -n 1)
for i in 1 2 3; do WARDEN_SESSION=$id3 wr cfg run -c true; done
log=$T/state/$id3.jsonl
sed -i '2s/"sandbox\/run"/"sandbox\/rum"/' "$log"
WARDEN_SESSION=$id3 wr cfg run -c "touch '$T/proj/dmg-marker'"
expect "a damaged session log" 65
[ ! -e "$T/proj/dmg-marker" ] && ok "nothing ran" || fail "the command ran on a damaged session"

echo "---- a log that cannot be written stops the run before it starts"
if unshare -m true 2>/dev/null; then
	unshare -m sh -c '
		mount -t tmpfs -o size=1m,mode=700 tmpfs "$1/state" || exit 99
		id=$("$2" --config "$1/cfg.ini" session new --cwd "$1/proj" | tail -n 1)
		mount -o remount,ro "$1/state" || exit 99
		cd "$1/proj" && "$2" --config "$1/cfg.ini" --session "$id" run -c "touch $1/proj/ro-marker"
	' sh "$T" "$WARDEN" >"$T/out" 2>"$T/err"
	rc=$?
	expect "read-only session log" 74
	[ ! -e "$T/proj/ro-marker" ] && ok "nothing ran" || fail "the command ran unrecorded"
	err_has "says why" "cannot be written, and a run that cannot be recorded does not start"
else
	echo "NOTE: no mount namespace here (unshare -m failed): the read-only log case is not exercised"
fi

finish

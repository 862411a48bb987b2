#!/bin/sh
# test_approve_cli.sh — `warden approve` end to end, with real plugins (the
# rules answerer, the zoo's broken answerers) in worker processes: the exit
# status of each outcome, --json, the audit pair in the session log, an
# audit that cannot be written (no decision printed), withdrawal by SIGINT
# and by deadline while an answerer hangs, and the built-in default chain.
set -eu
: "${WARDEN:?run by make check}" "${top_builddir:?run by make check}"
PY=/usr/bin/python3

dir=$(mktemp -d "$top_builddir/tests/approve-cli-XXXXXX")
trap 'umount "$dir/full" 2>/dev/null; rm -rf "$dir"' EXIT
chmod 700 "$dir"
unset WARDEN_SESSION WARDEN_CONFIG
export XDG_CONFIG_HOME="$dir/xdg" XDG_STATE_HOME="$dir/xdg-state"
zoo=$top_builddir/tests/zoo/.libs
rules=$top_builddir/plugins/rules/.libs/rules.so

fail() { echo "FAIL: $*" >&2; exit 1; }

# ini NAME SECTIONS... — a config whose answerer chain is SECTIONS.
ini() {
	name=$1; shift
	{
		printf '[warden]\nstate_dir = %s/state\ndurability = none\nplugin_dir = %s\n' "$dir" "$zoo"
		printf '%s\n' "$@"
	} >"$dir/$name.ini"
	chmod 600 "$dir/$name.ini"
}
ini main '[answerer rules]' "plugin = $rules" 'deny = bash:rm *' 'allow = bash:*' \
	'[answerer stop]' 'plugin = zoo_answerer' 'decision = cancelled'
ini crash '[answerer crash]' 'plugin = zoo_decide_crash' \
	'[answerer yes]' 'plugin = zoo_answerer' 'decision = allowed-once'
ini garbage '[answerer junk]' 'plugin = zoo_decide_garbage'
ini hang '[answerer hang]' 'plugin = zoo_decide_hang'
ini exit0 '[answerer quit]' 'plugin = zoo_answerer' 'isolation = inproc' 'exit = 0'
ini exit0p '[answerer quit]' 'plugin = zoo_answerer' 'isolation = process' 'exit = 0'
ini empty

sid=$("$WARDEN" --config "$dir/main.ini" session new --cwd "$dir" | tail -n 1)
log=$dir/state/$sid.jsonl
[ -f "$log" ] || fail "no session log at $log"

# approve CONFIG WANT ARGS... — exit WANT; stdout in $dir/out.
approve() {
	cfg=$1 want=$2; shift 2
	set +e
	"$WARDEN" --config "$dir/$cfg.ini" --session "$sid" approve "$@" >"$dir/out" 2>"$dir/err"
	got=$?
	set -e
	[ "$got" -eq "$want" ] || { cat "$dir/out" "$dir/err" >&2; fail "approve $*: exit $got, want $want"; }
}

# --- an answerer that calls exit(0) while it decides ----------------------
# In the host's process its exit would be warden's, and 0 is allowed-once:
# it is an internal error (70), nothing decided; in a worker, unavailable.
# (A session of its own: the first leaves an approval/asked without its
# approval/decided, which the audit-pair check below would count.)
sid_main=$sid
sid=$("$WARDEN" --config "$dir/main.ini" session new --cwd "$dir" | tail -n 1)
approve exit0 70 --tool bash --subject 'echo hi'
grep -q 'allowed' "$dir/out" && fail "exit(0) in an in-process answerer printed a decision"
grep -qF 'an in-process answerer ended the process while it decided' "$dir/err" ||
	{ cat "$dir/err"; fail "exit(0) in an in-process answerer: no line says so"; }
approve exit0p 3 --tool bash --subject 'echo hi'
grep -q '^unavailable' "$dir/out" || { cat "$dir/out"; fail "exit(0) in a worker: not unavailable"; }
sid=$sid_main

# --- each outcome has its exit status ------------------------------------
approve main 0 --tool bash --subject 'git status'
grep -qF "allowed-once (answerer rules): allow = bash:* ($dir/main.ini:8) [req-" "$dir/out" ||
	{ cat "$dir/out"; fail "allowed-once line with the rule that matched"; }
approve main 1 --tool bash --subject 'rm -rf /'
grep -qF "rejected (answerer rules): deny = bash:rm * ($dir/main.ini:7) [req-" "$dir/out" ||
	{ cat "$dir/out"; fail "rejected line with the rule that matched"; }
approve main 2 --tool read --subject /etc/passwd
grep -q '^cancelled (answerer stop)' "$dir/out" || fail "cancelled line"
approve crash 3 --tool bash --subject ls
grep -q '^unavailable (answerer crash): .*Segmentation fault' "$dir/out" ||
	{ cat "$dir/out"; fail "unavailable line"; }
approve empty 3 --tool bash --subject ls
grep -q 'no answerer is configured' "$dir/out" || fail "empty chain reason"

# --- --json: one object; a plugin's stray stdout does not reach it --------
approve main 0 --json --tool bash --subject ls --reason 'list files' --call-id c-7 --mode read-only
$PY - "$dir/out" <<'PY' || fail "--json object"
import json, sys
o = json.load(open(sys.argv[1]))
assert set(o) == {"request_id", "outcome", "answerer", "reason", "delegated"}, o
assert o["outcome"] == "allowed-once" and o["answerer"] == "rules", o
assert o["reason"].startswith("allow = bash:* (") and o["reason"].endswith("/main.ini:8)"), o
assert o["delegated"] == [] and o["request_id"].startswith("req-"), o
PY
# The answerers that delegated before the decision, in order.
approve main 2 --json --tool read --subject /etc/hosts
$PY - "$dir/out" <<'PY' || { cat "$dir/out"; fail "--json delegated"; }
import json, sys
o = json.load(open(sys.argv[1]))
assert o["outcome"] == "cancelled" and o["answerer"] == "stop", o
assert o["delegated"] == ["rules"] and o["reason"] is None, o
PY
approve garbage 3 --json --tool bash --subject ls
$PY - "$dir/out" <<'PY' || { cat "$dir/out"; fail "--json with a garbage answerer"; }
import json, sys
o = json.load(open(sys.argv[1]))
assert o["outcome"] == "unavailable" and o["answerer"] == "junk", o
assert "garbage" in o["reason"], o
PY

# --- the audit: asked then decided for every request, same id -------------
$PY - "$log" <<'PY' || fail "audit pairs"
import json, sys
asked, decided = {}, {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["type"] == "approval/asked":
        assert e["request_id"] not in decided, e
        asked[e["request_id"]] = e
    elif e["type"] == "approval/decided":
        decided[e["request_id"]] = e
assert len(asked) == 8 and set(asked) == set(decided), (asked, decided)
outcomes = sorted(d["outcome"] for d in decided.values())
assert outcomes == ["allowed-once", "allowed-once", "cancelled", "cancelled",
                    "rejected", "unavailable", "unavailable", "unavailable"], outcomes
for d in decided.values():
    assert isinstance(d["delegated"], list), d
    if d.get("answerer") == "rules":
        assert d["reason"].startswith(("allow = bash:* (", "deny = bash:rm * (")), d
    if d.get("answerer") == "stop":
        assert d["delegated"] == ["rules"], d
flagged = [a for a in asked.values() if a.get("call_id") == "c-7"]
assert len(flagged) == 1 and flagged[0]["reason"] == "list files" \
    and flagged[0]["requested_mode"] == "read-only", flagged
PY

# --- policy never: rejected, the allowing rules never asked ----------------
"$WARDEN" --config "$dir/main.ini" --session "$sid" policy set never >/dev/null
approve main 1 --json --tool bash --subject ls
grep -q '"answerer": null' "$dir/out" || fail "never: an answerer decided"
grep -q 'policy is never' "$dir/out" || fail "never: reason"
"$WARDEN" --config "$dir/main.ini" --session "$sid" policy set ask >/dev/null

# --- withdrawal: SIGINT or SIGTERM while an answerer hangs, the deadline --
for sig in INT TERM; do
	set +e
	"$WARDEN" --config "$dir/hang.ini" --session "$sid" approve --tool bash --subject ls >"$dir/out" 2>"$dir/err" &
	pid=$!
	( sleep 30; kill -KILL "$pid" ) 2>/dev/null &
	watchdog=$!
	# Wait for the hanging answerer's worker: the request is then waiting.
	i=0
	while [ -z "$(pgrep -P "$pid")" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	[ $i -lt 100 ] || fail "SIG$sig: no worker started"
	start=$(date +%s%N)
	kill -$sig "$pid"
	wait "$pid"
	got=$?
	kill "$watchdog" 2>/dev/null
	set -e
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	[ "$got" -eq 2 ] || { cat "$dir/err"; fail "SIG$sig: exit $got, want 2 (cancelled)"; }
	grep -q '^cancelled: withdrawn by a signal' "$dir/out" || fail "SIG$sig: output"
	[ "$ms" -lt 2000 ] || fail "SIG$sig: took $ms ms"
	echo "SIG$sig to a waiting approve: cancelled after $ms ms"
done
approve hang 2 --tool bash --subject ls --deadline-ms 200
grep -q "deadline passed" "$dir/out" || fail "deadline: output"

# --- a worker killed while it holds the terminal changed: the host puts the
# --- terminal back (echo on) -----------------------------------------------
ini ttyhang '[answerer raw]' 'plugin = zoo_decide_tty_hang'
$PY - "$WARDEN" "$dir/ttyhang.ini" "$sid" >"$dir/out" 2>&1 <<'PY' || { cat "$dir/out"; fail "terminal left changed"; }
import os, pty, sys
warden, cfg, sid = sys.argv[1:4]
pid, fd = pty.fork()
if pid == 0:
    os.execv("/bin/sh", ["sh", "-c",
        '"$0" --config "$1" --session "$2" approve --tool bash --subject ls '
        '--deadline-ms 300 >/dev/null 2>&1; echo "rc=$?"; stty -a',
        warden, cfg, sid])
out = b""
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
os.waitpid(pid, 0)
text = out.decode(errors="replace")
print(text)
assert "rc=2" in text, "not cancelled"
words = text.split()
assert "echo" in words and "-echo" not in words, "echo left off"
assert "icanon" in words, "canonical mode left off"
PY

# --- an audit that cannot be written: no decision -------------------------
n=$(wc -l <"$log")
echo 'not an event' >>"$log"
approve main 65 --tool bash --subject 'git status'
[ ! -s "$dir/out" ] || fail "a decision was printed without its audit"
grep -q 'not decided; refuse' "$dir/err" || fail "audit failure: message"
[ "$(wc -l <"$log")" -eq $((n + 1)) ] || fail "audit failure: the log grew"

# --- a log on a full filesystem: the asked append fails (ENOSPC), no
# --- decision, nothing left in the log; with room again, it answers -------
if [ "$(id -u)" -eq 0 ]; then
	mkdir "$dir/full"
	mount -t tmpfs -o size=256k,mode=700 tmpfs "$dir/full"
	{
		printf '[warden]\nstate_dir = %s/full/state\ndurability = fsync\n' "$dir"
		printf '[answerer rules]\nplugin = %s\nallow = bash:*\n' "$rules"
	} >"$dir/full.ini"
	chmod 600 "$dir/full.ini"
	sid4=$("$WARDEN" --config "$dir/full.ini" session new --cwd "$dir" | tail -n 1)
	flog=$dir/full/state/$sid4.jsonl
	dd if=/dev/zero of="$dir/full/filler" bs=1k 2>/dev/null || true
	before=$(cat "$flog")
	main_sid=$sid sid=$sid4
	# Longer than a page: the line cannot fit in the log's last page.
	long=$(head -c 8192 /dev/zero | tr '\0' x)
	approve full 74 --json --tool bash --subject "$long"
	[ ! -s "$dir/out" ] || fail "full disk: a decision was printed"
	grep -q 'No space left on device' "$dir/err" || { cat "$dir/err"; fail "full disk: message"; }
	[ "$(cat "$flog")" = "$before" ] || fail "full disk: the failed append left something"
	rm "$dir/full/filler"
	approve full 0 --tool bash --subject ls
	sid=$main_sid
else
	echo "SKIP (full-disk append): mounting a tmpfs needs root; CI runs as root"
fi

# --- usage ---------------------------------------------------------------
set +e
"$WARDEN" --config "$dir/main.ini" approve --tool bash --subject ls >"$dir/out" 2>"$dir/err"
got=$?
set -e
[ "$got" -eq 64 ] || fail "no session: exit $got, want 64"
[ ! -s "$dir/out" ] || fail "no session: something printed"
grep -q 'no session' "$dir/err" || fail "no session: message"
approve main 64 --tool bash
approve main 64 --tool bash --subject ls --mode god
"$WARDEN" approve --help >"$dir/out"
grep -q '3   unavailable' "$dir/out" || fail "--help lists the exit codes"

# --- the built-in default config, away from any terminal: its chain is
# --- safe without one (unavailable, never a hang or an allow) -------------
sid2=$("$WARDEN" session new --cwd "$dir" | tail -n 1)
set +e
setsid -w "$WARDEN" --session "$sid2" approve --tool bash --subject ls --deadline-ms 5000 \
	</dev/null >"$dir/out" 2>"$dir/err"
got=$?
set -e
[ "$got" -eq 3 ] || { cat "$dir/out" "$dir/err"; fail "built-in default: exit $got, want 3"; }
# The same chain with the tty answerer as built here: no terminal, it passes.
ini tty '[answerer tty]' "plugin = $top_builddir/plugins/tty/.libs/tty.so" 'timeout_ms = 300000'
sid3=$("$WARDEN" --config "$dir/tty.ini" session new --cwd "$dir" | tail -n 1)
set +e
setsid -w "$WARDEN" --config "$dir/tty.ini" --session "$sid3" approve --tool bash --subject ls \
	--deadline-ms 5000 </dev/null >"$dir/out" 2>"$dir/err"
got=$?
set -e
[ "$got" -eq 3 ] || { cat "$dir/out" "$dir/err"; fail "tty without a terminal: exit $got, want 3"; }
grep -q 'no answerer decided' "$dir/out" || { cat "$dir/out"; fail "tty without a terminal did not pass"; }
# The reason says why, answerer by answerer.
grep -q 'tty: no terminal' "$dir/out" || { cat "$dir/out"; fail "the reason does not say tty had no terminal"; }
echo "PASS"

#!/bin/sh
# parity.sh — what a per-call user (a harness that spawns `warden run` for
# each tool call) reads: --json's escalate_to names the mode a retry would
# need after a denial (null otherwise, and null under approval policy
# never), and --result-fd N puts the result object on descriptor N, so
# stdout is the command's output byte for byte; a bad descriptor is a
# usage error before anything runs, and the command never gets N.
. "$top_srcdir/tests/run/lib.sh"

config bw-ro read-only bwrap
config ll-ro read-only landlock
config bw-ww workspace-write bwrap
config ll-ww workspace-write landlock
EXTRA='approval_policy = never' config bw-ro-never read-only bwrap

echo "---- escalate_to"
for c in bw-ro ll-ro; do
	wr $c run --json -c "echo changed >'$T/outside/file'"
	expect "$c: a denied write in read-only asks for workspace-write" 1 \
		class=denied escalate_to=workspace-write
	wr $c run --json -c 'echo fine'
	expect "$c: ok needs nothing" 0 class=ok escalate_to=None
	wr $c run --json -c 'exit 3'
	expect "$c: failed needs nothing" 3 class=failed escalate_to=None
done
for c in bw-ww ll-ww; do
	wr $c run --json -c "echo changed >'$T/outside/file'"
	expect "$c: a denied write outside the root asks for danger-full-access" \
		1 class=denied escalate_to=danger-full-access
done
[ "$(cat "$T/outside/file")" = original ] && ok "the outside file is unchanged" ||
	fail "the outside file changed"
wr bw-ro-never run --json -c "echo changed >'$T/outside/file'"
expect "policy never: denied, nothing to ask for" 1 class=denied escalate_to=None
wr bw-ro run --json -- warden-no-such-program-$TAG
expect "nothing started: null" 127 started=False escalate_to=None

echo "---- --result-fd N: the object on N, stdout the command's alone"
for c in bw-ro ll-ww; do
	rm -f "$T/result"
	(cd "$T/ws" && "$WARDEN" --config "$T/$c.ini" run --result-fd 3 -- printf 'no newline') \
		>"$T/out" 2>"$T/err" 3>"$T/result" </dev/null
	rc=$?
	[ "$rc" = 0 ] || fail "$c: --result-fd: exit $rc"
	if [ "$(od -An -c "$T/out" | tr -s ' ')" = "$(printf 'no newline' | od -An -c | tr -s ' ')" ]; then
		ok "$c: stdout is exactly the command's output"
	else
		fail "$c: stdout is not the command's output alone:"
		od -c "$T/out"
	fi
	"$PY" - "$T/result" "$c" <<'PY' && ok "$c: one result line on descriptor 3" || fail "$c: the result on descriptor 3"
import json, sys
text = open(sys.argv[1]).read()
assert text.endswith("\n") and text.count("\n") == 1, repr(text)
o = json.loads(text)
assert o["class"] == "ok" and o["exit"] == 0 and o["status"] == 0, o
assert o["argv"] == ["printf", "no newline"], o["argv"]
assert o["escalate_to"] is None, o
PY
done

rm -f "$T/result"
(cd "$T/ws" && "$WARDEN" --config "$T/bw-ro.ini" run --result-fd 3 -c "echo changed >'$T/outside/file'") \
	>"$T/out" 2>"$T/err" 3>"$T/result" </dev/null
rc=$?
[ "$rc" = 1 ] || fail "denied with --result-fd: exit $rc, want 1"
"$PY" -c 'import json,sys; o=json.load(open(sys.argv[1])); assert o["class"]=="denied" and o["escalate_to"]=="workspace-write", o' "$T/result" &&
	ok "a denial's result on descriptor 3" || fail "a denial's result on descriptor 3"
err_has "the agent line still goes to stderr" "^warden: denied by the read-only sandbox"
[ ! -s "$T/out" ] && ok "nothing on stdout" || fail "stdout has: $(cat "$T/out")"

echo "---- the command never gets descriptor N"
for c in bw-ro ll-ww bw-ww; do
	rm -f "$T/result"
	(cd "$T/ws" && "$WARDEN" --config "$T/$c.ini" run --result-fd 3 -c \
		'echo forged >&3; if [ -e /proc/self/fd/3 ]; then echo holds-3; else echo no-3; fi') \
		>"$T/out" 2>"$T/err" 3>"$T/result" </dev/null
	rc=$?
	"$PY" -c 'import json,sys; t=open(sys.argv[1]).read(); assert t.count("\n")==1, t; o=json.loads(t); assert o["class"] in ("ok","failed"), o' "$T/result" &&
		ok "$c: the result file holds warden's object only" ||
		{ fail "$c: the result file:"; cat "$T/result"; }
	[ "$(cat "$T/out")" = no-3 ] && ok "$c: the command has no descriptor 3" ||
		fail "$c: the command's view of descriptor 3: $(cat "$T/out")"
	grep -q '^forged' "$T/result" "$T/out" && fail "$c: the forged line landed somewhere"
done

echo "---- a bad descriptor: exit 64, nothing runs"
rm -f "$T/ws/marker"
try_bad() {
	what=$1 pattern=$2
	shift 2
	(cd "$T/ws" && "$WARDEN" --config "$T/bw-ww.ini" "$@" -c "touch '$T/ws/marker'") \
		>"$T/out" 2>"$T/err" 4<"$T/outside/file"
	rc=$?
	[ "$rc" = 64 ] || fail "$what: exit $rc, want 64"
	err_has "$what: said" "$pattern"
	[ ! -e "$T/ws/marker" ] && ok "$what: nothing ran" || fail "$what: the command ran"
	[ ! -s "$T/out" ] || fail "$what: stdout has: $(cat "$T/out")"
}
try_bad "not open" "^warden: run: --result-fd 9: descriptor 9 is not open" run --result-fd 9
try_bad "open read-only" "^warden: run: --result-fd 4: descriptor 4 is not open for writing" run --result-fd 4
try_bad "not a number" "^warden: run: --result-fd 'x3': give a descriptor number" run --result-fd x3
try_bad "negative" "^warden: run: --result-fd '-1': give a descriptor number" run --result-fd -1
try_bad "twice" "^warden: run: --result-fd given twice" run --result-fd 1 --result-fd 1

echo "---- a reader that went away: the result is not delivered, exit 74"
"$PY" - "$WARDEN" "$T" <<'PY' && ok "a closed pipe: exit 74 and said" || fail "a closed pipe"
import os, subprocess, sys
warden, t = sys.argv[1], sys.argv[2]
r, w = os.pipe()
os.close(r)
p = subprocess.run([warden, "--config", t + "/bw-ro.ini", "run", "--result-fd", str(w),
                    "-c", "echo out"], cwd=t + "/ws", pass_fds=(w,),
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
os.close(w)
err = p.stderr.decode()
assert p.returncode == 74, (p.returncode, err)
assert "warden: run: the result could not be written to descriptor %d: Broken pipe" % w in err, err
assert p.stdout == b"out\n", p.stdout
PY

finish

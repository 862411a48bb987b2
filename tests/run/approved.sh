#!/bin/sh
# approved.sh — what an approved escalation runs is exactly what the
# answerer was shown (DESIGN §3): the argv, the program resolved and opened
# before asking, the directory, and an environment that runs nothing the
# answerer did not see.  Each route is tried for real: BASH_ENV, ENV, a
# PATH entry under the root holding a program a confined run planted, the
# program swapped (renamed over, rewritten in place) while the answerer
# decides, a directory other than the root.  Each case asserts what ran (a
# marker outside the root) and what the answerer received (an exec
# answerer that records its stdin), with the answerer in-process and in a
# worker process.  Also: --call-id in the request and the events, the
# rules answerer's writable_program, and `warden approve` with a command.
. "$top_srcdir/tests/run/lib.sh"

EXEC_SO=$top_builddir/plugins/exec/.libs/exec.so
RULES=$top_builddir/plugins/rules/.libs/rules.so
for f in "$EXEC_SO" "$RULES"; do
	[ -e "$f" ] || { echo "FAIL: $f was not built"; exit 1; }
done
WS=$(cd "$T/ws" && pwd -P)
# The cases compare the names removed with their own: what this
# environment holds that warden removes from every approved command
# anyway (pip's settings, a HOME other than the user's own) goes first.
for v in $(env | sed -n 's/^\(PIP_[A-Za-z0-9_]*\)=.*/\1/p'); do
	unset "$v"
done
HOME=$(awk -F: -v u="$(id -u)" '$3 == u { print $6; exit }' /etc/passwd)
export HOME
OUT=$(cd "$T/outside" && pwd -P)
BASH_BIN=$(readlink -f "$(command -v bash)")
SH_BIN=$(readlink -f "$(command -v sh)")
GIT_BIN=$(readlink -f "$(command -v git)")
[ -x "$GIT_BIN" ] || { echo "FAIL: git is not installed (the PATH case escalates git status)"; exit 1; }

# The answerer: records its request, runs $T/during (what happens while it
# decides) when there is one, and allows.
cat >"$T/answer" <<EOF
#!/bin/sh
cat >"$T/seen"
[ -x "$T/during" ] && "$T/during"
echo allowed-once
EOF
chmod 755 "$T/answer"

# seen EXPR: a Python expression over the recorded request `r`, printed.
seen() {
	"$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print(json.dumps(v) if isinstance(v, (list, dict, bool)) or v is None else v)' "$T/seen" "$1" 2>&1
}

# seen_is WHAT EXPR WANT: the recorded request's EXPR is WANT.
seen_is() {
	got=$(seen "$2")
	[ "$got" = "$3" ] && ok "$1: $2 = $3" || fail "$1: $2 is '$got', want '$3'"
}

# wenv CONFIG 'NAME=VALUE ...' ARGS...: warden with these variables set
# (values without spaces), from the root; like wr.
wenv() {
	c=$1 e=$2
	shift 2
	# shellcheck disable=SC2086
	(cd "$T/ws" && exec env $e "$WARDEN" --config "$T/$c.ini" "$@") >"$T/out" 2>"$T/err" </dev/null
	rc=$?
}

# events CONFIG TYPE: the session's events of TYPE, one JSON object a line.
events() {
	"$WARDEN" --config "$T/$1.ini" session show "$WARDEN_SESSION" --json |
		"$PY" -c 'import json, sys
for e in json.load(sys.stdin)["events"]:
    if e["type"] == sys.argv[1]:
        print(json.dumps(e, sort_keys=True))' "$2"
}

absent() {
	[ ! -e "$2" ] && ok "$1" || { fail "$1: $2 exists ($(cat "$2" 2>/dev/null))"; rm -f "$2"; }
}

has() {
	[ "$(cat "$2" 2>/dev/null)" = "$3" ] && ok "$1" || fail "$1: $2 holds '$(cat "$2" 2>/dev/null)', want '$3'"
}

fresh() {
	rm -f "$T/seen" "$T/during" "$OUT"/*
}

for iso in inproc process; do
	config "rec-$iso" workspace-write bwrap "[answerer rec]
plugin = $EXEC_SO
isolation = $iso
command = $T/answer"
done
config rules-default workspace-write bwrap "[answerer r]
plugin = $RULES
allow = bash:*"
config rules-rules workspace-write bwrap "[answerer r]
plugin = $RULES
writable_program = rules
allow = bash:*"

WARDEN_SESSION=$("$WARDEN" --config "$T/rec-process.ini" session new --cwd "$T/ws" | tail -n 1)
export WARDEN_SESSION
[ -n "$WARDEN_SESSION" ] || { echo "FAIL: session new"; exit 1; }

# The premises: each route runs foreign code when nothing stops it.
echo "echo bashenv >'$OUT/bashenv'" >"$T/ws/evil-bashenv.sh"
echo "echo env >'$OUT/env'" >"$T/ws/evil-env.sh"
BASH_ENV="$T/ws/evil-bashenv.sh" bash -c true
ENV="$T/ws/evil-env.sh" sh -i -c true </dev/null 2>/dev/null
printf '#!/bin/sh\necho fsmonitor >"%s/fsmonitor"\nexit 1\n' "$OUT" >"$T/ws/evil-fsmonitor.sh"
chmod 755 "$T/ws/evil-fsmonitor.sh"
git init -q "$T/ws/repo"
GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0="$WS/evil-fsmonitor.sh" \
	git -C "$T/ws/repo" status >/dev/null 2>&1
{ [ -e "$OUT/bashenv" ] && [ -e "$OUT/env" ] && [ -e "$OUT/fsmonitor" ]; } ||
	{ echo "FAIL: premise: BASH_ENV, ENV and git's GIT_CONFIG_* do not run code here"; exit 1; }
rm -f "$OUT"/*

echo "---- a confined run plants .venv/bin/git in the root"
wr rec-process run -- sh -c "mkdir -p .venv/bin && printf '#!/bin/sh\necho planted >$OUT/planted\n' >.venv/bin/git && chmod 755 .venv/bin/git"
expect "the confined run wrote into the root" 0
[ -x "$T/ws/.venv/bin/git" ] || fail "nothing was planted"
[ "$(PATH="$WS/.venv/bin:$PATH" sh -c 'command -v git')" = "$WS/.venv/bin/git" ] &&
	ok "premise: that PATH finds the planted git first" || fail "premise: the planted git is not found first"

for iso in inproc process; do
	c=rec-$iso
	echo "==== answerer isolation = $iso"

	echo "---- BASH_ENV"
	fresh
	wenv $c "BASH_ENV=$WS/evil-bashenv.sh" run --json --escalate danger-full-access \
		--justification x -c "echo ran >'$OUT/ran'"
	expect "$iso: BASH_ENV: the command ran" 0 class=ok mode=danger-full-access
	has "$iso: BASH_ENV: the command ran once" "$OUT/ran" ran
	absent "$iso: BASH_ENV: the start-up file did not run" "$OUT/bashenv"
	seen_is "$iso BASH_ENV" '"BASH_ENV" in r["env_removed"]' true
	seen_is "$iso BASH_ENV" 'r["argv"]' "[\"bash\", \"-c\", \"echo ran >'$OUT/ran'\"]"
	seen_is "$iso BASH_ENV" 'r["program"]' "$BASH_BIN"
	seen_is "$iso BASH_ENV" 'r["program_writable"]' false
	seen_is "$iso BASH_ENV" 'r["cwd"]' "$WS"
	seen_is "$iso BASH_ENV" 'r["interpreter"]' ""

	echo "---- ENV and the loader's variables"
	fresh
	wenv $c "ENV=$WS/evil-env.sh LD_PRELOAD=$WS/nothing.so LD_LIBRARY_PATH=$WS" run --json \
		--escalate danger-full-access --justification x -- sh -i -c "echo ran >'$OUT/ran'"
	expect "$iso: ENV: the command ran" 0 class=ok
	has "$iso: ENV: the command ran once" "$OUT/ran" ran
	absent "$iso: ENV: the start-up file did not run" "$OUT/env"
	seen_is "$iso ENV" 'sorted(r["env_removed"])' '["ENV", "LD_LIBRARY_PATH", "LD_PRELOAD"]'
	seen_is "$iso ENV" 'r["program"]' "$SH_BIN"

	echo "---- git's configuration from the environment"
	fresh
	wenv $c "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=$WS/evil-fsmonitor.sh GIT_SSH_COMMAND=$WS/evil-fsmonitor.sh" \
		run --json --escalate danger-full-access --justification x \
		-c "git -C '$WS/repo' status >/dev/null 2>&1; echo ran >'$OUT/ran'"
	expect "$iso: git config: the command ran" 0 class=ok
	has "$iso: git config: the command ran once" "$OUT/ran" ran
	absent "$iso: git config: the fsmonitor it named did not run" "$OUT/fsmonitor"
	seen_is "$iso git config" 'sorted(r["env_removed"])' \
		'["GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0", "GIT_SSH_COMMAND"]'

	echo "---- a PATH entry under the root"
	fresh
	wenv $c "PATH=$WS/.venv/bin:.:$PATH" run --json --escalate danger-full-access \
		--justification x -c "git status >/dev/null 2>&1; command -v git >'$OUT/ran'"
	expect "$iso: PATH: the command ran" 0 class=ok
	has "$iso: PATH: git was the system's" "$OUT/ran" "$(command -v git)"
	absent "$iso: PATH: the planted git did not run" "$OUT/planted"
	seen_is "$iso PATH" 'r["path_dropped"]' "[\"$WS/.venv/bin\", \".\"]"
	seen_is "$iso PATH" '".venv" in r["path"] or r["path"].split(":")[0] == "."' false
	fresh
	wenv $c "PATH=$WS/.venv/bin:$PATH" run --json --escalate danger-full-access \
		--justification x -- git --version
	expect "$iso: PATH: an argv escalation of git" 0 class=ok
	absent "$iso: PATH: the planted git did not run for the argv either" "$OUT/planted"
	seen_is "$iso PATH argv" 'r["program"]' "$GIT_BIN"
	seen_is "$iso PATH argv" 'r["argv"]' '["git", "--version"]'

	echo "---- the program swapped while the answerer decides"
	fresh
	printf '#!/bin/sh\necho original >"%s/which"\n' "$OUT" >"$T/prog"
	printf '#!/bin/sh\necho swapped >"%s/which"\n' "$OUT" >"$T/evil"
	chmod 755 "$T/prog" "$T/evil"
	mkdir -p "$T/bin"
	cp "$T/prog" "$T/bin/prog"
	printf '#!/bin/sh\ncp "%s" "%s/bin/new" && mv -f "%s/bin/new" "%s/bin/prog"\n' \
		"$T/evil" "$T" "$T" "$T" >"$T/during"
	chmod 755 "$T/during"
	wr $c run --json --escalate danger-full-access --justification x -- "$T/bin/prog"
	expect "$iso: renamed over: it ran" 0 class=ok
	has "$iso: renamed over: the original ran" "$OUT/which" original
	grep -q swapped "$T/bin/prog" && ok "$iso: the file was swapped before the exec" ||
		fail "$iso: the answerer did not swap the file"
	seen_is "$iso swap" 'r["program"]' "$(cd "$T/bin" && pwd -P)/prog"
	seen_is "$iso swap" 'r["interpreter"]' "$SH_BIN"

	fresh
	cp "$(command -v touch)" "$T/bin/tool"
	printf '#!/bin/sh\ncp "%s" "%s/bin/new" && mv -f "%s/bin/new" "%s/bin/tool"\n' \
		"$T/evil" "$T" "$T" "$T" >"$T/during"
	chmod 755 "$T/during"
	wr $c run --json --escalate danger-full-access --justification x -- "$T/bin/tool" "$OUT/touched"
	expect "$iso: a binary renamed over: it ran" 0 class=ok
	[ -e "$OUT/touched" ] && ok "$iso: the original binary (touch) ran" || fail "$iso: touch did not run"
	absent "$iso: the swapped-in program did not run" "$OUT/which"

	fresh
	cp "$T/prog" "$T/ws/tool.sh"
	printf '#!/bin/sh\ncat "%s" >"%s/tool.sh"\n' "$T/evil" "$WS" >"$T/during"
	chmod 755 "$T/during"
	wr $c run --json --escalate danger-full-access --justification x -- ./tool.sh
	expect "$iso: a program in the root, rewritten in place: it ran" 0 class=ok
	has "$iso: rewritten in place: the original ran (a sealed copy)" "$OUT/which" original
	grep -q swapped "$T/ws/tool.sh" && ok "$iso: the file was rewritten before the exec" ||
		fail "$iso: the answerer did not rewrite the file"
	seen_is "$iso writable" 'r["program"]' "$WS/tool.sh"
	seen_is "$iso writable" 'r["program_writable"]' true
	rm -f "$T/ws/tool.sh"

	fresh
	cp "$(command -v touch)" "$T/ws/mytouch"
	printf '#!/bin/sh
cat "%s" >"%s/mytouch"
' "$T/evil" "$WS" >"$T/during"
	chmod 755 "$T/during"
	wr $c run --json --escalate danger-full-access --justification x -- ./mytouch "$OUT/touched"
	expect "$iso: a binary in the root, rewritten in place: it ran" 0 class=ok
	[ -e "$OUT/touched" ] && ok "$iso: the original binary ran from its sealed copy" ||
		fail "$iso: the binary in the root did not run"
	absent "$iso: the rewritten program did not run" "$OUT/which"
	seen_is "$iso writable binary" 'r["program_writable"]' true
	seen_is "$iso writable binary" 'r["interpreter"]' ""
	rm -f "$T/ws/mytouch"

	echo "---- a directory other than the root"
	fresh
	echo keep >"$OUT/keep.txt"
	echo gone >"$T/ws/gone.txt"
	(cd "$T/outside" && exec "$WARDEN" --config "$T/$c.ini" run --json --escalate danger-full-access \
		--justification 'clean the workspace' -c "rm -f ./*.txt; pwd -P >'$T/where'") >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	expect "$iso: run from outside the root" 0 class=ok
	[ -e "$OUT/keep.txt" ] && ok "$iso: nothing was deleted in warden's own directory" ||
		fail "$iso: the command ran in warden's directory, not the root"
	absent "$iso: the root's file was deleted" "$T/ws/gone.txt"
	has "$iso: it ran in the root" "$T/where" "$WS"
	seen_is "$iso cwd" 'r["cwd"]' "$WS"
	mkdir -p "$T/ws/sub"
	echo x >"$T/ws/sub/x.txt"
	echo y >"$T/ws/y.txt"
	wr $c run --json --cwd "$T/ws/sub" --escalate danger-full-access --justification x \
		-c "rm -f ./*.txt; pwd -P >'$T/where'"
	expect "$iso: --cwd a subdirectory" 0 class=ok
	absent "$iso: --cwd: the subdirectory's file was deleted" "$T/ws/sub/x.txt"
	[ -e "$T/ws/y.txt" ] && ok "$iso: --cwd: the root's file is untouched" || fail "$iso: --cwd: ran in the root"
	has "$iso: --cwd: it ran there" "$T/where" "$WS/sub"
	seen_is "$iso --cwd" 'r["cwd"]' "$WS/sub"
	[ "$(field cwd)" = "$WS/sub" ] && ok "$iso: --json says where it ran" || fail "$iso: --json cwd is $(field cwd)"
	rm -f "$T/ws/y.txt" "$T/where"

	echo "---- --call-id"
	fresh
	wr $c run --json --call-id "call-$iso" --escalate danger-full-access --justification x -c true
	expect "$iso: --call-id" 0 class=ok call_id="call-$iso"
	seen_is "$iso call id" 'r["call_id"]' "call-$iso"
	[ "$(events $c sandbox/run | tail -n 2 | "$PY" -c 'import json,sys; print(" ".join(str(json.loads(l).get("call_id")) for l in sys.stdin))')" = "call-$iso call-$iso" ] &&
		ok "$iso: both sandbox/run events (start and end) carry the call id" ||
		fail "$iso: the sandbox/run start and end events do not both carry the call id"
	for ev in approval/asked approval/decided sandbox/run; do
		[ "$(events $c $ev | tail -n 1 | "$PY" -c 'import json,sys; print(json.load(sys.stdin).get("call_id"))')" = "call-$iso" ] &&
			ok "$iso: $ev carries the call id" || fail "$iso: $ev has no call id"
	done
	events $c approval/asked | tail -n 1 | "$PY" -c '
import json, sys
e = json.load(sys.stdin)
assert e["program"] and e["cwd"] and e["argv"] == ["bash", "-c", "true"], e
assert "env_removed" in e and "path_dropped" in e and "path" in e, e
print("ok: approval/asked records the program, argv, cwd and environment")' || fail "$iso: approval/asked fields"
done

echo "---- nothing is asked about a program that cannot run"
fresh
wr rec-process run --escalate danger-full-access --justification x -- no-such-program-here
expect "not found: 127" 127
[ ! -e "$T/seen" ] && ok "the answerer was not asked" || fail "the answerer was asked about a missing program"
wr rec-process run --cwd "$T/no-such-dir" -c true
expect "--cwd that does not exist: usage error" 64
err_has "--cwd names the directory" "no-such-dir"
wenv rec-process "PATH=$WS/.venv/bin" run --escalate danger-full-access --justification x -c true
expect "every PATH entry under the root: refused" 77
err_has "says why" "no PATH entry is left"
[ ! -e "$T/seen" ] && ok "the answerer was not asked" || fail "asked with no safe PATH"

echo "---- a run that is not escalated runs in the root too"
(cd "$T/outside" && exec "$WARDEN" --config "$T/rec-process.ini" run -c 'pwd -P') >"$T/out" 2>"$T/err" </dev/null
rc=$?
expect "a confined run from outside the root" 0
[ "$(cat "$T/out")" = "$WS" ] && ok "it ran in the root" || fail "it ran in $(cat "$T/out")"

echo "---- rules: a program under a writable root"
cp "$T/prog" "$T/ws/tool.sh"
wr rules-default run --escalate danger-full-access --justification x -- ./tool.sh
expect "rules (default writable_program = reject) refuses a program in the root" 77
err_has "the refusal names the program" "tool.sh lies under a writable root"
absent "nothing ran" "$OUT/which"
wr rules-default run --escalate danger-full-access --justification x -- "$T/bin/tool" "$OUT/t2"
expect "rules: a program outside the root is allowed" 0
wr rules-rules run --escalate danger-full-access --justification x -- ./tool.sh
expect "writable_program = rules: the patterns decide" 0
has "it ran" "$OUT/which" original

echo "---- warden approve describes a command by the same rules"
for iso in inproc process; do
	fresh
	(cd "$T/outside" && exec env BASH_ENV="$WS/evil-bashenv.sh" PATH="$WS/.venv/bin:$PATH" \
		"$WARDEN" --config "$T/rec-$iso.ini" approve --json --call-id c1 -c 'git status') \
		>"$T/out" 2>"$T/err" </dev/null
	rc=$?
	[ $rc = 0 ] && ok "$iso: approve -c: allowed-once" || { fail "$iso: approve exit $rc"; cat "$T/err"; }
	seen_is "$iso approve" 'r["subject"]' "git status"
	seen_is "$iso approve" 'r["tool"]' "bash"
	seen_is "$iso approve" 'r["program"]' "$BASH_BIN"
	seen_is "$iso approve" 'r["cwd"]' "$WS"
	seen_is "$iso approve" 'r["path_dropped"]' "[\"$WS/.venv/bin\"]"
	seen_is "$iso approve" 'r["env_removed"]' '["BASH_ENV"]'
	"$PY" - "$T/out" "$WS" "$BASH_BIN" <<'PY' || fail "$iso: approve --json command"
import json, sys
o = json.load(open(sys.argv[1]))
c = o["command"]
assert c["argv"] == ["bash", "-c", "git status"] and c["program"] == sys.argv[3], c
assert c["cwd"] == sys.argv[2] and c["path_dropped"] == [sys.argv[2] + "/.venv/bin"], c
assert c["env_removed"] == ["BASH_ENV"] and ".venv" not in c["path"], c
print("ok: approve --json says exactly what to run")
PY
	fresh
	(cd "$T/ws" && exec "$WARDEN" --config "$T/rec-$iso.ini" approve --cwd "$T/ws/sub" -- ../tool.sh) \
		>"$T/out" 2>"$T/err" </dev/null
	rc=$?
	[ $rc = 0 ] && ok "$iso: approve -- argv" || fail "$iso: approve -- argv: exit $rc"
	seen_is "$iso approve argv" 'r["program"]' "$WS/tool.sh"
	seen_is "$iso approve argv" 'r["program_writable"]' true
	seen_is "$iso approve argv" 'r["cwd"]' "$WS/sub"
	seen_is "$iso approve argv" 'r["subject"]' "../tool.sh"
done
rm -f "$T/ws/tool.sh"

finish

#!/bin/sh
# boundary.sh — what the host does so that a confined command cannot walk
# around its boundary: it carries no WARDEN_* variable, and warden's own
# lines show hostile text (an argv, a path) escaped instead of sending
# terminal controls.
. "$top_srcdir/tests/run/lib.sh"

config cfg workspace-write bwrap
config ll workspace-write landlock
config cfgro read-only bwrap
config llro read-only landlock

# clean FILE: no byte a terminal acts on (C0 but newline, DEL, C1 in
# UTF-8, bytes that are not UTF-8) anywhere in FILE.
clean() {
	"$PY" - "$1" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
try:
    t = b.decode("utf-8")
except UnicodeDecodeError as e:
    sys.exit("not UTF-8: %s" % e)
bad = [c for c in t if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f
       or 0x202a <= ord(c) <= 0x202e]
sys.exit("raw control characters: %r" % bad if bad else 0)
PY
}

echo "---- a confined command carries no WARDEN_* variable"
id=$("$WARDEN" --config "$T/cfg.ini" session new --cwd "$T/ws" | tail -n 1)
for c in cfg ll cfgro llro; do
	(export WARDEN_SESSION="$id" WARDEN_CONFIG="$T/$c.ini" WARDEN_OTHER=x
	 cd "$T/ws" && "$WARDEN" run -- env) >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "$c: env ran with exit $rc"
		sed 's/^/  stderr: /' "$T/err"
	elif grep -q '^WARDEN_' "$T/out"; then
		fail "$c: the command saw $(grep '^WARDEN_' "$T/out" | tr '\n' ' ')"
	elif ! grep -q '^PATH=' "$T/out"; then
		fail "$c: env printed no PATH: the output is not the environment"
	else
		ok "$c: env inside shows no WARDEN_* (WARDEN_SESSION and WARDEN_CONFIG were set)"
	fi
done
# The same for danger-full-access: a command is never warden's caller.
"$WARDEN" --config "$T/cfg.ini" --session "$id" mode set danger-full-access >/dev/null ||
	fail "mode set danger-full-access"
(export WARDEN_SESSION="$id" WARDEN_CONFIG="$T/cfg.ini"
 cd "$T/ws" && "$WARDEN" run -- env) >"$T/out" 2>"$T/err" </dev/null
grep -q '^WARDEN_' "$T/out" && fail "danger-full-access: the command saw WARDEN_*" ||
	ok "danger-full-access: no WARDEN_* either"

echo "---- warden's own lines escape what they quote"
wr cfg run -- "$(printf '\033[2J\033]0;owned\007')"
if [ "$rc" -ne 127 ]; then
	fail "an escape sequence as the program: exit $rc, want 127"
elif ! clean "$T/err"; then
	fail "run -- ESC[2J: stderr carries raw control characters"
	od -c "$T/err" | head -5
elif ! grep -qF '\x1b[2J\x1b]0;owned\x07: command not found' "$T/err"; then
	fail "run -- ESC[2J: the program is not named in escaped form"
	cat "$T/err"
else
	ok "run -- ESC[2J...: exit 127, the name shown as \\x1b[2J\\x1b]0;owned\\x07"
fi

# A C1 CSI, a right-to-left override and bytes that are not UTF-8.
wr cfg run -- "$(printf 'a\302\233"2Jb\342\200\256c\377')"
if clean "$T/err" && grep -qF 'a\u{009b}"2Jb\u{202e}c\xff' "$T/err"; then
	ok "C1, a bidi override and a stray byte are shown escaped"
else
	fail "C1 / bidi / invalid UTF-8 in the program name not escaped"
	od -c "$T/err" | head -5
fi

# session new --cwd with an escape in a path that does not exist.
wr cfg session new --cwd "$T/$(printf 'no\033[2Jpe')"
if [ "$rc" -eq 0 ]; then
	fail "session new on a missing directory succeeded"
elif clean "$T/err" && grep -qF 'no\x1b[2Jpe' "$T/err"; then
	ok "session new --cwd with ESC in a missing path: refused (exit $rc), shown escaped"
else
	fail "session new --cwd: the error carries the raw escape"
	od -c "$T/err" | head -5
fi

# ... and in one that does: the session works, and every text view of it
# (state, show, a run's refusal) shows the path escaped.
evil="$T/$(printf 'ev\033]0;t\007il\302\233x')"
mkdir "$evil"
wr cfg session new --cwd "$evil"
eid=$(tail -n 1 "$T/out")
if [ "$rc" -ne 0 ] || [ -z "$eid" ]; then
	fail "session new in a directory whose name holds escapes: exit $rc"
	cat "$T/err"
else
	wr cfg session state "$eid"
	if [ "$rc" -eq 0 ] && clean "$T/out" && grep -qF 'ev\x1b]0;t\x07il\u{009b}x (session)' "$T/out"; then
		ok "session state shows the root escaped"
	else
		fail "session state: exit $rc, or raw control characters in its text"
		od -c "$T/out" | head -8
	fi
	wr cfg session show "$eid"
	if [ "$rc" -eq 0 ] && clean "$T/out" && grep -qiF 'ev\u001b]0;t\u0007il\u{009b}x' "$T/out"; then
		ok "session show (text) shows the cwd escaped"
	else
		fail "session show: exit $rc, or raw control characters in its text"
		od -c "$T/out" | head -8
	fi
	wr cfg session show "$eid" --json
	"$PY" -c 'import json,sys; e=json.load(open(sys.argv[1]))["events"][0]; sys.exit(e["cwd"] != sys.argv[2])' \
		"$T/out" "$evil" && ok "session show --json keeps the exact path" ||
		fail "session show --json does not carry the exact path"
	wr cfg --session "$eid" run -- /nonexistent/"$(printf '\033[31m')"
	if [ "$rc" -eq 127 ] && clean "$T/err"; then
		ok "a refusal in that session: escaped"
	else
		fail "run in the escaped session: exit $rc, or raw control characters"
		od -c "$T/err" | head -5
	fi
fi

# A config error quotes the file's bytes: still escaped.  (The parser
# refuses C0 controls in a config; C1 and bidi characters are valid UTF-8
# and reach the message.)
printf '[warden]\ndefault_mode = read\302\233only\342\200\256\n' >"$T/bad.ini"
chmod 644 "$T/bad.ini"
wr bad config check
if [ "$rc" -eq 78 ] && clean "$T/err" && grep -qF 'read\u{009b}only\u{202e}' "$T/err"; then
	ok "config check: a bad value is quoted escaped (exit 78)"
else
	fail "config check: exit $rc, or the bad value reached stderr raw"
	od -c "$T/err" | head -5
fi

echo "---- a session's root stays what session new recorded"
mkdir -p "$T/ws/p/sub" "$T/elsewhere"
echo original >"$T/elsewhere/file"
for c in cfg ll; do
	ida=$("$WARDEN" --config "$T/$c.ini" session new --cwd "$T/ws" | tail -n 1)
	idb=$("$WARDEN" --config "$T/$c.ini" session new --cwd "$T/ws/p/sub" | tail -n 1)
	wr "$c" --session "$idb" run --json -- touch "$T/ws/p/sub/b-was-here"
	expect "$c: session B writes under its root" 0 class=ok || continue
	# Session R, on the same root in read-only mode.
	idr=$("$WARDEN" --config "$T/$c.ini" session new --cwd "$T/ws/p/sub" | tail -n 1)
	"$WARDEN" --config "$T/$c.ini" --session "$idr" mode set read-only >/dev/null ||
		fail "$c: mode set read-only for session R"
	# A command of session A (root $T/ws) moves B's root aside and plants
	# a symlink to a directory outside both roots in its place.
	wr "$c" --session "$ida" run --json -c "mv p/sub p/sub.orig && ln -s '$T/elsewhere' p/sub"
	expect "$c: session A replaces p/sub by a symlink" 0 class=ok || continue
	[ -L "$T/ws/p/sub" ] || { fail "$c: the symlink is not there"; continue; }
	wr "$c" --session "$idb" run --json -- touch "$T/ws/p/sub/b-after-move"
	if [ "$rc" -ne 65 ]; then
		fail "$c: session B ran on a moved root: exit $rc, want 65"
		cat "$T/out" "$T/err"
	elif ! grep -q "now leads to $T/elsewhere" "$T/err"; then
		fail "$c: the refusal does not say where the root leads now"
		cat "$T/err"
	else
		ok "$c: session B refuses its moved root (exit 65, names the new target)"
	fi
	[ "$(ls "$T/elsewhere")" = file ] && [ "$(cat "$T/elsewhere/file")" = original ] &&
		ok "$c: nothing written where the symlink points" ||
		fail "$c: $T/elsewhere changed: $(ls "$T/elsewhere")"
	wr "$c" session state "$idb"
	[ "$rc" -eq 65 ] && ok "$c: session state refuses it too (exit 65)" ||
		fail "$c: session state on a moved root: exit $rc"
	wr "$c" --session "$idr" run --json -- cat "$T/ws/p/sub/x"
	[ "$rc" -eq 65 ] && grep -q "now leads to $T/elsewhere" "$T/err" &&
		ok "$c: read-only session R refuses its moved root too (exit 65)" ||
		{ fail "$c: read-only session R on a moved root: exit $rc"; cat "$T/out" "$T/err"; }
	# Put back, the root is the recorded one again and B works.
	rm "$T/ws/p/sub" && mv "$T/ws/p/sub.orig" "$T/ws/p/sub"
	wr "$c" --session "$idb" run --json -- touch "$T/ws/p/sub/b-restored"
	expect "$c: restored, session B runs again" 0 class=ok
	wr "$c" --session "$idr" run --json -- ls "$T/ws/p/sub"
	expect "$c: restored, read-only session R runs again" 0 class=ok mode=read-only enforcement=full
	rm -f "$T/ws/p/sub/"*
done

echo "---- the command starts inside the root"
idp=$("$WARDEN" --config "$T/cfg.ini" session new --cwd "$T/ws/p" | tail -n 1)
mkdir -p "$T/ws/p/deeper"
(cd "$T/ws/p/deeper" && "$WARDEN" --config "$T/cfg.ini" --session "$idp" run -- pwd) >"$T/out" 2>"$T/err"
[ "$(cat "$T/out")" = "$T/ws/p/deeper" ] && ok "from a directory inside the root: there" ||
	fail "inside the root, pwd says '$(cat "$T/out")' ($(cat "$T/err"))"
(cd "$T/outside" && "$WARDEN" --config "$T/cfg.ini" --session "$idp" run -- pwd) >"$T/out" 2>"$T/err"
[ "$(cat "$T/out")" = "$T/ws/p" ] && ok "from a directory outside the root: the root" ||
	fail "outside the root, pwd says '$(cat "$T/out")' ($(cat "$T/err"))"
(cd "$T/outside" && "$WARDEN" --config "$T/ll.ini" --session "$idp" run -- pwd) >"$T/out" 2>"$T/err"
[ "$(cat "$T/out")" = "$T/ws/p" ] && ok "landlock: from outside the root, the root" ||
	fail "landlock: outside the root, pwd says '$(cat "$T/out")' ($(cat "$T/err"))"
printf '#!/bin/sh\necho relative-ran\n' >"$T/ws/p/here.sh"
chmod 755 "$T/ws/p/here.sh"
(cd "$T/outside" && "$WARDEN" --config "$T/cfg.ini" --session "$idp" run -- ./here.sh) >"$T/out" 2>"$T/err"
[ "$(cat "$T/out")" = relative-ran ] && ok "a relative program is found from where the command starts" ||
	fail "./here.sh from the root: '$(cat "$T/out")' ($(cat "$T/err"))"

echo "---- warden's own inputs kept inside the workspace"
EXEC_SO=$top_builddir/plugins/exec/.libs/exec.so
[ -e "$EXEC_SO" ] || { echo "FAIL: $EXEC_SO was not built"; exit 1; }
# selfconf DIR BACKEND [MODE]: DIR/warden.ini, as a team keeps it in its
# repository: the root is DIR, the session logs in DIR/.state, an exec
# answerer whose script lives in DIR; default_mode MODE (workspace-write).
selfconf() {
	d=$1
	mkdir -p "$d"
	printf '#!/bin/sh\necho allowed-once\n' >"$d/answer.sh"
	chmod 755 "$d/answer.sh"
	{
		printf '[warden]\ndefault_mode = %s\nworkspace_root = %s\nstate_dir = %s/.state\n' \
			"${3:-workspace-write}" "$d" "$d"
		case $2 in
		bwrap) printf '[backend bwrap]\nplugin = %s\nlauncher = %s\n' "$BWRAP_SO" \
			"$top_builddir/plugins/bwrap/warden-bwrap-exec" ;;
		landlock) printf 'deny_read_defaults = false\n[backend landlock]\nplugin = %s\nrunner = %s\n' "$LL_SO" "$RUNNER" ;;
		esac
		printf '[answerer script]\nplugin = %s\ncommand = /bin/sh\narg = %s/answer.sh\n' "$EXEC_SO" "$d"
	} >"$d/warden.ini"
	chmod 644 "$d/warden.ini"
}
# sums DIR: the checksums of the config and the answerer's script in DIR.
sums() { (cd "$1" && sha256sum warden.ini answer.sh 2>&1); }
# sw DIR ARGS...: warden with DIR's config, in DIR.
sw() {
	d=$1
	shift
	(cd "$d" && "$WARDEN" --config "$d/warden.ini" "$@") >"$T/out" 2>"$T/err" </dev/null
	rc=$?
}

for b in bwrap landlock; do
	d=$T/self-$b
	selfconf "$d" $b
	sw "$d" session new
	sid=$(tail -n 1 "$T/out")
	[ "$rc" -eq 0 ] && [ -n "$sid" ] || { fail "$b: session new in $d: exit $rc"; continue; }
	sums "$d" >"$T/before"

	sw "$d" config check
	if [ "$rc" -eq 0 ] && grep -q '^inputs under workspace_root (3)' "$T/out" &&
	   grep -qF "  $d/warden.ini (the config file)" "$T/out" &&
	   grep -qF "  $d/.state (state_dir (the session logs))" "$T/out" &&
	   grep -qF "  $d/answer.sh ([answerer script] arg (line" "$T/out"; then
		ok "$b: config check names the config, state_dir and the answerer's script under the root"
	else
		fail "$b: config check does not list the inputs under workspace_root"
		cat "$T/out" "$T/err"
	fi
	sw "$d" config check --json
	"$PY" - "$T/out" "$d" <<'PY' && ok "$b: config check --json lists the same" || fail "$b: config check --json"
import json, sys
o = json.load(open(sys.argv[1])); d = sys.argv[2]
under = sorted(i["path"] for i in o["inputs_under_workspace_root"])
assert under == sorted([d + "/warden.ini", d + "/.state", d + "/answer.sh"]), under
every = [i["path"] for i in o["inputs"]]
assert all(p in every for p in under), every
assert all(not p.startswith(d + "/") for p in every if p not in under), every
PY

	if [ $b = landlock ]; then
		# Landlock cannot hold a path read-only under a writable root:
		# it refuses to confine, naming the path, and nothing runs.
		sw "$d" --session "$sid" run --json -c "sed -i 's/^default_mode = .*/default_mode = danger-full-access/' warden.ini"
		if [ "$rc" -eq 69 ] && grep -q "SANDBOX_UNAVAILABLE" "$T/err" &&
		   grep -qF "$d/" "$T/err"; then
			ok "landlock: SANDBOX_UNAVAILABLE, naming the path under the root (exit 69)"
		else
			fail "landlock: a workspace-write run with warden.ini under the root: exit $rc"
			cat "$T/out" "$T/err"
		fi
	else
		sw "$d" --session "$sid" run --json -c "sed -i 's/^default_mode = .*/default_mode = danger-full-access/' warden.ini"
		[ "$rc" -ne 0 ] && ok "bwrap: editing warden.ini from inside fails (exit $rc)" ||
			fail "bwrap: sed -i warden.ini succeeded inside the sandbox"
		# A forged sandbox/mode line that continues the log exactly.
		forged=$("$PY" - "$d/.state/$sid.jsonl" <<'PY'
import json, sys
last = json.loads(open(sys.argv[1]).read().splitlines()[-1])
k = dict(last["knobs"]); k["mode"] = "danger-full-access"
print(json.dumps({"seq": last["seq"] + 1, "time": last["time"], "type": "sandbox/mode",
                  "mode": "danger-full-access", "knobs": k}, separators=(",", ":")))
PY
)
		sw "$d" --session "$sid" run --json -c "printf '%s\n' '$forged' >>.state/$sid.jsonl"
		[ "$rc" -ne 0 ] && ok "bwrap: appending a forged line to the session log fails (exit $rc)" ||
			fail "bwrap: the forged line was appended"
		for cmd in "echo 'echo rejected' >answer.sh" "rm -rf .state" \
		           "mv .state s" "mv warden.ini w" "rm warden.ini"; do
			sw "$d" --session "$sid" run --json -c "$cmd"
			[ "$rc" -ne 0 ] && ok "bwrap: '$cmd' fails inside (exit $rc)" ||
				fail "bwrap: '$cmd' succeeded inside the sandbox"
		done
		sw "$d" --session "$sid" run --json -c "touch ok-inside"
		expect "bwrap: the root itself stays writable" 0 class=ok mode=workspace-write
		sw "$d" --session "$sid" run --json -- touch "$T/outside/escalated-$b"
		expect "bwrap: the next run is still confined" 1 class=denied mode=workspace-write mode_source=config enforcement=full
		[ -e "$T/outside/escalated-$b" ] && fail "bwrap: the next run wrote outside the root"
	fi
	sums "$d" >"$T/after"
	if cmp -s "$T/before" "$T/after"; then
		ok "$b: warden.ini and answer.sh unchanged on the host"
	else
		fail "$b: warden.ini or answer.sh changed on the host"
		cat "$T/before" "$T/after"
	fi
	if grep -q '"sandbox/mode"' "$d/.state/$sid.jsonl"; then
		fail "$b: a sandbox/mode line reached the session log"
	else
		ok "$b: no sandbox/mode line in the session log"
	fi
	sw "$d" --session "$sid" session state "$sid"
	grep -q '^mode: workspace-write (config)' "$T/out" && ok "$b: the session's mode is still the config's" ||
		{ fail "$b: session state after the attempts"; cat "$T/out" "$T/err"; }
done


echo "---- warden's own inputs inside the workspace, read-only mode"
# Nothing is writable in read-only mode: both backends confine (Landlock
# too, it holds every path then), and no attempt reaches the host.
for b in bwrap landlock; do
	d=$T/selfro-$b
	selfconf "$d" $b read-only
	sw "$d" session new
	sid=$(tail -n 1 "$T/out")
	[ "$rc" -eq 0 ] && [ -n "$sid" ] || { fail "$b read-only: session new in $d: exit $rc"; continue; }
	sums "$d" >"$T/before"
	for cmd in "sed -i 's/^default_mode = .*/default_mode = danger-full-access/' warden.ini" \
	           "echo '{\"forged\":1}' >>.state/$sid.jsonl" "echo 'echo rejected' >answer.sh" \
	           "mv warden.ini w" "rm -rf .state" "mv .state s"; do
		sw "$d" --session "$sid" run --json -c "$cmd"
		if [ "$rc" -eq 0 ] || [ "$rc" -eq 69 ]; then
			fail "$b read-only: '$cmd': exit $rc, want a confined failure"
			cat "$T/out" "$T/err"
		elif [ "$(field mode)" != read-only ] || [ "$(field enforcement)" != full ]; then
			fail "$b read-only: '$cmd' ran as $(field mode)/$(field enforcement)"
		else
			ok "$b read-only: '$cmd' fails confined (exit $rc, full)"
		fi
	done
	sums "$d" >"$T/after"
	cmp -s "$T/before" "$T/after" && ok "$b read-only: warden.ini and answer.sh unchanged on the host" ||
		{ fail "$b read-only: warden.ini or answer.sh changed"; cat "$T/before" "$T/after"; }
	[ -e "$d/warden.ini" ] && [ -d "$d/.state" ] && [ ! -e "$d/w" ] && [ ! -e "$d/s" ] ||
		fail "$b read-only: the config or state_dir moved: $(ls -A "$d")"
	# (The log records each run's argv: only a line of its own counts.)
	grep -qx '{"forged":1}' "$d/.state/$sid.jsonl" && fail "$b read-only: the forged line reached the log" ||
		ok "$b read-only: the session log holds no forged line"
	sw "$d" --session "$sid" run --json -- touch "$T/outside/escalated-ro-$b"
	expect "$b read-only: the next run is still confined" 1 class=denied mode=read-only mode_source=config enforcement=full
	[ -e "$T/outside/escalated-ro-$b" ] && fail "$b read-only: the next run wrote outside the root"
done

echo "---- bwrap: warden's own inputs deeper in the root hold by every route"
# The config in conf/, the session logs in var/state, the plugin in lib/
# (plugin_dir, the plugin by bare name), the answerer's script in tools/,
# and a plugin that does not exist yet (lib/later.so).  The launcher
# stays outside: bwrap refuses one inside the root (below).
d=$T/deep
MARK=planted-input-$$
mkdir -p "$d/conf" "$d/tools" "$d/lib"
cp "$BWRAP_SO" "$d/lib/bwrap.so"
printf '#!/bin/sh\necho allowed-once\n' >"$d/tools/answer.sh"
chmod 755 "$d/tools/answer.sh"
chmod 644 "$d/lib/bwrap.so"
printf '[warden]\ndefault_mode = workspace-write\nworkspace_root = %s\nstate_dir = %s/var/state\nplugin_dir = %s/lib\n[backend bwrap]\nplugin = bwrap\nlauncher = %s\n[answerer script]\nplugin = %s\ncommand = /bin/sh\narg = %s/tools/answer.sh\n[answerer later]\nplugin = later\n' \
	"$d" "$d" "$d" "$top_builddir/plugins/bwrap/warden-bwrap-exec" "$EXEC_SO" "$d" >"$d/conf/warden.ini"
chmod 644 "$d/conf/warden.ini"
# dw ARGS...: warden with deep's config, in deep.
dw() {
	(cd "$d" && "$WARDEN" --config "$d/conf/warden.ini" "$@") >"$T/out" 2>"$T/err" </dev/null
	rc=$?
}
dsums() { (cd "$d" && sha256sum conf/warden.ini tools/answer.sh lib/bwrap.so 2>&1); }
dw session new
sid=$(tail -n 1 "$T/out")
if [ "$rc" -ne 0 ] || [ -z "$sid" ]; then
	fail "deep: session new: exit $rc: $(cat "$T/err")"
else
	dw config check --json
	"$PY" - "$T/out" "$d" <<'PY' && ok "deep: config check names every input under the root, the missing plugin too" ||
import json, sys
o = json.load(open(sys.argv[1])); d = sys.argv[2]
under = set(i["path"] for i in o["inputs_under_workspace_root"])
want = set(d + p for p in ["/conf/warden.ini", "/var/state", "/lib", "/lib/bwrap.so",
                           "/lib/later.so", "/tools/answer.sh"])
assert want <= under, (sorted(want - under), sorted(under))
PY
		{ fail "deep: config check --json"; cat "$T/out" "$T/err"; }
	dsums >"$T/before"
	for cmd in \
		"mv conf conf-aside; mkdir conf; echo $MARK > conf/warden.ini" \
		"rm -f conf/warden.ini; echo $MARK > conf/warden.ini" \
		"rm -rf tools; mkdir -p tools; echo $MARK > tools/answer.sh" \
		"mv var var-aside; mkdir -p var/state; echo $MARK > var/state/$sid.jsonl" \
		"mv var/state var/state-aside; mkdir var/state; echo $MARK > var/state/$sid.jsonl" \
		"echo $MARK >> var/state/$sid.jsonl" \
		"mv lib lib-aside; mkdir lib; echo $MARK > lib/bwrap.so" \
		"rm -f lib/bwrap.so; echo $MARK > lib/bwrap.so" \
		"echo $MARK > lib/later.so" \
		"ln -s ../tools/answer.sh lib/later.so"; do
		dw --session "$sid" run --json -c "$cmd"
		[ "$rc" -ne 0 ] && [ "$(field enforcement)" = full ] &&
			ok "deep: '$cmd' fails inside (exit $rc)" ||
			fail "deep: '$cmd': exit $rc, enforcement $(field enforcement)"
	done
	dsums >"$T/after"
	# The log records each run's argv: there only a line of its own counts.
	p=$(grep -rlF "$MARK" "$d" | grep -vx "$d/var/state/$sid.jsonl"; grep -lx "$MARK" "$d/var/state/$sid.jsonl")
	left=$(cd "$d" && ls -d conf-aside var-aside var/state-aside lib-aside lib/later.so 2>/dev/null)
	if [ -n "$p" ] || [ -n "$left" ] || ! cmp -s "$T/before" "$T/after"; then
		fail "deep: the host changed: planted '$p', left '$left'"
		diff "$T/before" "$T/after"
	else
		ok "deep: config, script and plugin unchanged; nothing planted or moved; later.so not made"
	fi
	dw --session "$sid" run --json -- touch "$T/outside/escalated-deep"
	expect "deep: the next run is still confined, by the config's mode" 1 class=denied mode=workspace-write mode_source=config enforcement=full
	[ -e "$T/outside/escalated-deep" ] && fail "deep: the next run wrote outside the root"
	dw --session "$sid" run --json -c "touch work-here"
	[ "$rc" -eq 0 ] && [ -e "$d/work-here" ] && ok "deep: the root itself stays writable" ||
		fail "deep: touch inside the root: exit $rc"
fi
# A launcher inside the root: bwrap refuses to confine with it, naming it.
cp "$top_builddir/plugins/bwrap/warden-bwrap-exec" "$d/lib/warden-bwrap-exec"
sed -i "s|^launcher = .*|launcher = $d/lib/warden-bwrap-exec|" "$d/conf/warden.ini"
dw --session "$sid" run --json -c "echo $MARK > work-here"
if [ "$rc" -eq 69 ] && grep -qF "SANDBOX_UNAVAILABLE" "$T/err" &&
   grep -qF "launcher $d/lib/warden-bwrap-exec lies inside the workspace root" "$T/err" &&
   ! grep -qF "$MARK" "$d/work-here"; then
	ok "deep: a launcher inside the root is refused by name (exit 69), nothing ran"
else
	fail "deep: a launcher inside the root: exit $rc"
	cat "$T/out" "$T/err"
fi

echo "---- a refusal naming a path with terminal controls shows it escaped"
# (The config parser refuses C0 controls: C1 and bidi characters are
# valid UTF-8 and reach the paths.)
d="$T/$(printf 'self\302\233ll\342\200\256x')"
selfconf "$d" landlock
sw "$d" session new
sid=$(tail -n 1 "$T/out")
sw "$d" --session "$sid" run -- true
if [ "$rc" -eq 69 ] && clean "$T/err" && grep -qF 'self\u{009b}ll\u{202e}x/' "$T/err"; then
	ok "landlock's refusal (exit 69) names the path under the root escaped"
else
	fail "landlock's refusal with C1/bidi in the root: exit $rc, or raw controls"
	od -c "$T/err" | head -8
fi
sw "$d" config check
if [ "$rc" -eq 0 ] && clean "$T/out" && grep -qF 'self\u{009b}ll\u{202e}x/warden.ini' "$T/out"; then
	ok "config check lists the inputs under the root escaped"
else
	fail "config check with C1/bidi in the root: exit $rc, or raw controls"
	od -c "$T/out" | head -8
fi

echo "---- a Landlock runner inside the root"
# Refused by name in either mode; nothing runs.
cp "$RUNNER" "$T/ws/runner-copy"
for m in read-only workspace-write; do
	config llin read-only "[backend landlock]
plugin = $LL_SO
runner = $T/ws/runner-copy"
	sed -i "s/^default_mode = .*/default_mode = $m/" "$T/llin.ini"
	wr llin run --json -- echo ran
	if [ "$rc" -eq 69 ] && ! grep -q '^ran$' "$T/out" &&
	   grep -qF "landlock: $T/ws/runner-copy lies inside the workspace root" "$T/err"; then
		ok "landlock $m: a runner inside the root is refused by name (exit 69), nothing ran"
	else
		fail "landlock $m: a runner inside the root: exit $rc"
		cat "$T/out" "$T/err"
	fi
done
rm -f "$T/ws/runner-copy"

finish

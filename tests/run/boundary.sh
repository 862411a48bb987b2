#!/bin/sh
# boundary.sh — what the host does so that a confined command cannot walk
# around its boundary: it carries no WARDEN_* variable, and warden's own
# lines show hostile text (an argv, a path) escaped instead of sending
# terminal controls.
. "$top_srcdir/tests/run/lib.sh"

config cfg workspace-write bwrap
config ll workspace-write landlock

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
for c in cfg ll; do
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
	# Put back, the root is the recorded one again and B works.
	rm "$T/ws/p/sub" && mv "$T/ws/p/sub.orig" "$T/ws/p/sub"
	wr "$c" --session "$idb" run --json -- touch "$T/ws/p/sub/b-restored"
	expect "$c: restored, session B runs again" 0 class=ok
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

finish

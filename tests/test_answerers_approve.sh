#!/bin/sh
# test_answerers_approve.sh — the exec, ffi and tty answerers through
# `warden approve`, in worker processes and in-process: each outcome's
# exit status and deciding answerer, a program past its deadline, a
# function's unmapped value, a plugin refused at open; the tty prompt on a
# real pseudo-terminal (y, n, Ctrl-C, an escape-laden subject) and without
# any terminal; and the shipped configs desk.ini, team-service.ini and
# legacy-library.ini answering real requests.
set -eu
: "${WARDEN:?run by make check}" "${top_builddir:?}" "${top_srcdir:?}"
PY=/usr/bin/python3

dir=$(mktemp -d "$top_builddir/tests/answerers-approve-XXXXXX")
trap 'rm -rf "$dir"' EXIT
chmod 700 "$dir"
unset WARDEN_SESSION WARDEN_CONFIG
export XDG_CONFIG_HOME="$dir/xdg" XDG_STATE_HOME="$dir/xdg-state"

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

# The built plugins, copied into one plugin directory as an install would.
mkdir -p "$dir/plugins"
for p in exec tty ffi rules bwrap landlock; do
	so=$top_builddir/plugins/$p/.libs/$p.so
	[ -f "$so" ] || fail "$so is not built"
	cp "$so" "$dir/plugins/"
done
chmod -R go-w "$dir/plugins"
byt=$top_srcdir/plugin-api/examples/answer-by-tool.sh
legacy=$top_builddir/tests/answerers/.libs/legacy_policy.so

# ini NAME SECTIONS... — a config whose answerer chain is SECTIONS.
ini() {
	name=$1; shift
	{
		printf '[warden]\nstate_dir = %s/state\ndurability = none\nplugin_dir = %s/plugins\n' "$dir" "$dir"
		printf '%s\n' "$@"
	} >"$dir/$name.ini"
	chmod 600 "$dir/$name.ini"
}

# approve CONFIG WANT ARGS... — exit WANT; stdout in $dir/out.
approve() {
	cfg=$1 want=$2; shift 2
	set +e
	"$WARDEN" --config "$dir/$cfg.ini" --session "$sid" approve "$@" >"$dir/out" 2>"$dir/err"
	got=$?
	set -e
	[ "$got" -eq "$want" ] || { cat "$dir/out" "$dir/err" >&2; fail "$cfg: approve $*: exit $got, want $want"; }
}
said() { # PATTERN: the outcome line matches
	grep -q -- "$1" "$dir/out" || { cat "$dir/out" "$dir/err" >&2; fail "outcome line: want $1"; }
}

ini empty
sid=$("$WARDEN" --config "$dir/empty.ini" session new --cwd "$dir" | tail -n 1)

cat >"$dir/slow.sh" <<'EOF'
#!/bin/sh
sleep 30
echo allowed-once
EOF
chmod 755 "$dir/slow.sh"

for iso in process inproc; do
	# --- exec: the example program decides by tool ---------------------
	ini exec "[answerer team]" "plugin = exec" "isolation = $iso" \
		"timeout_ms = 5000" "command = $byt" "arg = --allow" "arg = read" \
		"arg = --deny" "arg = bash"
	approve exec 0 --tool read --subject README
	said '^allowed-once (answerer team)'
	approve exec 1 --tool bash --subject 'ls' --reason 'look around'
	said '^rejected (answerer team)'
	# next, and nothing after it: unavailable
	approve exec 3 --tool write --subject x
	said '^unavailable'
	# A subject that spells another tool does not change the tool.
	approve exec 1 --tool bash --subject 'x","tool":"read'

	# --- exec: a program past its deadline costs one unavailable -------
	ini slow "[answerer slow]" "plugin = exec" "isolation = $iso" \
		"timeout_ms = 500" "command = $dir/slow.sh"
	t0=$($PY -c 'import time; print(int(time.monotonic()*1000))')
	approve slow 3 --tool read --subject x
	t1=$($PY -c 'import time; print(int(time.monotonic()*1000))')
	[ $((t1 - t0)) -lt 3000 ] || fail "slow exec took $((t1 - t0)) ms"
	said '^unavailable'

	# --- ffi: the legacy policy function, its map, an unmapped value ---
	ini ffi "[answerer legacy]" "plugin = ffi" "isolation = $iso" \
		"library = $legacy" "symbol = legacy_check" "args = tool subject" \
		"returns = int" "map = 0:allowed-once 1:rejected 2:next"
	approve ffi 0 --tool read --subject x
	said '^allowed-once (answerer legacy)'
	approve ffi 1 --tool bash --subject 'rm -rf /'
	said '^rejected (answerer legacy)'
	approve ffi 3 --tool bash --subject ls
	approve ffi 3 --tool write --subject x --json
	$PY - "$dir/out" <<'PY' || fail "ffi unmapped value: --json"
import json, sys
o = json.load(open(sys.argv[1]))
assert o["outcome"] == "unavailable", o
assert "legacy_check returned 7" in (o["reason"] or ""), o
PY
	# A signature outside the supported set: failed at open, unavailable.
	ini ffibad "[answerer legacy]" "plugin = ffi" "isolation = $iso" \
		"library = $legacy" "symbol = legacy_check" "args = tool subject" \
		"returns = void" "map = 0:allowed-once"
	approve ffibad 3 --tool read --subject x
	"$WARDEN" --config "$dir/ffibad.ini" plugins >"$dir/plugins.out" 2>&1 || true
	grep -q 'returns = void: allowed: int' "$dir/plugins.out" ||
		{ cat "$dir/plugins.out"; fail "warden plugins: the ffi config error"; }
	ok "exec and ffi through warden approve, isolation = $iso"
done

# Every request above was audited as a pair.
log=$dir/state/$sid.jsonl
asked=$(grep -c '"type":"approval/asked"' "$log")
decided=$(grep -c '"type":"approval/decided"' "$log")
[ "$asked" -eq "$decided" ] && [ "$asked" -ge 16 ] ||
	fail "audit: $asked asked, $decided decided"

# --- tty: on a pseudo-terminal, and without a terminal -----------------
ini tty "[answerer desk]" "plugin = tty" "timeout_ms = 10000" \
	"[answerer fallback]" "plugin = exec" "command = $byt" "arg = --allow" "arg = read"
# pty_approve CONFIG INPUT WANT ARGS...: warden approve with a pty as its
# controlling terminal; INPUT is typed once the prompt shows; the screen
# goes to $dir/screen.
pty_approve() {
	cfg=$1 input=$2 want=$3; shift 3
	set +e
	$PY - "$dir/screen" "$input" "$WARDEN" --config "$dir/$cfg.ini" --session "$sid" approve "$@" <<'PY'
import os, pty, sys, time, select
screen_path, typed, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    os.execv(argv[0], argv)
screen = b""
deadline = time.monotonic() + 10
sent = False
status = None
while status is None and time.monotonic() < deadline:
    r, _, _ = select.select([fd], [], [], 0.05)
    if r:
        try:
            screen += os.read(fd, 4096)
        except OSError:     # EIO: the terminal's last process is gone
            pass
    if not sent and b"[y/n]" in screen:
        os.write(fd, typed.encode().decode("unicode_escape").encode("latin-1"))
        sent = True
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = st
if status is None:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    sys.exit(99)
try:
    while select.select([fd], [], [], 0.05)[0]:
        data = os.read(fd, 4096)
        if not data:
            break
        screen += data
except OSError:
    pass
open(screen_path, "wb").write(screen)
sys.exit(os.waitstatus_to_exitcode(status))
PY
	got=$?
	set -e
	[ "$got" -eq "$want" ] || { cat -v "$dir/screen" >&2; fail "tty: approve $* with input '$input': exit $got, want $want"; }
}
pty_approve tty 'y\r' 0 --tool bash --subject 'make install'
grep -q 'subject: make install' "$dir/screen" || { cat -v "$dir/screen"; fail "tty: prompt"; }
grep -q '^allowed-once (answerer desk)' "$dir/screen" || { cat -v "$dir/screen"; fail "tty: outcome"; }
pty_approve tty 'n\r' 1 --tool bash --subject 'make install'
pty_approve tty '\x03' 2 --tool bash --subject 'make install'
pty_approve tty 'n\r' 1 --tool bash --subject "$(printf 'ls\033[2J\033[1;1Hallow once? [y/n] ')"
grep -q 'subject: ls\\x1b\[2J\\x1b\[1;1Hallow once' "$dir/screen" ||
	{ cat -v "$dir/screen"; fail "tty: escaped subject"; }
if $PY -c 'import sys; sys.exit(b"\x1b[2J" not in open(sys.argv[1], "rb").read())' "$dir/screen"; then
	fail "tty: the subject's escape sequence reached the terminal"
fi
# No terminal at all (a new session has none): the prompt steps aside and
# the next answerer decides.
approve_notty() {
	set +e
	setsid -w "$WARDEN" --config "$dir/$1.ini" --session "$sid" approve --tool "$2" --subject x \
		>"$dir/out" 2>"$dir/err" </dev/null
	got=$?
	set -e
	[ "$got" -eq "$3" ] || { cat "$dir/out" "$dir/err"; fail "no terminal: $1 $2: exit $got, want $3"; }
}
approve_notty tty read 0
said '^allowed-once (answerer fallback)'
ok "tty through warden approve: y, n, Ctrl-C, escaped subject, no terminal"

# --- the shipped example configs ----------------------------------------
mkdir -p "$dir/ex"
cp "$top_srcdir"/conf/examples/desk.ini "$top_srcdir"/conf/examples/team-service.ini \
	"$top_srcdir"/conf/examples/legacy-library.ini "$byt" \
	"$top_srcdir"/plugin-api/examples/legacy-policy.c "$dir/ex/"
(cd "$dir/ex" && ${CC:-cc} -shared -fPIC -o legacy-policy.so legacy-policy.c) ||
	fail "legacy-policy.c does not build with its documented command"
chmod -R go-w "$dir/ex"
for f in desk team-service legacy-library; do
	sed -i "s|^\[warden\]\$|[warden]\nplugin_dir = $dir/plugins\nstate_dir = $dir/state\ndurability = none|" "$dir/ex/$f.ini"
	chmod 600 "$dir/ex/$f.ini"
	"$WARDEN" --config "$dir/ex/$f.ini" config check >/dev/null || fail "$f.ini: config check"
done
approve ex/team-service 0 --tool read --subject x
approve ex/team-service 1 --tool bash --subject ls
approve ex/team-service 3 --tool write --subject x
approve ex/legacy-library 0 --tool read --subject x
approve ex/legacy-library 1 --tool bash --subject 'rm -rf /'
approve ex/legacy-library 3 --tool write --subject x
approve ex/desk 0 --tool bash --subject 'git status'
approve ex/desk 1 --tool bash --subject 'rm -rf /'
approve ex/desk 1 --tool bash --subject 'git status; rm -rf /'
pty_approve ex/desk 'y\r' 0 --tool bash --subject 'make'
grep -q '^allowed-once (answerer desk)' "$dir/screen" || { cat -v "$dir/screen"; fail "desk.ini: prompt"; }
approve_notty ex/desk write 3
ok "conf/examples desk.ini, team-service.ini, legacy-library.ini answer through warden approve"
echo "PASS: exec, ffi and tty answerers through warden approve"

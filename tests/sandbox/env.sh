#!/bin/sh
# env.sh — the caller's environment cannot run code outside the sandbox.
# LD_PRELOAD, LD_AUDIT and LD_LIBRARY_PATH set by the caller of the
# confined argv must not load anything into the runner (bwrap through its
# static launcher, the static Landlock runner) before it confines; only
# the confined command may load them, and it gets them unchanged.
# BASH_ENV is read only by a bash inside the sandbox.  The runners are
# named by absolute path, never looked up in PATH.
#
# mark.so (tests/sandbox/mark.c) appends "exe=PROGRAM" to
# $WARDEN_MARK_OUTSIDE (outside the root: only an escape can write it)
# and $WARDEN_MARK_INSIDE (inside the root) from its constructor.
. "$top_srcdir/tests/sandbox/lib.sh"

MARK=$top_builddir/tests/sandbox/.libs/mark.so
need "$MARK" /bin/bash
OUT_MARK=$T/outside/mark
IN_MARK=$WS/mark

cat >"$T/exec.py" <<'PY'
import json, os, sys
a = json.load(open(sys.argv[1]))["argv"]
os.execv(a[0], a)
PY
# spawn.py JSON NAME=VALUE...: exec the confined argv with these variables
# added to its environment only (the spawner never loads them itself).
cat >"$T/spawn.py" <<'PY'
import json, os, sys
a = json.load(open(sys.argv[1]))["argv"]
env = dict(os.environ)
env.update(kv.split("=", 1) for kv in sys.argv[2:])
os.execve(a[0], a, env)
PY

# is_static FILE: an ELF file without a PT_INTERP program header.
is_static() {
	"$PY" - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
assert d[:4] == b"\x7fELF" and d[4] == 2, "not a 64-bit ELF file"
phoff, = struct.unpack_from("<Q", d, 0x20)
phentsize, phnum = struct.unpack_from("<HH", d, 0x36)
interp = any(struct.unpack_from("<I", d, phoff + i * phentsize)[0] == 3
             for i in range(phnum))
sys.exit(1 if interp else 0)
PY
}

echo "---- the runners are static; bwrap is not"
for f in "$RUNNER" "$LAUNCHER"; do
	if is_static "$f"; then
		ok "$(basename "$f") is linked statically: the loader's variables never reach it"
	else
		fail "$(basename "$f") is dynamic: LD_PRELOAD would run in it before it confines (configure found no static libc?)"
	fi
done
is_static /usr/bin/bwrap &&
	fail "/usr/bin/bwrap is static here: the launcher case below proves less than it says"

echo "---- control: the library and BASH_ENV do run code when nothing confines"
rm -f "$OUT_MARK"
WARDEN_MARK_OUTSIDE=$OUT_MARK LD_PRELOAD=$MARK /bin/true
grep -qx "exe=/usr/bin/true" "$OUT_MARK" 2>/dev/null ||
	fail "control: LD_PRELOAD of mark.so did not mark: the cases below would prove nothing"
rm -f "$OUT_MARK"
WARDEN_MARK_OUTSIDE=$OUT_MARK LD_AUDIT=$MARK /bin/true
[ -s "$OUT_MARK" ] || fail "control: LD_AUDIT of mark.so did not mark"
rm -f "$OUT_MARK"
printf 'echo bash_env >> %s\n' "$OUT_MARK" >"$T/bash_env"
BASH_ENV=$T/bash_env /bin/bash -c true
grep -qx bash_env "$OUT_MARK" 2>/dev/null || fail "control: BASH_ENV was not read"
rm -f "$OUT_MARK"
ok "controls: mark.so and BASH_ENV run code unconfined"

for b in bwrap landlock; do
for m in read-only workspace-write; do
	echo "---- $b $m"
	reset_outside
	remember_outside
	rm -f "$IN_MARK"
	w confine --backend $b --mode $m --root "$WS" --json -- /usr/bin/true >"$T/c.json" ||
		{ fail "$b $m: confine failed"; continue; }
	cp "$T/c.json" "$T/c-true.json"
	for var in LD_PRELOAD LD_AUDIT; do
		rm -f "$IN_MARK"
		"$PY" "$T/spawn.py" "$T/c.json" "$var=$MARK" LD_LIBRARY_PATH=/nonexistent \
			"WARDEN_MARK_OUTSIDE=$OUT_MARK" "WARDEN_MARK_INSIDE=$IN_MARK" 2>"$T/err" ||
			fail "$b $m: $var: the confined true failed: $(cat "$T/err")"
		if [ -e "$OUT_MARK" ]; then
			fail "$b $m: $var: code ran outside the sandbox: $(cat "$OUT_MARK")"
		else
			ok "$b $m: $var given to the runner ran nothing outside the sandbox"
		fi
		assert_outside_unchanged "$b $m: $var"
		if [ $m = workspace-write ]; then
			# Who loaded it: only the command, inside.
			loaders=$(sort -u "$IN_MARK" 2>/dev/null | tr '\n' ' ')
			if [ "$loaders" = "exe=/usr/bin/true " ]; then
				ok "$b $m: $var: only the confined command loaded it (it got $var unchanged)"
			else
				fail "$b $m: $var: loaded by '$loaders', want only the command (exe=/usr/bin/true)"
			fi
		fi
	done

	# The environment reaches the command unchanged (moved, not dropped).
	w confine --backend $b --mode $m --root "$WS" --json -- /bin/sh -c \
		'printf "%s|%s|%s\n" "$LD_LIBRARY_PATH" "$GCONV_PATH" "$WARDEN_PLAIN"' >"$T/c.json"
	got=$(LD_LIBRARY_PATH=/nonexistent/lib GCONV_PATH=/nonexistent/gconv WARDEN_PLAIN=x \
		"$PY" "$T/exec.py" "$T/c.json")
	[ "$got" = "/nonexistent/lib|/nonexistent/gconv|x" ] &&
		ok "$b $m: the command's environment is the caller's" ||
		fail "$b $m: the command saw '$got'"

	# BASH_ENV: only a bash inside the sandbox reads it.
	w confine --backend $b --mode $m --root "$WS" --json -- /bin/bash -c 'echo ran' >"$T/c.json"
	got=$(BASH_ENV=$T/bash_env "$PY" "$T/exec.py" "$T/c.json" 2>/dev/null)
	[ "$got" = ran ] || fail "$b $m: bash -c did not run: '$got'"
	assert_outside_unchanged "$b $m: BASH_ENV"

	# The runner is named by absolute path: a PATH that leads into the
	# workspace changes nothing.
	mkdir -p "$WS/bin"
	for f in bwrap warden-bwrap-exec warden-landlock-run; do
		printf '#!/bin/sh\necho hijacked > %s\n' "$OUT_MARK" >"$WS/bin/$f"
		chmod +x "$WS/bin/$f"
	done
	PATH=$WS/bin:$PATH w confine --backend $b --mode $m --root "$WS" --json -- /usr/bin/true >"$T/c2.json"
	first=$(json_get "$T/c2.json" argv | head -n 1)
	case $b in
	bwrap) want=$LAUNCHER ;;
	landlock) want=$RUNNER ;;
	esac
	[ "$first" = "$want" ] && [ "$(json_get "$T/c2.json" argv)" = "$(json_get "$T/c-true.json" argv)" ] &&
		ok "$b $m: the runner is $want whatever PATH says" ||
		fail "$b $m: the runner is '$first' with PATH into the workspace"
	if [ $b = bwrap ]; then
		# bwrap follows the launcher and its own options (--netguard KIND,
		# --lock ROOT, --lock-fd N, --unpin ROOT REL, --pin-text ROOT REL
		# TEXT).
		[ "$(json_get "$T/c2.json" argv | awk 'NR == 1 { next }
			$0 == "--unpin" { skip = 2; next } $0 == "--pin-text" { skip = 3; next }
			$0 == "--netguard" || $0 == "--lock" || $0 == "--lock-fd" { skip = 1; next }
			skip > 0 { skip--; next }
			{ print; exit }')" = /usr/bin/bwrap ] ||
			fail "$b $m: bwrap is not /usr/bin/bwrap with PATH into the workspace"
	fi
	PATH=$WS/bin:$PATH "$PY" "$T/exec.py" "$T/c2.json"
	[ -e "$OUT_MARK" ] && fail "$b $m: a program from the workspace PATH ran: $(cat "$OUT_MARK")"
	rm -rf "$WS/bin" "$IN_MARK"
	assert_outside_unchanged "$b $m: PATH into the workspace"
done
done

echo "---- the launcher moves every loader variable, and only those"
cat >"$T/show" <<'EOF'
#!/bin/sh
printf 'arg:%s\n' "$@"
env | grep -E '^(LD_|GCONV_PATH|GLIBC_TUNABLES|TMPDIR|WARDEN_PLAIN)' | sort | sed 's/^/env:/'
EOF
chmod +x "$T/show"
got=$(env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH=/a LD_AUDIT=/b GLIBC_TUNABLES=c TMPDIR=/t \
	WARDEN_PLAIN='p q' "$LAUNCHER" "$T/show" x -- 'y z')
want=$(printf 'arg:%s\n' --setenv LD_LIBRARY_PATH /a --setenv LD_AUDIT /b \
	--setenv GLIBC_TUNABLES c --setenv TMPDIR /t x -- 'y z'; echo 'env:WARDEN_PLAIN=p q')
[ "$got" = "$want" ] && ok "launcher: LD_*, GLIBC_TUNABLES, TMPDIR moved to --setenv; the rest kept" ||
	fail "launcher: got
$got
want
$want"
got=$(exec 5</dev/null 6</dev/null 9</dev/null; "$LAUNCHER" /bin/ls /proc/self/fd | tr '\n' ' ')
[ "$got" = "0 1 2 3 " ] && ok "launcher: no descriptor above 2 reaches bwrap (ls sees only its own 3)" ||
	fail "launcher: descriptors reached bwrap: $got"
# The shell lists its own table by a glob, with no child: `ls | tr` raced
# with the shell, which holds the pipe's ends for a moment.  The glob's
# directory handle is the lowest free descriptor, 3.
printf '#!/bin/sh\nfor f in /proc/$$/fd/*; do printf "%%s " "${f##*/}"; done\n' >"$T/fds"
chmod +x "$T/fds"
got=$(exec 5</dev/null 6</dev/null 9</dev/null; "$LAUNCHER" "$T/fds" --json-status-fd 6 -- x)
case $got in
"0 1 2 3 6 "|"0 1 10 2 3 6 ") ok "launcher: only the --json-status-fd descriptor is kept ($got)" ;;
*) fail "launcher with --json-status-fd 6: descriptors $got" ;;
esac
"$LAUNCHER" /bin/true --json-status-fd 2 2>"$T/err"
rc=$?
[ $rc -eq 125 ] && grep -qx "warden-bwrap-exec: fatal: arguments: --json-status-fd '2' is not a descriptor above 2" "$T/err" &&
	ok "launcher: a bad --json-status-fd is one fatal line, exit 125" ||
	fail "launcher --json-status-fd 2: exit $rc: $(cat "$T/err")"
"$LAUNCHER" relative 2>"$T/err"
rc=$?
[ $rc -eq 125 ] && grep -qx "warden-bwrap-exec: fatal: arguments: 'relative' is not an absolute path" "$T/err" &&
	ok "launcher: a relative program is one fatal line, exit 125" ||
	fail "launcher relative: exit $rc: $(cat "$T/err")"
"$LAUNCHER" "$T/no-such" 2>"$T/err"
rc=$?
[ $rc -eq 125 ] && grep -qx "warden-bwrap-exec: fatal: exec: $T/no-such: No such file or directory" "$T/err" &&
	ok "launcher: a missing program is one fatal line, exit 125" ||
	fail "launcher missing program: exit $rc: $(cat "$T/err")"

finish

#!/bin/sh
# nameservice.sh — a restricted network and what the C library asks of
# its own accord.  A shell started without HOME or SHELL calls getpwuid(),
# which first tries the name-service cache's socket (/var/run/nscd/socket);
# a CI machine runs commands that way.  On both backends:
#   - with no cache on the machine, the connect finds nothing (ENOENT, as
#     without a sandbox) and nothing is said: a failing command is
#     "failed", not a network denial, and a succeeding one is "ok";
#   - with a cache listening (a real unix server on /run/nscd/socket, in a
#     mount namespace of this test's own, a tmpfs over /run), the connect
#     is refused, the server is never reached, and still nothing is said
#     (the library does without it); the same socket asked for by name is
#     refused too;
#   - a name that leads to nothing or to no socket gets what connect()
#     says there (ENOENT, ECONNREFUSED), unsaid; a host socket is refused
#     and said; a relative name is resolved from the caller's directory
#     under bwrap and refused under Landlock.
. "${top_srcdir:?run by make check}/tests/run/lib.sh"

PROBE=$top_builddir/tests/run/gate-probe
[ -x "$PROBE" ] || { echo "FAIL: $PROBE was not built"; exit 1; }
SOCKDIR=$(mktemp -d /var/tmp/warden-ns-XXXXXX)
chmod 755 "$SOCKDIR"
net_servers "$T/net" "$SOCKDIR"
OTHER=$(sed -n 's/^unix //p' "$T/net/addresses")
echo plain >"$T/ws/plain-file"
SAID="refused by the restricted network"

line() { grep -F "$1: " "$T/out" | head -n 1; }
# says WHAT ACTION ENDING: the probe's line for ACTION ends with ENDING.
says() {
	case $(line "$2") in
	*"$3") ok "$1" ;;
	*) fail "$1: $(line "$2")" ;;
	esac
}
said_nothing() {
	if grep -qF "$SAID" "$T/err"; then
		fail "$1: a refusal was said: $(grep -F "$SAID" "$T/err" | head -n 2)"
	else
		ok "$1: no refusal said"
	fi
}

ALLOWED=$(sed -n 's/^allowed //p' "$T/net/addresses")
# c: the default config, no socket listed (under Landlock the command then
# gets no unix socket at all); g: one listed, so both backends gate.
for b in bwrap landlock; do
	for mode in read-only workspace-write; do
		config "ns-c-$b-$mode" "$mode" "$b"
		EXTRA="allow_unix_socket = $ALLOWED" config "ns-g-$b-$mode" "$mode" "$b"
		for c in c g; do
			w="$b $mode ($c)"
			# Without HOME and SHELL, as on a CI machine.
			(cd "$T/ws" && env -u HOME -u SHELL "$WARDEN" --config "$T/ns-$c-$b-$mode.ini" \
				run --json -c 'exit 3') >"$T/out" 2>"$T/err" </dev/null
			rc=$?
			expect "$w: no HOME, no SHELL: a failing command is failed" 3 \
				class=failed network_denied=False
			said_nothing "$w: no HOME, no SHELL"
			(cd "$T/ws" && env -u HOME -u SHELL "$WARDEN" --config "$T/ns-$c-$b-$mode.ini" \
				run --json -c 'echo ~') >"$T/out" 2>"$T/err" </dev/null
			rc=$?
			expect "$w: no HOME: ~ is looked up" 0 class=ok
			said_nothing "$w: no HOME: ~ looked up"
		done

		w="$b $mode"
		wr "ns-g-$b-$mode" run -- "$PROBE" "connect:$T/ws/no-such.sock" \
			"connect:$T/ws/no-such-dir/x.sock" "connect:$T/ws/plain-file" \
			"connect:$OTHER" "connect:no-such-rel.sock"
		says "$w: a name that leads nowhere: ENOENT" "connect:$T/ws/no-such.sock" \
			"refused: No such file or directory"
		says "$w: a name under no directory: ENOENT" "connect:$T/ws/no-such-dir/x.sock" \
			"refused: No such file or directory"
		says "$w: a file that is no socket: ECONNREFUSED" "connect:$T/ws/plain-file" \
			"refused: Connection refused"
		says "$w: a host socket: EACCES" "connect:$OTHER" "refused: Permission denied"
		# A relative name: resolved from the caller's directory under
		# bwrap (the supervisor's /proc is the sandbox's); refused under
		# Landlock, whose supervisor sees the host's /proc.
		if [ "$b" = bwrap ]; then
			says "$w: a relative name that leads nowhere: ENOENT" \
				"connect:no-such-rel.sock" "refused: No such file or directory"
		else
			says "$w: a relative name: refused" "connect:no-such-rel.sock" \
				"refused: Permission denied"
		fi
		n=$(grep -cF "$SAID" "$T/err")
		want=1
		[ "$b" = landlock ] && want=2
		if [ "$n" -eq "$want" ] && grep -qF "connect to $OTHER $SAID" "$T/err"; then
			ok "$w: the host socket's refusal is said, and nothing that leads nowhere"
		else
			fail "$w: $n refusal line(s), want $want: $(cat "$T/err")"
		fi
		[ ! -e "$T/net/markers/unix" ] && ok "$w: the host socket's server was not reached" ||
			fail "$w: the host socket's server was reached"
	done
done

# A name-service cache listening on the machine.  Only root can lay a
# tmpfs over /run in a mount namespace of its own without touching the
# host's /run; CI runs as root.
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP (name-service cache part): needs root, to lay a tmpfs over /run in a mount namespace of its own (CI runs it as root)"
	finish
fi
if ! command -v unshare >/dev/null 2>&1; then
	fail "the name-service cache part needs unshare(1) (util-linux)"
	finish
fi
pre=$(ls -A /run | tr '\n' ' ')
cat >"$T/cache.sh" <<EOF
set -u
mount -t tmpfs -o mode=755 warden-test /run || { echo "FAIL: no tmpfs over /run"; exit 1; }
mkdir -p /run/nscd
"$PY" -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind("/run/nscd/socket")
os.chmod("/run/nscd/socket", 0o666)
s.listen(8)
open(sys.argv[1] + ".ready", "w").close()
while True:
    c, _ = s.accept()
    open(sys.argv[1], "w").write("contacted\n")
    c.close()
' "$T/cache-marker" &
pid=\$!
i=0
while [ ! -e "$T/cache-marker.ready" ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done
[ -S /run/nscd/socket ] || { echo "FAIL: the cache's socket is not listening"; kill \$pid; exit 1; }
for b in bwrap landlock; do
	cd "$T/ws"
	env -u HOME -u SHELL "$WARDEN" --config "$T/ns-g-\$b-workspace-write.ini" run --json -c 'exit 3' \
		>"$T/cache-\$b.out" 2>"$T/cache-\$b.err" </dev/null
	echo \$? >"$T/cache-\$b.rc"
	"$WARDEN" --config "$T/ns-g-\$b-workspace-write.ini" run -- "$PROBE" connect:/var/run/nscd/socket \
		>"$T/cache-\$b.probe" 2>"$T/cache-\$b.probe-err" </dev/null
done
kill \$pid
wait \$pid 2>/dev/null
exit 0
EOF
unshare -m sh "$T/cache.sh" >"$T/cache.log" 2>&1 || fail "the cache namespace: $(cat "$T/cache.log")"
grep '^FAIL' "$T/cache.log" && failures=$((failures + 1))
for b in bwrap landlock; do
	[ -e "$T/cache-$b.rc" ] || { fail "$b: the cache run did not happen: $(cat "$T/cache.log")"; continue; }
	cp "$T/cache-$b.out" "$T/out"
	cp "$T/cache-$b.err" "$T/err"
	rc=$(cat "$T/cache-$b.rc")
	expect "$b: a cache listening, no HOME: a failing command is failed" 3 \
		class=failed network_denied=False
	said_nothing "$b: a cache listening"
	case $(cat "$T/cache-$b.probe") in
	*"refused: Permission denied") ok "$b: the cache's socket asked for by name: refused" ;;
	*) fail "$b: the cache's socket asked for by name: $(cat "$T/cache-$b.probe")" ;;
	esac
done
[ ! -e "$T/cache-marker" ] && ok "the cache's server was never reached" ||
	fail "the cache's server was reached"
post=$(ls -A /run | tr '\n' ' ')
[ "$pre" = "$post" ] && ok "the host's /run is as it was" ||
	fail "the host's /run changed: '$pre' then '$post'"
finish

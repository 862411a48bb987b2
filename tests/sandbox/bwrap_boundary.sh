#!/bin/sh
# bwrap_boundary.sh — the detours around the bubblewrap boundary, each
# tried from inside a real `warden run` (real bwrap, as root, both
# confining modes), then checked on the host itself:
#   - host IPC: SysV shared memory, semaphores and message queues and POSIX
#     message queues made inside exist only inside, and the host's are not
#     reachable from inside;
#   - the command dies with warden: SIGKILL of `warden run` leaves nothing
#     running and nothing written afterwards;
#   - the launcher keeps exactly the descriptors bwrap's options name.
. "$top_srcdir/tests/run/lib.sh"

LAUNCHER=$top_builddir/plugins/bwrap/warden-bwrap-exec
WS=$T/ws
config bw-ro read-only bwrap
config bw-ww workspace-write bwrap

# The IPC probe: python3 through ctypes, no module beyond the standard
# library.  `ipc.py make NAME KEY` creates a POSIX queue NAME and SysV
# shared memory, a semaphore set and a message queue under KEY and prints
# what it made; `ipc.py find NAME KEY` prints which of them it can see.
cat >"$T/ipc.py" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL("libc.so.6", use_errno=True)
libc.mq_open.restype = ctypes.c_int
IPC_CREAT, IPC_EXCL, O_CREAT, O_RDWR = 0o1000, 0o2000, 0o100, 0o2
act, name, key = sys.argv[1], sys.argv[2].encode(), int(sys.argv[3])
out = []
if act == "make":
    fl = IPC_CREAT | IPC_EXCL | 0o600
    if libc.mq_open(name, O_CREAT | O_RDWR | 0o200, 0o600, None) >= 0: out.append("mq")
    if libc.shmget(key, 4096, fl) >= 0: out.append("shm")
    if libc.semget(key, 1, fl) >= 0: out.append("sem")
    if libc.msgget(key, fl) >= 0: out.append("msg")
elif act == "find":
    if libc.mq_open(name, O_RDWR, 0, None) >= 0: out.append("mq")
    if libc.shmget(key, 0, 0) >= 0: out.append("shm")
    if libc.semget(key, 0, 0) >= 0: out.append("sem")
    if libc.msgget(key, 0) >= 0: out.append("msg")
elif act == "remove":
    libc.mq_unlink(name)
    i = libc.shmget(key, 0, 0)
    if i >= 0: libc.shmctl(i, 0, None)
    i = libc.semget(key, 0, 0)
    if i >= 0: libc.semctl(i, 0, 0)
    i = libc.msgget(key, 0)
    if i >= 0: libc.msgctl(i, 0, None)
print(" ".join(out) or "none")
PY

echo "---- host IPC stays out of the sandbox"
Q=/warden-test-$$
K=$((0x57a00000 + $$))
HQ=/warden-host-$$
HK=$((0x57b00000 + $$))
"$PY" "$T/ipc.py" remove "$Q" $K >/dev/null
# The control: unconfined, the same calls reach the host (the test can
# fail), and the host's own objects for the second half.
got=$("$PY" "$T/ipc.py" make "$HQ" $HK)
[ "$got" = "mq shm sem msg" ] ||
	fail "control: python3 could not create the host's IPC objects: '$got'"
for c in bw-ro bw-ww; do
	wr $c run -- "$PY" "$T/ipc.py" make "$Q" $K
	[ "$rc" = 0 ] && [ "$(cat "$T/out")" = "mq shm sem msg" ] &&
		ok "$c: inside, the command makes its own IPC objects" ||
		fail "$c: ipc make inside: exit $rc: $(cat "$T/out" "$T/err")"
	got=$("$PY" "$T/ipc.py" find "$Q" $K)
	if [ "$got" = none ]; then
		ok "$c: the host has none of them afterwards"
	else
		fail "$c: the host sees what a confined command made: $got"
		"$PY" "$T/ipc.py" remove "$Q" $K >/dev/null
	fi
	wr $c run -- "$PY" "$T/ipc.py" find "$HQ" $HK
	[ "$(cat "$T/out")" = none ] &&
		ok "$c: the host's queue, shared memory, semaphores and message queue are out of reach" ||
		fail "$c: the command reached the host's IPC objects: $(cat "$T/out" "$T/err")"
	wr $c run -- "$PY" "$T/ipc.py" remove "$HQ" $HK
	[ "$("$PY" "$T/ipc.py" find "$HQ" $HK)" = "mq shm sem msg" ] &&
		ok "$c: the host's IPC objects survive a removal from inside" ||
		fail "$c: a confined command removed the host's IPC objects"
done
"$PY" "$T/ipc.py" remove "$HQ" $HK >/dev/null
ipcs_left=$(ipcs 2>/dev/null | grep -ci "$(printf '0x%08x' $K)")
[ "$ipcs_left" = 0 ] || fail "ipcs still lists key $K"

echo "---- the command dies with warden (SIGKILL of warden run)"
for c in bw-ro bw-ww; do
	n=$((TAG * 10 + 7))
	rm -f "$T/started" "$T/late"
	# The command reports through a pipe (read-only mode cannot write a
	# file), then would write the marker after a sleep, through warden's
	# stdout, which is the file $T/late.
	mkfifo "$T/fifo"
	(cd "$WS" && exec "$WARDEN" --config "$T/$c.ini" run -c \
		"echo started > $T/fifo; sleep $n; echo late") \
		>"$T/late" 2>"$T/err" </dev/null &
	wpid=$!
	line=$(timeout 30 cat "$T/fifo")
	rm -f "$T/fifo"
	[ "$line" = started ] || fail "$c: the command did not start: '$line'"
	kill -KILL $wpid
	wait $wpid 2>/dev/null
	i=0
	while [ -n "$(leftovers "sleep $n")" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	left=$(leftovers "sleep $n")
	[ -z "$left" ] && ok "$c: nothing of the command is left after SIGKILL of warden" ||
		fail "$c: left behind after SIGKILL of warden: $left"
	TAG=$((TAG + 1))
done
# Nothing written after: the command's stdout was the file itself.
[ ! -s "$T/late" ] && ok "the command wrote nothing after warden died" ||
	fail "the command went on after warden died: $(cat "$T/late")"

echo "---- the launcher keeps the descriptors bwrap's options name, and only those"
printf '#!/bin/sh\nfor f in /proc/$$/fd/*; do printf "%%s " "${f##*/}"; done\n' >"$T/fds"
chmod +x "$T/fds"
got=$(exec 5</dev/null 6</dev/null 7</dev/null 9</dev/null; "$LAUNCHER" "$T/fds" \
	--bind-fd 5 /x --ro-bind /a /b --ro-bind-fd 7 /y --json-status-fd 9 -- x)
case $got in
"0 1 2 3 5 7 9 "|"0 1 10 2 3 5 7 9 ") ok "launcher: keeps 5, 7, 9 and closes 6 ($got)" ;;
*) fail "launcher with --bind-fd 5 --ro-bind-fd 7 --json-status-fd 9: descriptors $got" ;;
esac
# A path that looks like an option is an argument, not an option.
got=$(exec 5</dev/null 6</dev/null; "$LAUNCHER" "$T/fds" --bind /a --bind-fd -- x)
case $got in
"0 1 2 3 "|"0 1 10 2 3 ") ok "launcher: an argument spelt like an option keeps nothing ($got)" ;;
*) fail "launcher: --bind /a --bind-fd: descriptors $got" ;;
esac
got=$("$LAUNCHER" "$T/fds" --ro-bind-data null /a --file null /b -- x)
case $got in
"0 1 2 3 4 5 "|"0 1 10 2 3 4 5 ") ok "launcher: each 'null' data argument is a fresh /dev/null descriptor ($got)" ;;
*) fail "launcher: --ro-bind-data null: descriptors $got" ;;
esac
printf '#!/bin/sh\nprintf "%%s|" "$@"\n' >"$T/args"
chmod +x "$T/args"
got=$(env -i "$LAUNCHER" "$T/args" --ro-bind-data null /a -- x)
case $got in
--ro-bind-data\|[0-9]*\|/a\|--\|x\|) ok "launcher: 'null' is replaced by a descriptor number ($got)" ;;
*) fail "launcher: --ro-bind-data null became: $got" ;;
esac
"$LAUNCHER" /bin/true --frobnicate 3 -- x 2>"$T/err"
rc=$?
[ $rc -eq 125 ] && grep -qx "warden-bwrap-exec: fatal: arguments: unknown bwrap option '--frobnicate': refusing to guess which descriptors it needs" "$T/err" &&
	ok "launcher: an unknown option is refused, exit 125" ||
	fail "launcher --frobnicate: exit $rc: $(cat "$T/err")"
"$LAUNCHER" /bin/true --bind-fd 8 /x -- x 2>"$T/err"
rc=$?
[ $rc -eq 125 ] && grep -qx "warden-bwrap-exec: fatal: arguments: descriptor 8 is not open" "$T/err" &&
	ok "launcher: a named descriptor that is not open is refused, exit 125" ||
	fail "launcher --bind-fd 8 (closed): exit $rc: $(cat "$T/err")"

finish

#!/bin/sh
# gate.sh — allow_unix_socket end to end: real servers outside any
# sandbox (tests/run/net-servers.py, each writing a marker when contacted),
# `warden run` of tests/run/gate-probe and net-client.py under a config
# that names one host socket, on both backends, in both confining modes.
# Exactly the named socket is reached; every other route stays shut: other
# pathname sockets, the same socket by another name (a link, a relative
# name, `.` in the path), an abstract socket, a datagram socket, binding a
# socket of its own, an address flipped by another thread while the
# supervisor checks it, the i386 ABI, the supervisor itself (ptrace, its
# memory), a listed name in the workspace or the private /tmp that the
# command points elsewhere during the run (a link in a renamed directory's
# place; a listed name in the workspace is refused outright), listen() on
# a socket the kernel autobound when its connect failed, and a seccomp
# listener of the command's own.  A connect from a second thread is let
# through.  Under bwrap the command's own unix servers answer it (the
# supervisor finds their listeners in its network namespace) and a host's
# in the workspace does not.  The host's state is checked through the
# markers.
. "${top_srcdir:?run by make check}/tests/run/lib.sh"

CLIENT=$top_srcdir/tests/run/net-client.py
PROBE=$top_builddir/tests/run/gate-probe
[ -x "$PROBE" ] || { echo "FAIL: $PROBE was not built"; exit 1; }
SOCKDIR=$(mktemp -d /var/tmp/warden-gate-XXXXXX)
TMPDIR_HOST=$(mktemp -d /tmp/warden-gate-XXXXXX)
chmod 755 "$SOCKDIR" "$TMPDIR_HOST"
net_servers "$T/net" "$SOCKDIR"
# A second named socket under /tmp, which bwrap's workspace-write hides
# behind a private /tmp unless the backend binds it in.
net_servers "$T/net2" "$TMPDIR_HOST"

addr() { sed -n "s/^$1 //p" "$T/net/addresses"; }
ALLOWED=$(addr allowed)
OTHER=$(addr unix)
DGRAM=$(addr unixdgram)
ABSTRACT=$(addr abstract)
TMPALLOWED=$(sed -n 's/^allowed //p' "$T/net2/addresses")
# A listed socket nobody listens on any more: its connect fails.
DEAD=$SOCKDIR/dead.sock
"$PY" -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$DEAD"
[ -S "$DEAD" ] || { echo "FAIL: no socket $DEAD"; exit 1; }
ln -s "$ALLOWED" "$T/ws/link.sock"
REL=$("$PY" -c 'import os, sys; print(os.path.relpath(sys.argv[1], sys.argv[2]))' "$ALLOWED" "$T/ws")
DOT=$(dirname "$ALLOWED")/./allowed.sock

reset_markers() {
	rm -rf "$T/net/markers" "$T/net2/markers"
	mkdir "$T/net/markers" "$T/net2/markers"
}
marker() { [ -e "$T/net/markers/$1" ]; }

# line ACTION: the probe's line for ACTION in $T/out.
line() { grep -F "$1: " "$T/out" | head -n 1; }
reached() {
	case $(line "$2") in
	"$2: reached") ok "$1: $2 reached" ;;
	*) fail "$1: $2: $(line "$2") (stderr: $(head -c 400 "$T/err"))" ;;
	esac
}
refused() {
	case $(line "$2") in
	"$2: refused: "*) ok "$1: $2 refused" ;;
	*) fail "$1: $2 should be refused: $(line "$2") (stderr: $(head -c 400 "$T/err"))" ;;
	esac
}

for b in bwrap landlock; do
	for mode in read-only workspace-write; do
		what="$b $mode"
		EXTRA="allow_unix_socket = $ALLOWED
allow_unix_socket = $TMPALLOWED
allow_unix_socket = $DEAD" config "g-$b-$mode" "$mode" "$b"
		reset_markers
		wr "g-$b-$mode" run -- "$PROBE" "connect:$ALLOWED" "connect:$TMPALLOWED" \
			"connect:$OTHER" "connect:$T/ws/link.sock" "connect:$REL" \
			"connect:$DOT" "abstract:$ABSTRACT" "dgram:$DGRAM" \
			"bind:$T/ws/own.sock" "bindabs:warden-gate-own-$$" \
			"ptrace-parent" "peek-parent" "i386:$ALLOWED" \
			"autobind:$DEAD" "thread:$ALLOWED" own-listener
		[ "$rc" -eq 0 ] && ok "$what: the run succeeded" ||
			fail "$what: rc=$rc: $(cat "$T/err")"
		reached "$what" "connect:$ALLOWED"
		marker allowed && ok "$what: the named socket's server was contacted" ||
			fail "$what: no marker from the named socket"
		reached "$what" "connect:$TMPALLOWED"
		[ -e "$T/net2/markers/allowed" ] &&
			ok "$what: the named socket under /tmp was contacted" ||
			fail "$what: no marker from the named socket under /tmp"
		for a in "connect:$OTHER" "connect:$T/ws/link.sock" "connect:$REL" \
			"connect:$DOT" "abstract:$ABSTRACT" "dgram:$DGRAM" \
			ptrace-parent peek-parent own-listener; do
			refused "$what" "$a"
		done
		# Binding and listening: under bwrap the command's own
		# business (its own abstract namespace; files where its mounts
		# let it write); under Landlock refused (the host's abstract
		# namespace, where a host client could reach it).
		case $b/$mode in
		bwrap/workspace-write)
			reached "$what" "bind:$T/ws/own.sock"
			reached "$what" "bindabs:warden-gate-own-$$"
			reached "$what" "autobind:$DEAD" ;;
		bwrap/read-only)
			grep -q "^bind:$T/ws/own.sock: refused: Read-only file system" "$T/out" &&
				ok "$what: bind in the read-only workspace refused by its mount" ||
				fail "$what: $(line "bind:$T/ws/own.sock")"
			reached "$what" "bindabs:warden-gate-own-$$"
			reached "$what" "autobind:$DEAD" ;;
		*)
			refused "$what" "bind:$T/ws/own.sock"
			refused "$what" "bindabs:warden-gate-own-$$"
			refused "$what" "autobind:$DEAD" ;;
		esac
		# The refusal of listen() is only worth something if the
		# kernel did give the socket a name.
		grep -q '^autobound: @' "$T/out" &&
			ok "$what: autobind: the socket had an abstract name ($(grep '^autobound: ' "$T/out"))" ||
			fail "$what: autobind: $(grep '^autobound: ' "$T/out")"
		case $(line "thread:$ALLOWED") in
		*skipped*) echo "SKIP: $what: $(line "thread:$ALLOWED")" ;;
		*) reached "$what" "thread:$ALLOWED" ;;
		esac
		case $(line "i386:$ALLOWED") in
		*skipped*) echo "SKIP: $what: the i386 ABI (not an x86-64 build)" ;;
		*"int 0x80 faults"*)
			# The filter's i386 branch is checked by tests/test_netguard.
			echo "note: $what: this machine refuses int 0x80 itself: $(line "i386:$ALLOWED")"
			refused "$what" "i386:$ALLOWED" ;;
		*) refused "$what" "i386:$ALLOWED" ;;
		esac
		grep -q "^ptrace-parent: refused: Operation not permitted" "$T/out" &&
			ok "$what: the supervisor cannot be traced" ||
			fail "$what: ptrace: $(line ptrace-parent)"
		grep -q "^peek-parent: refused: Operation not permitted" "$T/out" &&
			ok "$what: the supervisor's memory cannot be read" ||
			fail "$what: peek: $(line peek-parent)"
		for m in unix unixdgram abstract; do
			marker $m && fail "$what: the $m server was contacted" ||
				ok "$what: the $m server was not contacted"
		done

		# The named socket under /tmp pointed at another one during the
		# run (its directory renamed, a link in the socket's place): the
		# host's /tmp is read-only inside, so the rename is refused, and
		# the supervisor connects to the socket the name led to at the
		# start.
		reset_markers
		wr "g-$b-$mode" run -- "$PROBE" "swap:$TMPALLOWED:$OTHER"
		swapped=$(grep '^swapped: ' "$T/out" | head -n 1)
		[ -S "$TMPALLOWED" ] || fail "$what: the host's $TMPALLOWED is gone"
		reached "$what" "swap:$TMPALLOWED:$OTHER"
		case $b-$mode:$swapped in
		# The host's /tmp is read-only in every mode now (only the temp
		# area is writable): the swap itself is refused.
		*:"swapped: no: "*)
			ok "$what: swap: $swapped" ;;
		*) fail "$what: swap: $swapped" ;;
		esac
		[ -e "$T/net2/markers/allowed" ] && ! marker unix &&
			ok "$what: swap: only the socket the name led to at the start was contacted" ||
			fail "$what: swap: markers $(ls "$T/net/markers") / $(ls "$T/net2/markers"): $(cat "$T/out")"

		# The address flipped by another thread between the named
		# socket and another one: only the named one ever answers.
		reset_markers
		wr "g-$b-$mode" run -- "$PROBE" "race:$ALLOWED:$OTHER:2000"
		reached "$what" "race:$ALLOWED:$OTHER:2000"
		marker allowed && ! marker unix &&
			ok "$what: race: only the named socket was contacted ($(grep '^race: ' "$T/out" | head -n 1))" ||
			fail "$what: race: markers $(ls "$T/net/markers") $(cat "$T/out")"
	done
done

# --- IP and the command's own servers under the gate ----------------------
# bwrap: its own network namespace; IP calls are made on the command's
# behalf there, so its own loopback server answers and the host's do not.
EXTRA="allow_unix_socket = $ALLOWED" config g-bwrap-ip workspace-write bwrap
reset_markers
wr g-bwrap-ip run -- "$PY" "$CLIENT" "$T/net/addresses" owntcp ownlisten tcp4 udp4 ownunix pair pipe
for t in owntcp ownunix; do
	grep -q "^$t: reached" "$T/out" && ok "bwrap gate: its own $t server answers" ||
		fail "bwrap gate: $t: $(cat "$T/out") $(cat "$T/err")"
done
grep -q '^ownlisten: reached' "$T/out" &&
	ok "bwrap gate: listen() without bind works in its own namespace" ||
	fail "bwrap gate: ownlisten: $(grep '^ownlisten' "$T/out") $(cat "$T/err")"
for t in tcp4 udp4; do
	grep -q "^$t: refused" "$T/out" && ok "bwrap gate: $t refused" ||
		fail "bwrap gate: $t: $(grep "^$t" "$T/out")"
done
for t in pair pipe; do
	grep -q "^$t: reached" "$T/out" && ok "bwrap gate: $t works" ||
		fail "bwrap gate: $t: $(grep "^$t" "$T/out")"
done
marker tcp4 || marker udp4 && fail "bwrap gate: a host IP server was contacted" ||
	ok "bwrap gate: no host IP server was contacted"
EXTRA="allow_unix_socket = $ALLOWED" config g-ll-ip workspace-write landlock
reset_markers
wr g-ll-ip run -- "$PY" "$CLIENT" "$T/net/addresses" owntcp ownlisten tcp4 tcp6 udp4 ownunix pair
grep -q '^ownlisten: refused: .*listen: Permission denied' "$T/out" &&
	ok "landlock gate: listen() on an unbound TCP socket is refused (an ephemeral port of the host's)" ||
	fail "landlock gate: ownlisten: $(grep '^ownlisten' "$T/out")"
for t in owntcp tcp4 udp4 ownunix; do
	grep -q "^$t: refused" "$T/out" && ok "landlock gate: $t refused" ||
		fail "landlock gate: $t: $(grep "^$t" "$T/out")"
done
grep -q "^pair: reached" "$T/out" && ok "landlock gate: a socketpair works" ||
	fail "landlock gate: pair: $(grep "^pair" "$T/out")"
marker tcp4 || marker tcp6 || marker udp4 && fail "landlock gate: a host IP server was contacted" ||
	ok "landlock gate: no host IP server was contacted"

# --- the command's own unix servers, and a host's in the workspace --------
# bwrap: the supervisor lives in the command's network namespace and
# connects a pathname socket only when its listener is there (sock_diag):
# the command's own, in the workspace, the private /tmp or /dev/shm, and
# any abstract name (its namespace's).  A host server listening in the
# workspace is refused, by its path and through a link.  Landlock cannot
# tell them apart: every unix socket of its own is refused.
mkdir "$T/ws/hs"
net_servers "$T/net3" "$T/ws/hs"
WSHOST=$(sed -n 's/^unix //p' "$T/net3/addresses")
[ -S "$WSHOST" ] || fail "the host server in the workspace did not start: $(cat "$T/net3/servers.err")"
ln -s "$WSHOST" "$T/ws/hostlink.sock"
for mode in read-only workspace-write; do
	config "own-bwrap-$mode" "$mode" bwrap
	rm -rf "$T/net3/markers"
	mkdir "$T/net3/markers"
	wr "own-bwrap-$mode" run -- "$PY" "$CLIENT" "$T/net/addresses" \
		ownunix ownshm ownabstract ownseq
	if [ "$mode" = workspace-write ]; then
		own="ownunix ownshm ownabstract ownseq"
	else
		own="ownshm ownabstract ownseq"
		grep -q '^ownunix: refused: .*Read-only file system' "$T/out" &&
			ok "bwrap $mode: no socket of its own in the read-only workspace" ||
			fail "bwrap $mode: ownunix: $(grep '^ownunix' "$T/out") $(cat "$T/err")"
	fi
	for t in $own; do
		grep -qx "$t: reached" "$T/out" && ok "bwrap $mode: $t answers its own client" ||
			fail "bwrap $mode: $t: $(grep "^$t" "$T/out") $(cat "$T/err")"
	done
	wr "own-bwrap-$mode" run -- "$PROBE" "connect:$WSHOST" "connect:$T/ws/hostlink.sock" \
		"connect:hs/stream.sock"
	refused "bwrap $mode" "connect:$WSHOST"
	refused "bwrap $mode" "connect:$T/ws/hostlink.sock"
	refused "bwrap $mode" "connect:hs/stream.sock"
	[ -e "$T/net3/markers/unix" ] &&
		fail "bwrap $mode: the host server in the workspace was contacted" ||
		ok "bwrap $mode: the host server in the workspace was not contacted"
done
config own-landlock workspace-write landlock
wr own-landlock run -- "$PY" "$CLIENT" "$T/net/addresses" ownunix ownshm ownabstract
for t in ownunix ownshm ownabstract; do
	grep -q "^$t: refused: .*Permission denied" "$T/out" &&
		ok "landlock: $t refused (it cannot tell its own from a host's)" ||
		fail "landlock: $t: $(grep "^$t" "$T/out")"
done

# --- what warden says about it ---------------------------------------------
EXTRA="allow_unix_socket = $ALLOWED" config g-both read-only bwrap landlock
for b in bwrap landlock; do
	EXTRA="allow_unix_socket = $ALLOWED" config "g-say-$b" read-only "$b"
	wr "g-say-$b" run --json -- true
	field network_detail | grep -q "allow_unix_socket: 1 named host socket let through" &&
		ok "run --json: $b says it lets one named socket through" ||
		fail "run --json: $b: $(tail -n 1 "$T/out")"
done
# With the network enabled the list changes nothing: every socket is
# reachable already.
wr g-both session new
sid=$(cat "$T/out")
wr g-both --session "$sid" network set enabled
reset_markers
wr g-both --session "$sid" run -- "$PROBE" "connect:$ALLOWED" "connect:$OTHER"
reached "network enabled" "connect:$ALLOWED"
reached "network enabled" "connect:$OTHER"

# --- a name in the workspace is refused ---------------------------------------
# A confined command can write there: it could put a link or another socket
# in the name's place for a later run.  As written, and through a link.
mkdir "$T/ws/sub"
ln -s "$T/ws/sub/app.sock" "$SOCKDIR/into-ws.sock"
for listed in "$T/ws/sub/app.sock" "$SOCKDIR/into-ws.sock"; do
	for b in bwrap landlock; do
		EXTRA="allow_unix_socket = $listed" config g-in-ws read-only "$b"
		wr g-in-ws run -- true
		[ "$rc" -ne 0 ] && grep -q "allow_unix_socket $listed lies in the workspace" "$T/err" &&
			ok "$b: a listed name in the workspace ($listed) is refused, saying why" ||
			fail "$b: $listed in the workspace: rc=$rc: $(cat "$T/err")"
	done
done
rm -f "$SOCKDIR/into-ws.sock"

# --- a name that cannot be a socket address is refused -----------------------
long=/var/tmp/$(printf '%0120d' 0)
EXTRA="allow_unix_socket = $long" config g-long read-only bwrap landlock
wr g-long run --json -- true
[ "$rc" -ne 0 ] && ok "a name longer than a socket address: refused (rc=$rc)" ||
	fail "a name longer than a socket address ran"
grep -q "allow_unix_socket = $long: longer than a unix socket address holds" "$T/err" &&
	ok "the refusal says why" || fail "the refusal: $(cat "$T/err")"
finish

#!/bin/sh
# unpriv.sh — the tests of `warden run`, serve and mcp that make sense
# without root, run again as an unprivileged user made for the purpose,
# so that a root run (CI's) covers both callers: bwrap and Landlock
# confinement (result, hostview, boundary), denials and escalations
# (escalate, escalate-network), the network knob (network), sessions
# (session), serve over stdio and mcp, the three faces' shared scenario
# (harness) and the allowlist proxy (allowlist).  Which, and why:
# UNPRIV_TESTS below.  They run in two lanes, as `make -j2` would.  denyread.sh and roots.sh make their own throwaway user for the
# same cases; the sandbox matrix, the boundary tests of tests/sandbox and
# tests/landlock, overlap, procfs and nameservice need root (what they
# check is what root could do) and skip with that reason without it.
#
# As root: a user is made (useradd, removed at the end), and given a copy
# of what the tests need — the built warden, plugins and test helpers, the
# test scripts — in a directory of its own under /var/tmp (the build tree
# may lie where the user cannot reach, such as /root); each test runs
# there through setpriv with that user's uid, gid and no other group, a
# HOME of its own and no WARDEN_* variable, and its log is kept in this
# one, each line prefixed by the test's name.  Each test's result is one
# line: ok, FAIL, or SKIP with the test's reason; the whole fails when
# one fails.  Not root: skipped (77), saying why — the other tests are
# then the unprivileged run.
: "${top_srcdir:?run by make check}" "${top_builddir:?run by make check}" "${WARDEN:?run by make check}"

# The list: each test's own checks are of what any caller gets.
UNPRIV_TESTS="${UNPRIV_TESTS:-tests/run/result.sh tests/run/session.sh
	tests/run/escalate.sh tests/run/escalate-network.sh tests/run/network.sh
	tests/run/hostview.sh tests/run/boundary.sh tests/serve/stdio.sh
	tests/mcp/mcp.sh tests/harness/harness.sh tests/run/allowlist.sh}"

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: not root: making a throwaway user needs root; run as this user, the rest of the suite is the unprivileged run"
	exit 77
fi
for t in useradd userdel setpriv; do
	command -v $t >/dev/null 2>&1 ||
		{ echo "FAIL: $t is missing (util-linux, passwd): the unprivileged run cannot be made"; exit 1; }
done

failures=0
U=$(mktemp -d /var/tmp/warden-unpriv.XXXXXX) || { echo "FAIL: mktemp in /var/tmp"; exit 1; }
NAME=wrdun$$
cleanup() {
	# What the user left running ends with it (by pid); then the user
	# and its tree.
	for p in $(pgrep -u "$NAME" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
	userdel "$NAME" 2>/dev/null
	rm -rf "$U"
}
trap cleanup EXIT
if ! useradd -M -N -s /bin/sh "$NAME" 2>"$U/useradd.err"; then
	echo "FAIL: useradd $NAME: $(cat "$U/useradd.err")"
	exit 1
fi
UID_=$(id -u "$NAME")
GID_=$(id -g "$NAME")

# The copy: the build's binaries and plugins, the test helpers built in
# tests/, and the source's tests/ (scripts, clients, the MCP client's
# node_modules when present).  Nothing of the running tests' scratch
# trees is copied.
B=$U/build S=$U/src
mkdir -p "$B/tests/run" "$B/tests/landlock" "$B/tests/zoo" "$S" "$U/home"
cp -p "$top_builddir/warden" "$B/" &&
	cp -pR "$top_builddir/plugins" "$B/" &&
	cp -pR "$top_builddir/tests/zoo/.libs" "$B/tests/zoo/" &&
	cp -p "$top_builddir/tests/landlock/ll-act" "$B/tests/landlock/" &&
	{ [ ! -e "$top_builddir/tests/run/gate-probe" ] || cp -p "$top_builddir/tests/run/gate-probe" "$B/tests/run/"; } &&
	cp -pR "$top_srcdir/tests" "$S/" ||
	{ echo "FAIL: copying the build and the tests into $U"; exit 1; }
rm -rf "$S"/tests/run/t-* "$S"/tests/sandbox-*
chown -R "$UID_:$GID_" "$U"
chmod 755 "$U"
MODULES=${MCP_NODE_MODULES:-$top_srcdir/tests/mcp/node_modules}
[ ! -d "$MODULES" ] || [ -d "$S/tests/mcp/node_modules" ] ||
	{ cp -pR "$MODULES" "$S/tests/mcp/node_modules" && chown -R "$UID_:$GID_" "$S/tests/mcp/node_modules"; }

echo "---- as $NAME (uid $UID_), in $U"
# One test as the user; its output and status in $U/res-K.
run_one() { # run_one K TEST
	start=$(date +%s)
	setpriv --reuid="$UID_" --regid="$GID_" --clear-groups \
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$U/home" LANG=C.UTF-8 \
		USER="$NAME" LOGNAME="$NAME" TMPDIR=/tmp \
		top_srcdir="$S" top_builddir="$B" WARDEN="$B/warden" \
		MCP_NODE_MODULES="$S/tests/mcp/node_modules" \
		/bin/sh "$S/$2" >"$U/out-$1" 2>&1 </dev/null
	echo "$? $(( $(date +%s) - start ))" >"$U/res-$1"
}
# Two lanes, as `make -j2` runs the suite: the tests are independent
# (each its own directory), and most of their time is waiting.
lane() { # lane L: the tests whose index is L modulo 2
	k=0
	for t in $UNPRIV_TESTS; do
		[ $((k % 2)) -ne "$1" ] || run_one "$k" "$t"
		k=$((k + 1))
	done
}
lane 0 &
lane0=$!
lane 1
wait "$lane0"
k=0
for t in $UNPRIV_TESTS; do
	read -r rc took <"$U/res-$k" || { rc=1 took=0; }
	sed "s|^|[$t] |" "$U/out-$k"
	case $rc in
	0) echo "ok: $t as $NAME (${took} s)" ;;
	77) echo "SKIP: $t as $NAME: $(grep -m 1 -i skip "$U/out-$k")" ;;
	*) echo "FAIL: $t as $NAME: exit $rc (${took} s)"
	   failures=$((failures + 1)) ;;
	esac
	k=$((k + 1))
done

# Nothing of the user's is left running, and nothing it made outside its tree.
# A process that is exiting (its run ended, its reaper has not yet seen
# it) gets up to 5 s, polled; one still there is named with its command.
n=0
while left=$(pgrep -u "$NAME" 2>/dev/null | tr '\n' ' ') && [ -n "$left" ] && [ $n -lt 50 ]; do
	sleep 0.1
	n=$((n + 1))
done
[ -z "$left" ] && echo "ok: nothing of $NAME is left running" ||
	{ echo "FAIL: processes of $NAME left: $(ps -o pid=,stat=,args= -u "$NAME" | tr '\n' ';')"
	  failures=$((failures + 1)); }

if [ "$failures" -ne 0 ]; then
	echo "$failures failure(s)"
	exit 1
fi
exit 0

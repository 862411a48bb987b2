# lib.sh — shared by the Landlock tests: a scratch tree with an outside
# file whose whole state is snapshotted, and assertions on the runner's
# one-line failures.  Sourced, not run.

RUNNER=${RUNNER:-$top_builddir/plugins/landlock/warden-landlock-run}
ACT=$top_builddir/tests/landlock/ll-act
failures=0

T=$(mktemp -d "${TMPDIR:-/tmp}/warden-landlock.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir "$T/ws"

. "$top_srcdir/tests/outside.sh"
reset_outside

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

ok() {
	echo "ok: $*"
}

# expect_fatal WHAT CMD...: exit 125, exactly one stderr line that is the
# runner's fatal line, nothing on stdout (the command never ran).
expect_fatal() {
	what=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	lines=$(wc -l <"$T/err")
	if [ "$rc" -ne 125 ]; then
		fail "$what: exit $rc, want 125"
	elif [ "$lines" -ne 1 ]; then
		fail "$what: $lines stderr lines, want exactly 1"
		cat "$T/err"
	elif ! grep -q '^warden-landlock-run: fatal: [^ ].*: ' "$T/err"; then
		fail "$what: stderr is not the fatal line: $(cat "$T/err")"
	elif [ -s "$T/out" ]; then
		fail "$what: the command ran: $(cat "$T/out")"
	else
		ok "$what: $(cat "$T/err")"
	fi
}

# expect_metadata_gap WHAT: in workspace-write a metadata change outside
# the root is the documented `partial` gap (a seccomp filter sees no
# paths).  Record what happened and start again from a fresh outside tree.
expect_metadata_gap() {
	if [ "$(snapshot)" = "$outside_before" ]; then
		ok "$1: outside tree unchanged"
	else
		echo "NOTE: $1 changed the outside tree: the documented partial gap"
	fi
	reset_outside
	remember_outside
}

finish() {
	if [ "$failures" -ne 0 ]; then
		echo "$failures failure(s)"
		exit 1
	fi
	exit 0
}

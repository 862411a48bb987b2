# lib.sh — shared by the Landlock tests: a scratch tree with an outside
# file whose whole state is snapshotted, and assertions on the runner's
# one-line failures.  Sourced, not run.

RUNNER=${RUNNER:-$top_builddir/plugins/landlock/warden-landlock-run}
ACT=$top_builddir/tests/landlock/ll-act
failures=0

T=$(mktemp -d "${TMPDIR:-/tmp}/warden-landlock.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir "$T/ws"

# A fresh outside tree: one file with known content, mode and times.
reset_outside() {
	rm -rf "$T/outside"
	mkdir "$T/outside"
	echo original >"$T/outside/file"
	chmod 644 "$T/outside/file"
	touch -d '2001-02-03 04:05:06' "$T/outside/file"
}
reset_outside

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

ok() {
	echo "ok: $*"
}

# Everything about the outside tree that a write, a metadata change or a
# new entry would alter: names, types, modes, owners, sizes, times, content.
snapshot() {
	(cd "$T/outside" && find . -printf '%p %y %m %U %G %s %T@\n' | sort &&
		cat file &&
		"$ACT" listxattr file)
}

outside_before=
remember_outside() {
	outside_before=$(snapshot)
}

# assert_outside_unchanged WHAT
assert_outside_unchanged() {
	if [ "$(snapshot)" = "$outside_before" ]; then
		ok "$1: outside tree unchanged"
	else
		fail "$1: outside tree changed"
		snapshot
	fi
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

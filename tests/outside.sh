# outside.sh — sourced by the sandbox tests (tests/sandbox/lib.sh,
# tests/landlock/lib.sh): a tree outside the workspace, $T/outside, whose
# whole state is snapshotted before a confined command and compared after.
# Needs $T (the scratch directory), $ACT (tests/landlock/ll-act) and the
# caller's ok / fail.

# A fresh outside tree: one file with known content, mode and times.
reset_outside() {
	rm -rf "$T/outside"
	mkdir "$T/outside"
	echo original >"$T/outside/file"
	chmod 644 "$T/outside/file"
	touch -d '2001-02-03 04:05:06' "$T/outside/file"
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

# assert_outside_unchanged WHAT: a change fails, is shown, and the tree is
# made fresh again for the next case.
assert_outside_unchanged() {
	if [ "$(snapshot)" = "$outside_before" ]; then
		ok "$1: outside tree unchanged"
	else
		fail "$1: outside tree changed"
		snapshot
		reset_outside
		remember_outside
	fi
}

#!/bin/sh
# procfs.sh — the kernel's settings under /proc stay the host's to set.
# A sandboxed command's uid is the caller's on the host (root here, as on
# CI), and the kernel lets the owner of a sysctl file write it without
# any capability: through a writable /proc a command could set, say,
# kernel.core_pattern and have the host's kernel run a program of its
# choosing as root, outside every namespace.  On both backends, in both
# modes, a command writes two harmless host-wide settings (vm.swappiness
# and kernel.domainname) to new values; the host's values must be what
# they were, and each write must fail inside.  A value that did change is
# put back before the test fails.
. "${top_srcdir:?run by make check}/tests/run/lib.sh"

SW=/proc/sys/vm/swappiness
DN=/proc/sys/kernel/domainname
sw0=$(cat "$SW") dn0=$(cat "$DN")
sw1=$(( (sw0 + 7) % 100 ))
dn1="warden-procfs-$TAG"
trap 'echo "$sw0" >"$SW"; echo "$dn0" >"$DN"; rm -rf "$T"' EXIT

# host_kept WHAT FILE VALUE: FILE holds VALUE on the host; else it is put
# back and the test fails.
host_kept() {
	now=$(cat "$2")
	if [ "$now" = "$3" ]; then
		ok "$1: the host's $2 is unchanged ($3)"
	else
		fail "$1: the host's $2 became '$now' (was '$3'); put back"
		echo "$3" >"$2"
	fi
}

for b in bwrap landlock; do
	for mode in read-only workspace-write; do
		config "p-$b-$mode" "$mode" "$b"
		w="$b $mode"
		wr "p-$b-$mode" run -- /bin/sh -c \
			"echo $sw1 >$SW && echo WROTE-SW; echo $dn1 >$DN && echo WROTE-DN; exit 0"
		if [ "$rc" -ne 0 ]; then
			fail "$w: the run itself failed (exit $rc)"
			sed 's/^/  stderr: /' "$T/err"
		fi
		if grep -q WROTE "$T/out"; then
			fail "$w: a write under /proc/sys succeeded inside: $(grep WROTE "$T/out" | tr '\n' ' ')"
		else
			ok "$w: both writes under /proc/sys failed inside"
		fi
		host_kept "$w" "$SW" "$sw0"
		host_kept "$w" "$DN" "$dn0"
	done
done

# What a command reads there still works: the sandbox is not blind.
config p-read workspace-write bwrap
wr p-read run -- /bin/cat "$SW"
if [ "$rc" -eq 0 ] && [ "$(cat "$T/out")" = "$sw0" ]; then
	ok "bwrap: /proc/sys is still readable inside"
else
	fail "bwrap: reading $SW inside: exit $rc, '$(cat "$T/out")'"
fi
finish

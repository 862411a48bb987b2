#!/bin/sh
# runner.sh — warden-landlock-run against the real kernel, as root, in both
# confining modes.  Every refused effect is checked on the outside tree
# itself, not only by an exit code.
. "$top_srcdir/tests/landlock/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: needs root (as CI runs it): the capability cases are only"
	echo "meaningful for a root caller"
	exit 77
fi

probe=$("$RUNNER" --probe)
case $probe in
abi=[3-9]\ enforcement=full\ namespaces=yes) ok "probe: $probe" ;;
*) fail "probe: '$probe', want abi>=3 enforcement=full namespaces=yes on this kernel (as root)" ;;
esac

# The deterministic partial-ABI fake must print exactly the notice the
# real runner carries (and that the backend's rule removes).
fake_notice=$(sed -n "s/^notice='\\(.*\\)'\$/\\1/p" "$top_srcdir/tests/landlock/fake-partial-runner")
if [ -n "$fake_notice" ] && grep -qaF "$fake_notice" "$RUNNER"; then
	ok "the fake runner's notice is the real runner's"
else
	fail "the fake runner's notice '$fake_notice' is not in $RUNNER"
fi

ln -s ../outside/file "$T/ws/pre-link"

# run MODE CMD...: the runner with the mode's arguments.
run() {
	mode=$1
	shift
	if [ "$mode" = read-only ]; then
		"$RUNNER" -- "$@"
	else
		"$RUNNER" --rw "$T/ws" -- "$@"
	fi
}

for mode in read-only workspace-write; do
	echo "---- $mode"
	remember_outside
	O=$T/outside/file

	run $mode sh -c "echo x > $O" 2>"$T/err"
	grep -q 'Permission denied' "$T/err" ||
		fail "$mode: write outside: no 'Permission denied': $(cat "$T/err")"
	assert_outside_unchanged "$mode: overwrite"
	run $mode sh -c "echo x >> $O" 2>/dev/null
	assert_outside_unchanged "$mode: append"
	run $mode truncate -s 0 "$O" 2>/dev/null
	assert_outside_unchanged "$mode: truncate"
	run $mode "$ACT" truncate "$O" >/dev/null
	assert_outside_unchanged "$mode: truncate(2) by path"
	run $mode rm -f "$O" 2>/dev/null
	assert_outside_unchanged "$mode: unlink"
	run $mode sh -c "touch $T/outside/new; mkdir $T/outside/dir; mkfifo $T/outside/fifo" 2>/dev/null
	assert_outside_unchanged "$mode: create file, dir, fifo"
	# Metadata: refused in read-only; the partial gap in workspace-write.
	meta=assert_outside_unchanged
	[ $mode = workspace-write ] && meta=expect_metadata_gap
	run $mode chmod 777 "$O" 2>/dev/null
	$meta "$mode: chmod"
	run $mode touch -d '2020-01-01' "$O" 2>/dev/null
	$meta "$mode: utime"
	run $mode chown 1:1 "$O" 2>/dev/null
	assert_outside_unchanged "$mode: chown to another owner (no CAP_CHOWN)"
	run $mode "$ACT" setxattr "$O" >/dev/null
	$meta "$mode: setxattr"
	run $mode sh -c "echo x > $T/ws/../outside/file" 2>/dev/null
	assert_outside_unchanged "$mode: .. out of the root"
	run $mode sh -c "echo x > /proc/self/root$O; echo x > /proc/1/root$O" 2>/dev/null
	assert_outside_unchanged "$mode: /proc/self/root and /proc/1/root"
	run $mode sh -c "echo x > $T/ws/pre-link" 2>/dev/null
	assert_outside_unchanged "$mode: symlink made before the run"
	run $mode sh -c "ln -s $O $T/ws/new-link && echo x > $T/ws/new-link" 2>/dev/null
	assert_outside_unchanged "$mode: symlink made inside"
	run $mode sh -c "ln $O $T/ws/hard && echo x >> $T/ws/hard" 2>/dev/null
	assert_outside_unchanged "$mode: hard link to an outside file"
	run $mode sh -c "mv $O $T/ws/moved" 2>/dev/null
	assert_outside_unchanged "$mode: rename out of the outside tree"
	echo inside >"$T/ws/in-file"
	run $mode sh -c "mv $T/ws/in-file $T/outside/in-file" 2>/dev/null
	assert_outside_unchanged "$mode: rename from the root to outside"
	rm -f "$T/ws/in-file" "$T/ws/new-link" "$T/ws/hard" "$T/ws/moved"

	# Host temp areas: Landlock cannot give a private /tmp, so neither
	# mode grants the host's.
	run $mode sh -c "touch /tmp/warden-ll-$$; touch /dev/shm/warden-ll-$$" 2>/dev/null
	if [ -e /tmp/warden-ll-$$ ] || [ -e /dev/shm/warden-ll-$$ ]; then
		fail "$mode: host /tmp or /dev/shm written"
		rm -f /tmp/warden-ll-$$ /dev/shm/warden-ll-$$
	else
		ok "$mode: host /tmp and /dev/shm untouched"
	fi

	if run $mode sh -c 'echo x > /dev/null'; then
		ok "$mode: /dev/null writable"
	else
		fail "$mode: /dev/null not writable"
	fi

	# No privilege inside.
	caps=$(run $mode grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status)
	if [ "$(echo "$caps" | grep -c ':	0000000000000000$')" -eq 5 ]; then
		ok "$mode: CapInh/Prm/Eff/Bnd/Amb all zero"
	else
		fail "$mode: capabilities held: $caps"
	fi
	run $mode mount -o remount,rw,bind / 2>/dev/null &&
		fail "$mode: remount of / succeeded"
	run $mode mount --bind "$T/ws" "$T/outside" 2>/dev/null &&
		fail "$mode: bind mount over an outside directory succeeded"
	run $mode mount -o remount,rw,bind "$T/outside" 2>/dev/null &&
		fail "$mode: remount of an outside directory succeeded"
	if mountpoint -q "$T/outside"; then
		fail "$mode: $T/outside became a mount point"
		umount "$T/outside"
	fi
	assert_outside_unchanged "$mode: mount attempts"
	run $mode mknod "$T/ws/blk" b 8 0 2>/dev/null
	run $mode mknod "$T/outside/blk" b 8 0 2>/dev/null
	if [ -e "$T/ws/blk" ]; then
		fail "$mode: mknod of a block device succeeded"
		rm -f "$T/ws/blk"
	else
		ok "$mode: mknod of a block device refused"
	fi
	assert_outside_unchanged "$mode: mknod"
	if run $mode "$ACT" userns | grep -q 'Operation not permitted'; then
		ok "$mode: no fresh user namespace"
	else
		fail "$mode: unshare(CLONE_NEWUSER) was not refused"
	fi

	# The caller's terminal: the runner as session leader (setsid fails,
	# TIOCNOTTY) and as a plain session member (setsid).
	for role in leader member; do
		if [ $mode = read-only ]; then
			res=$("$ACT" pty $role "$RUNNER" -- "$ACT" tiocsti 2>/dev/null)
			ctty=$("$ACT" pty $role "$RUNNER" -- "$ACT" ctty 2>&1)
		else
			res=$("$ACT" pty $role "$RUNNER" --rw "$T/ws" -- "$ACT" tiocsti 2>/dev/null)
			ctty=$("$ACT" pty $role "$RUNNER" --rw "$T/ws" -- "$ACT" ctty 2>&1)
		fi
		case $res in
		*input=clean*) ok "$mode: TIOCSTI as session $role: caller's terminal clean" ;;
		*) fail "$mode: TIOCSTI as session $role: $res" ;;
		esac
		case $ctty in
		*"ctty: No such device or address"*) ok "$mode: no controlling terminal as session $role" ;;
		*) fail "$mode: controlling terminal as session $role: $ctty" ;;
		esac
	done

	# Descriptors: the caller's fd 5 and the status fd never reach the command.
	if [ $mode = read-only ]; then
		fds=$(exec 5<"$O"; "$ACT" status "$RUNNER" --status-fd @FD@ -- "$ACT" fds)
	else
		fds=$(exec 5<"$O"; "$ACT" status "$RUNNER" --status-fd @FD@ --rw "$T/ws" -- "$ACT" fds)
	fi
	if [ "$fds" = "exit=0
status=started" ]; then
		ok "$mode: no fd above 2 reaches the command; status pipe holds only 'started' on exec"
	else
		fail "$mode: fds/status: $fds"
	fi

	# Inside the root.
	if [ $mode = workspace-write ]; then
		if run $mode sh -c "cd $T/ws && echo a > f && echo b >> f && chmod +x f &&
		    truncate -s 1 f && mkdir d && mv f d/g && ln -s d/g s && ln d/g h &&
		    touch -d 2000-01-01 h && rm -r d s h"; then
			ok "$mode: writes, chmod, truncate, rename, links inside the root"
		else
			fail "$mode: a write inside the root was refused"
		fi
	else
		run $mode sh -c "echo a > $T/ws/f" 2>/dev/null
		if [ -e "$T/ws/f" ]; then
			fail "$mode: wrote inside the root"
		else
			ok "$mode: the root is read-only too"
		fi
		if run $mode "$ACT" chattr "$O" | grep -q 'Permission denied'; then
			ok "$mode: inode flags (chattr) refused"
		else
			fail "$mode: chattr was not refused"
		fi
	fi

	# The i386 ABI (int 0x80) must not bypass the metadata guard.
	if "$ACT" i386-getpid >/dev/null 2>&1; then
		run $mode "$ACT" i386-chmod "$O" >/dev/null
		$meta "$mode: chmod through the i386 ABI"
	else
		echo "NOTE: this kernel has no i386 syscall ABI (int 0x80 faults);"
		echo "      the guard's i386 table cannot be exercised here"
	fi
done

# The root by descriptor (--rw-fd): the rule is made on what the caller
# opened, and the descriptor never reaches the command.
echo "---- --rw-fd"
remember_outside
rm -f "$T/ws/by-fd"
fds=$(exec 7<"$T/ws"; "$RUNNER" --rw-fd 7 -- sh -c "echo in > $T/ws/by-fd; echo x > $T/outside/file; $ACT fds" 2>/dev/null)
if [ "$(cat "$T/ws/by-fd" 2>/dev/null)" = in ] && [ -z "$fds" ]; then
	ok "--rw-fd: the root is writable through the descriptor, which the command does not hold"
else
	fail "--rw-fd: by-fd='$(cat "$T/ws/by-fd" 2>/dev/null)' fds='$fds'"
fi
assert_outside_unchanged "--rw-fd: outside"
expect_fatal "--rw-fd of a closed descriptor" "$RUNNER" --rw-fd 9 -- true

finish

#!/bin/sh
# matrix.sh — one matrix of real cases run for each backend (bwrap and
# landlock) in both confining modes, as root: every command is confined by
# `warden confine --json` and the printed argv is executed as printed.
# Each refused effect is checked on the outside tree itself, not only by
# an exit code.
#
# The file cases run again with a second writable root (writable_roots)
# and a git worktree as the root: the same detours from and into the
# second root and the worktree's common directory, git commit in the
# worktree, and a session's roots (sandbox/roots) through confine.
#
# A case a backend honestly cannot hold is declared in gaps_<backend>_<mode>
# below; for those the test asserts that confine reports `partial` with a
# detail naming the gap, runs the case anyway and says what happened.
. "$top_srcdir/tests/sandbox/lib.sh"

# Declared gaps (see each backend's comment and warden.ini(5)).
gaps_bwrap_read_only=""
gaps_bwrap_workspace_write=""
gaps_landlock_read_only=""
# Landlock: no path-aware metadata guard outside the root, and no way to
# take rights back below the root.
gaps_landlock_workspace_write="metadata protected"
# What the `detail` of a partial confine must name for each gap.
gap_word_metadata="metadata changes"
gap_word_protected=".git/hooks and .git/config stay writable"

cat >"$T/exec.py" <<'PY'
import json, os, sys
a = json.load(open(sys.argv[1]))["argv"]
os.execv(a[0], a)
PY

# prepare B M ARGV...: confine into $T/c.json (a failure is loud).
prepare() {
	b=$1 m=$2
	shift 2
	if ! w confine --backend "$b" --mode "$m" --root "$WS" --json -- "$@" \
		>"$T/c.json" 2>"$T/c.err"; then
		echo "FAIL: warden confine --backend $b --mode $m failed: $(cat "$T/c.err")"
		: >"$T/confine-failed"
		return 1
	fi
}

# run B M ARGV...: confine, then execute exactly what was printed.
run() {
	prepare "$@" || return 126
	"$PY" "$T/exec.py" "$T/c.json"
}

is_gap() { # is_gap CASE: declared for the current backend and mode
	eval "list=\$gaps_${b}_$(echo "$m" | tr - _)"
	case " $list " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# gap_reported CASE: confine says partial and names the gap.
gap_reported() {
	prepare "$b" "$m" true || return
	eval "word=\$gap_word_$(echo "$1" | tr - _)"
	enf=$(json_get "$T/c.json" enforcement)
	detail=$(json_get "$T/c.json" detail)
	case $enf/$detail in
	partial/*"$word"*) ok "$b $m: $1: a declared gap, reported partial ($word)" ;;
	*) fail "$b $m: $1 is a declared gap but confine says $enf: $detail" ;;
	esac
}

# outside_case WHAT: assert the outside tree unchanged, unless WHAT is a
# metadata case and metadata is a declared gap here.
meta_case() {
	if is_gap metadata; then
		gap_reported metadata
		if [ "$(snapshot)" != "$outside_before" ]; then
			echo "NOTE: $b $m: $1 changed the outside tree (the declared gap)"
		fi
		reset_outside
		remember_outside
	else
		assert_outside_unchanged "$b $m: $1"
	fi
}

mkdir -p "$WS/.git/hooks"
echo '[core]' >"$WS/.git/config"
ln -s ../outside/file "$WS/pre-link"
tag=warden-sbx-$$

for b in bwrap landlock; do
for m in read-only workspace-write; do
	echo "---- $b $m"
	O=$T/outside/file
	reset_outside
	remember_outside

	# --- writes outside the root
	run $b $m sh -c "echo x > $O" 2>"$T/err"
	case $b in
	bwrap) sig="Read-only file system" ;;
	landlock) sig="Permission denied" ;;
	esac
	grep -q "$sig" "$T/err" && ok "$b $m: overwrite refused with '$sig'" ||
		fail "$b $m: overwrite outside: no '$sig': $(cat "$T/err")"
	assert_outside_unchanged "$b $m: overwrite"
	run $b $m sh -c "echo x >> $O" 2>/dev/null
	assert_outside_unchanged "$b $m: append"
	run $b $m truncate -s 0 "$O" 2>/dev/null
	assert_outside_unchanged "$b $m: truncate"
	run $b $m "$ACT" truncate "$O" >/dev/null
	assert_outside_unchanged "$b $m: truncate(2) by path"
	run $b $m rm -f "$O" 2>/dev/null
	assert_outside_unchanged "$b $m: unlink"
	run $b $m sh -c "touch $T/outside/new; mkdir $T/outside/dir; mkfifo $T/outside/fifo" 2>/dev/null
	assert_outside_unchanged "$b $m: create file, directory, fifo"
	run $b $m sh -c "echo x > $WS/../outside/file" 2>/dev/null
	assert_outside_unchanged "$b $m: .. out of the root"
	run $b $m sh -c "echo x > /proc/self/root$O; echo x > /proc/1/root$O" 2>/dev/null
	assert_outside_unchanged "$b $m: /proc/self/root and /proc/1/root"
	run $b $m sh -c "echo x > $WS/pre-link" 2>/dev/null
	assert_outside_unchanged "$b $m: symlink made before the run"
	run $b $m sh -c "ln -s $O $WS/new-link; echo x > $WS/new-link" 2>/dev/null
	assert_outside_unchanged "$b $m: symlink made inside"
	run $b $m sh -c "ln $O $WS/hard; echo x >> $WS/hard" 2>/dev/null
	assert_outside_unchanged "$b $m: hard link to an outside file"
	run $b $m sh -c "mv $O $WS/moved" 2>/dev/null
	assert_outside_unchanged "$b $m: rename out of the outside tree"
	echo inside >"$WS/in-file"
	run $b $m sh -c "mv $WS/in-file $T/outside/in-file" 2>/dev/null
	assert_outside_unchanged "$b $m: rename from the root to outside"
	rm -f "$WS/in-file" "$WS/new-link" "$WS/hard" "$WS/moved"
	run $b $m chown 1:1 "$O" 2>/dev/null
	assert_outside_unchanged "$b $m: chown"
	run $b $m chmod 777 "$O" 2>/dev/null
	meta_case "chmod"
	run $b $m touch -d 2020-01-01 "$O" 2>/dev/null
	meta_case "utime"
	run $b $m "$ACT" setxattr "$O" >/dev/null
	meta_case "setxattr"

	# --- inside the root
	rm -f "$WS/f"
	if [ $m = workspace-write ]; then
		if run $b $m sh -c "cd $WS && echo a > f && echo b >> f && chmod +x f &&
		    mkdir d && mv f d/g && ln -s d/g s && cat s" >"$T/out" 2>"$T/err" &&
		    [ "$(cat "$T/out")" = "a
b" ] && [ -x "$WS/d/g" ]; then
			ok "$b $m: writes, chmod, rename, symlink inside the root"
		else
			fail "$b $m: a write inside the root failed: $(cat "$T/err")"
		fi
		rm -rf "$WS/d" "$WS/s"
	else
		run $b $m sh -c "echo a > $WS/f" 2>/dev/null &&
			fail "$b $m: the write inside the root exited 0"
		if [ -e "$WS/f" ]; then
			fail "$b $m: wrote inside the root"
			rm -f "$WS/f"
		else
			ok "$b $m: the root is read-only too"
		fi
	fi
	assert_outside_unchanged "$b $m: work inside the root"

	# --- temp areas: the host's /tmp and /dev/shm are never written
	rm -f "/tmp/$tag" "/dev/shm/$tag"
	out=$(run $b $m sh -c "echo t > /tmp/$tag && cat /tmp/$tag" 2>/dev/null)
	if [ -e "/tmp/$tag" ]; then
		fail "$b $m: the host's /tmp was written"
		rm -f "/tmp/$tag"
	else
		ok "$b $m: host /tmp untouched"
	fi
	# Without a session `warden confine` has no temp area to give (it
	# would outlive the call): /tmp is the host's, read-only.
	[ -z "$out" ] && ok "$b $m: /tmp refused (no temp area without a session)" ||
		fail "$b $m: /tmp writable: '$out'"
	if [ $m = workspace-write ]; then
		# With a session, its temp area is writable and kept on the host.
		sid=$(w session new --cwd "$WS" | tail -n 1)
		w --session "$sid" confine --backend $b --mode $m --root "$WS" --json -- \
			sh -c 'echo t > "$0/f"' "/tmp/warden-$(id -u)/$sid" >"$T/c.json" 2>"$T/c.err" &&
			"$PY" "$T/exec.py" "$T/c.json"
		tmpd=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["tmp_dir"])' "$T/c.json")
		[ "$tmpd" = "/tmp/warden-$(id -u)/$sid" ] && [ "$(cat "$tmpd/f" 2>/dev/null)" = t ] &&
			ok "$b $m: a session's temp area ($tmpd) is writable and kept" ||
			fail "$b $m: the session's temp area: tmp_dir '$tmpd', $(cat "$T/c.err")"
		rm -rf "/tmp/warden-$(id -u)/$sid"
	fi
	run $b $m sh -c "echo t > /dev/shm/$tag" 2>/dev/null
	if [ -e "/dev/shm/$tag" ]; then
		fail "$b $m: the host's /dev/shm was written"
		rm -f "/dev/shm/$tag"
	else
		ok "$b $m: host /dev/shm untouched"
	fi
	run $b $m sh -c 'echo x > /dev/null' && ok "$b $m: /dev/null writable" ||
		fail "$b $m: /dev/null not writable"

	# --- the caller's descriptors: one the spawner forgot to close (5,
	# open for writing on an outside file) never reaches the command.
	fds=$(exec 5>>"$O"; run $b $m "$ACT" fds)
	[ -z "$fds" ] && ok "$b $m: no descriptor of the caller above 2 reaches the command" ||
		fail "$b $m: descriptors reached the command: $fds"
	run $b $m sh -c 'echo x >&5' 5>>"$O" 2>/dev/null
	assert_outside_unchanged "$b $m: writing through an inherited descriptor"

	# --- protected paths
	if [ $m = workspace-write ]; then
		before=$(cat "$WS/.git/config"; ls -A "$WS/.git/hooks")
		run $b $m sh -c "echo evil >> $WS/.git/config; echo evil > $WS/.git/hooks/pre-commit;
			chmod +x $WS/.git/hooks/pre-commit" 2>/dev/null
		after=$(cat "$WS/.git/config"; ls -A "$WS/.git/hooks")
		if is_gap protected; then
			gap_reported protected
			[ "$after" != "$before" ] && echo "NOTE: $b $m: protected paths written (the declared gap)"
			echo '[core]' >"$WS/.git/config"
			rm -f "$WS/.git/hooks/pre-commit"
		elif [ "$after" = "$before" ]; then
			ok "$b $m: .git/config and .git/hooks stay read-only"
		else
			fail "$b $m: a protected path was written"
			echo '[core]' >"$WS/.git/config"
			rm -f "$WS/.git/hooks/pre-commit"
		fi
		if run $b $m sh -c "echo ref > $WS/.git/HEAD" && [ "$(cat "$WS/.git/HEAD")" = ref ]; then
			ok "$b $m: the rest of .git stays writable"
		else
			fail "$b $m: .git/HEAD was not writable"
		fi
		rm -f "$WS/.git/HEAD"
	fi

	# --- no privilege inside
	caps=$(run $b $m grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status)
	if [ "$(echo "$caps" | grep -c ':	0000000000000000$')" -eq 5 ]; then
		ok "$b $m: CapInh/Prm/Eff/Bnd/Amb all zero"
	else
		fail "$b $m: capabilities held: $caps"
	fi
	[ "$(json_get "$T/c.json" privilege_dropped)" = true ] ||
		fail "$b $m: confine does not say privilege_dropped"
	run $b $m mount -o remount,rw,bind / 2>/dev/null &&
		fail "$b $m: mount -o remount,rw,bind / succeeded"
	run $b $m sh -c "mount -o remount,rw,bind / && echo x > $O" 2>/dev/null
	run $b $m mount --bind "$WS" "$T/outside" 2>/dev/null &&
		fail "$b $m: a bind mount over an outside directory succeeded"
	run $b $m mount -o remount,rw,bind "$T/outside" 2>/dev/null &&
		fail "$b $m: a remount of an outside directory succeeded"
	run $b $m sh -c "mount -o remount,rw,bind $T/outside && echo x > $O" 2>/dev/null
	if mountpoint -q "$T/outside"; then
		fail "$b $m: $T/outside became a mount point"
		umount "$T/outside"
	fi
	assert_outside_unchanged "$b $m: remount of / and of an outside directory"
	run $b $m mknod "$WS/blk" b 8 0 2>/dev/null
	run $b $m mknod "$T/outside/blk" b 8 0 2>/dev/null
	if [ -e "$WS/blk" ]; then
		fail "$b $m: mknod of a block device succeeded"
		rm -f "$WS/blk"
	else
		ok "$b $m: mknod of a block device refused"
	fi
	assert_outside_unchanged "$b $m: mknod"
	# Landlock: no capability, no_new_privs -> EPERM; bwrap
	# --disable-userns: the namespace limit is 1 -> ENOSPC.
	res=$(run $b $m "$ACT" userns)
	case $res in
	"userns: Operation not permitted" | "userns: No space left on device")
		ok "$b $m: no fresh user namespace ($res)" ;;
	*) fail "$b $m: unshare(CLONE_NEWUSER) was not refused: $res" ;;
	esac

	# --- the caller's terminal: TIOCSTI from inside must not reach it,
	# with the spawner as session leader and as a plain member.
	prepare $b $m "$ACT" tiocsti
	for role in leader member; do
		res=$("$ACT" pty $role "$PY" "$T/exec.py" "$T/c.json" 2>&1)
		case $res in
		*"tiocsti: ok"*) fail "$b $m: TIOCSTI as session $role succeeded: $res" ;;
		*input=clean*) ok "$b $m: TIOCSTI as session $role: the caller's terminal is clean" ;;
		*) fail "$b $m: TIOCSTI as session $role: $res" ;;
		esac
	done
	# ...and the same push works unconfined (the test can fail).
	res=$("$ACT" pty leader "$ACT" tiocsti 2>&1)
	case $res in
	*input=injected*) ;;
	*) fail "TIOCSTI control: an unconfined push was not seen ($res): the case proves nothing" ;;
	esac

	# --- exact argv
	nl='
'
	set -- "a b" "it's \"q\"" "two${nl}lines" "--" "-rf" "" '$(id)' '*'
	want=$("$ACT" args "$@")
	got=$(run $b $m "$ACT" args "$@")
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		ok "$b $m: argv bytes exact"
	else
		fail "$b $m: argv: got '$got', want '$want'"
	fi
done
done

# --- two roots and a worktree root: the same confine, with $T/second as
# a writable root beside the root and the root a git worktree of $T/main
# (its common directory $T/main/.git granted as git needs it).  What is
# refused in the root is refused in the second root and in the common
# directory; Landlock's declared gap covers the protected paths of a root
# beside the root and a worktree's commondir (its detail names them).
GIT="git -c user.email=t@example.org -c user.name=t -c init.defaultBranch=main"
MAIN=$T/main WT=$T/wt SEC=$T/second
$GIT init -q "$MAIN" && $GIT -C "$MAIN" commit -q --allow-empty -m init &&
	$GIT -C "$MAIN" worktree add -q "$WT" 2>/dev/null && $GIT init -q "$SEC" ||
	fail "git: cannot make the repository, its worktree and the second root"
ln -s ../outside/file "$SEC/pre-link"
sed "s|^durability = none|durability = none\\
writable_roots = $SEC|" "$CONF" >"$T/roots.ini"
chmod 644 "$T/roots.ini"
rw() { # rw B M ARGV...: confine under roots.ini with the worktree as root, execute
	b=$1 m=$2
	shift 2
	if ! "$WARDEN" --config "$T/roots.ini" confine --backend "$b" --mode "$m" --root "$WT" \
		--json -- "$@" >"$T/c.json" 2>"$T/c.err"; then
		fail "$b $m: confine with two roots: $(cat "$T/c.err")"
		return 126
	fi
	"$PY" "$T/exec.py" "$T/c.json"
}
gitstate() { # the host's view of every protected path in the common dir and the second root
	for d in "$MAIN/.git" "$SEC/.git"; do
		cat "$d/config"
		ls -A "$d" "$d/hooks"
	done
	cat "$MAIN/.git/worktrees/wt/commondir" "$WT/.git"
}
for b in bwrap landlock; do
for m in read-only workspace-write; do
	echo "---- $b $m, two roots and a worktree root"
	reset_outside
	remember_outside
	rw $b $m sh -c "echo x > $SEC/../outside/file; echo x > $SEC/pre-link;
		ln -s $O $SEC/l; echo x > $SEC/l; ln $O $SEC/h; echo x >> $SEC/h;
		mv $O $SEC/m; echo x > $MAIN/.git/../../outside/file" 2>/dev/null
	assert_outside_unchanged "$b $m: two roots: .., links and renames from the second root and the common dir"
	rm -f "$SEC/l" "$SEC/h" "$SEC/m"
	rw $b $m sh -c "echo a > $SEC/f" 2>/dev/null
	if [ $m = workspace-write ]; then
		[ "$(cat "$SEC/f" 2>/dev/null)" = a ] && ok "$b $m: the second root is written" ||
			fail "$b $m: the second root was not written: $(cat "$T/c.err")"
		case $("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["roots"])' "$T/c.json") in
		*"'$SEC'"*"'plain'"*"'$MAIN/.git'"*"'git-common-dir'"*) ok "$b $m: confine --json names both roots" ;;
		*) fail "$b $m: confine --json roots: $(cat "$T/c.json")" ;;
		esac
	else
		[ ! -e "$SEC/f" ] && ok "$b $m: the second root is read-only too" ||
			fail "$b $m: read-only wrote the second root"
	fi
	rm -f "$SEC/f"
	before=$(gitstate)
	# The common directory: hooks and config by every route, on both
	# backends (Landlock grants objects, refs, logs and worktrees/* only).
	rw $b $m sh -c "echo evil > $MAIN/.git/hooks/pre-commit; echo evil >> $MAIN/.git/config
		mv $MAIN/.git/hooks $MAIN/.git/h && mkdir $MAIN/.git/hooks && echo evil > $MAIN/.git/hooks/pre-commit
		mv $MAIN/.git $MAIN/x; rm -rf $MAIN/.git/hooks; echo evil > $MAIN/.git/config.worktree
		echo . > $MAIN/.git/commondir; mkdir -p $MAIN/.git/modules/m/hooks
		ln -s $MAIN/.git/hooks $WT/hl; echo evil > $WT/hl/pre-commit; rm -f $WT/hl
		ln $MAIN/.git/config $SEC/cl && echo evil >> $SEC/cl; rm -f $SEC/cl
		git -C $WT config core.hooksPath /x; git -C $MAIN config core.hooksPath /x" 2>/dev/null
	after=$(gitstate)
	[ "$after" = "$before" ] && ok "$b $m: no hook or config line reaches the common directory" ||
		fail "$b $m: the common directory changed: $(printf '%s\n' "$before" >"$T/b"; printf '%s\n' "$after" | diff "$T/b" -)"
	# The second root's and the worktree's own protected paths.
	rw $b $m sh -c "echo evil > $SEC/.git/hooks/pre-commit; echo evil >> $SEC/.git/config
		mv $SEC/.git $SEC/x && mkdir -p $SEC/.git/hooks && echo evil > $SEC/.git/hooks/pre-commit
		ln -s $SEC/.git/hooks $WT/hl2; echo evil > $WT/hl2/post-checkout
		echo $SEC > $MAIN/.git/worktrees/wt/commondir; echo 'gitdir: $SEC/.git' > $WT/.git" 2>/dev/null
	after=$(gitstate)
	if [ "$after" = "$before" ]; then
		ok "$b $m: the second root's .git and the worktree's links are unchanged"
	elif [ $b = landlock ] && [ $m = workspace-write ]; then
		case $(json_get "$T/c.json" detail) in
		*"roots beside the root: protected paths writable; in a git dir only objects, refs, logs, worktrees/* (their commondir too)"*)
			echo "NOTE: $b $m: protected paths of the roots beside the root written (the declared gap)"
			ok "$b $m: the declared gap, named in detail" ;;
		*) fail "$b $m: the second root changed and detail does not say so: $(json_get "$T/c.json" detail)" ;;
		esac
		rm -rf "$SEC/x" "$SEC/.git" "$WT/hl2"
		$GIT init -q "$SEC"
		echo ../.. >"$MAIN/.git/worktrees/wt/commondir"
		printf 'gitdir: %s\n' "$MAIN/.git/worktrees/wt" >"$WT/.git"
	else
		fail "$b $m: the second root or the worktree's links changed"
	fi
	rm -f "$WT/hl2"
	# git commit in the worktree: in workspace-write only.
	n0=$(git -C "$WT" rev-list --count HEAD)
	rw $b $m sh -c "cd $WT && echo $b$m > f && $GIT add f && $GIT commit -q -m $b$m" >/dev/null 2>&1
	n1=$(git -C "$WT" rev-list --count HEAD)
	if [ $m = workspace-write ]; then
		[ "$n1" = $((n0 + 1)) ] && [ -z "$(git -C "$WT" status --short)" ] &&
			ok "$b $m: git commit in the worktree reaches the host's repository" ||
			fail "$b $m: git commit in the worktree: $n0 -> $n1 commits"
	else
		[ "$n1" = "$n0" ] && ok "$b $m: no commit in read-only" || fail "$b $m: read-only committed"
		git -C "$WT" checkout -q -- . 2>/dev/null
	fi
	[ "$(gitstate)" = "$before" ] || fail "$b $m: git commit changed a protected path"
	left=$(ls -d "$SEC/.git/config.worktree" "$MAIN/.git/config.worktree" "$MAIN/.git/commondir" 2>/dev/null)
	[ -z "$left" ] && ok "$b $m: no pin left in the roots" || fail "$b $m: pins left: $left"
done
done
# A session's roots: confine takes them from its sandbox/roots, and
# confine --json names why a worktree got nothing more.
sid=$(w session new --cwd "$WS" | tail -n 1)
w --session "$sid" roots add "$SEC" >/dev/null 2>"$T/err" || fail "roots add: $(cat "$T/err")"
w --session "$sid" confine --backend bwrap --mode workspace-write --root "$WS" --json -- \
	sh -c "echo s > $SEC/s" >"$T/c.json" 2>"$T/c.err" && "$PY" "$T/exec.py" "$T/c.json"
[ "$(cat "$SEC/s" 2>/dev/null)" = s ] && ok "confine takes the session's roots (sandbox/roots)" ||
	fail "confine with the session's roots: $(cat "$T/c.err")"
w --session "$sid" roots remove "$SEC" >/dev/null 2>"$T/err" || fail "roots remove: $(cat "$T/err")"
w --session "$sid" confine --backend bwrap --mode workspace-write --root "$WS" --json -- \
	sh -c "echo t > $SEC/t" >"$T/c.json" 2>"$T/c.err" && "$PY" "$T/exec.py" "$T/c.json" 2>/dev/null
[ ! -e "$SEC/t" ] && ok "after roots remove, confine grants it no more" || fail "a removed root was written"
rm -rf "/tmp/warden-$(id -u)/$sid"
echo "$T/outside" >"$MAIN/.git/worktrees/wt/commondir"
"$WARDEN" --config "$T/roots.ini" confine --backend bwrap --mode workspace-write --root "$WT" \
	--json -- true >"$T/c.json" 2>"$T/c.err"
case $(json_get "$T/c.json" roots)/$(json_get "$T/c.json" roots_notes) in
*git-common-dir*) fail "commondir -> outside: confine granted $(json_get "$T/c.json" roots)" ;;
*"worktree $WT"*) ok "commondir -> outside: nothing granted, the note says why" ;;
*) fail "commondir -> outside: $(cat "$T/c.json" "$T/c.err")" ;;
esac
echo ../.. >"$MAIN/.git/worktrees/wt/commondir"

# --- deny_read through `warden confine` (bwrap; Landlock says partial):
# the printed argv refuses the read of a listed file and of a listed
# directory, and the files are unchanged on the host.
mkdir -p "$T/secret-dir"
echo dir-secret >"$T/secret-dir/key"
echo file-secret >"$T/secret-file"
sed "s|^deny_read_defaults = false|deny_read = $T/secret-dir\\
deny_read = $T/secret-file|" "$CONF" >"$T/deny.ini"
chmod 644 "$T/deny.ini"
for m in read-only workspace-write; do
	"$WARDEN" --config "$T/deny.ini" confine --backend bwrap --mode $m --root "$WS" --json -- \
		sh -c "cat '$T/secret-dir/key'; cat '$T/secret-file'; ls '$T/secret-dir'; echo end" \
		>"$T/c.json" 2>"$T/c.err" || fail "bwrap $m: confine with deny_read: $(cat "$T/c.err")"
	out=$("$PY" "$T/exec.py" "$T/c.json" 2>"$T/run.err")
	if [ "$out" = end ] && [ "$(grep -c 'Permission denied' "$T/run.err")" = 3 ]; then
		ok "bwrap $m: deny_read refuses the file, the directory's file and its listing"
	else
		fail "bwrap $m: deny_read: out '$out', err $(cat "$T/run.err")"
	fi
	[ "$(json_get "$T/c.json" enforcement)" = full ] || fail "bwrap $m: deny_read confine is $(json_get "$T/c.json" enforcement)"
	"$WARDEN" --config "$T/deny.ini" confine --backend landlock --mode $m --root "$WS" --json -- true \
		>"$T/c.json" 2>"$T/c.err"
	case $(json_get "$T/c.json" enforcement)/$(json_get "$T/c.json" detail) in
	partial/*"deny_read is not held"*) ok "landlock $m: partial, naming deny_read" ;;
	*) fail "landlock $m: $(cat "$T/c.json" "$T/c.err")" ;;
	esac
done
[ "$(cat "$T/secret-dir/key" "$T/secret-file")" = "dir-secret
file-secret" ] && ok "the secrets are unchanged on the host" || fail "a secret changed on the host"

if [ -e "$T/confine-failed" ]; then
	fail "warden confine failed in some case (see above)"
fi
finish

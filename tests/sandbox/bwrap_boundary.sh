#!/bin/sh
# bwrap_boundary.sh — the detours around the bubblewrap boundary, each
# tried from inside a real `warden run` (real bwrap, as root, both
# confining modes), then checked on the host itself:
#   - host IPC: SysV shared memory, semaphores and message queues and POSIX
#     message queues made inside exist only inside, and the host's are not
#     reachable from inside;
#   - the command dies with warden: SIGKILL of `warden run` leaves nothing
#     running and nothing written afterwards;
#   - the launcher keeps exactly the descriptors bwrap's options name;
#   - protected paths (.git/hooks, .git/config, submodule hooks and config
#     under .git/modules/NAME, worktree config) hold against every route:
#     a direct write, renaming or deleting an ancestor, deleting and
#     recreating the path, creating it where the root has no .git; the
#     host's .git is then compared with what it was, no planted file
#     exists anywhere in the root, and git add / commit still work;
#     the same routes in a second writable root (writable_roots) and in
#     the main repository's git directory when the root is a worktree,
#     whose .git file and commondir hold too, and git commit there.
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: needs root (as CI runs it): chown, the IPC of a root caller and"
	echo "the launcher's descriptors are checked for a root caller"
	exit 77
fi
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
	sid=$(cd "$WS" && "$WARDEN" --config "$T/$c.ini" session new | tail -n 1)
	# The command reports through a pipe (read-only mode cannot write a
	# file), then would write the marker after a sleep, through warden's
	# stdout, which is the file $T/late.
	mkfifo "$T/fifo"
	(cd "$WS" && exec "$WARDEN" --config "$T/$c.ini" --session "$sid" run -c \
		"echo started > $T/fifo; sleep $n; echo late") \
		>"$T/late" 2>"$T/err" </dev/null &
	wpid=$!
	line=$(timeout 30 cat "$T/fifo")
	rm -f "$T/fifo"
	[ "$line" = started ] || fail "$c: the command did not start: '$line'"
	# warden starts bwrap itself: no launcher process between them.
	kids=$(pgrep -P $wpid | while read -r p; do readlink "/proc/$p/exe"; done)
	[ "$kids" = "$(readlink -f /usr/bin/bwrap)" ] &&
		ok "$c: warden run's one child is bwrap" ||
		fail "$c: warden run's children are '$kids', want bwrap alone"
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
	# The killed run is in the log: its start, written before the
	# command ran, without an end.
	"$WARDEN" --config "$T/$c.ini" session show "$sid" --json >"$T/ev.json" 2>"$T/err" ||
		fail "$c: the log of the killed run does not replay: $(cat "$T/err")"
	"$PY" - "$T/ev.json" "sleep $n" <<'PY' && ok "$c: the killed run's start is in the log, no end" ||
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["events"] if e["type"] == "sandbox/run"]
assert len(ev) == 1, ev
e = ev[0]
assert e["phase"] == "start" and e["backend"] == "bwrap", e
assert e["argv"][:2] == ["bash", "-c"] and sys.argv[2] in e["argv"][2], e
PY
		fail "$c: no start event for the killed run: $(cat "$T/ev.json")"
	TAG=$((TAG + 1))
done
# Nothing written after: the command's stdout was the file itself.
[ ! -s "$T/late" ] && ok "the command wrote nothing after warden died" ||
	fail "the command went on after warden died: $(cat "$T/late")"

echo "---- file metadata outside the root: ioctls, chmod, chown, utime, xattr"
ACT=$top_builddir/tests/landlock/ll-act
[ -x "$ACT" ] || { echo "FAIL: $ACT was not built"; exit 1; }
O=$T/outside/file
# meta FILE: everything the cases could change: generation, mode, owner,
# mtime, ctime, inode flags, xattr names, contents.
meta() {
	printf '%s %s %s|%s|%s\n' "$("$ACT" getversion "$1")" "$(stat -c '%a %u:%g %Y %Z' "$1")" \
		"$(lsattr -d "$1" 2>&1 | cut -d' ' -f1)" "$("$ACT" listxattr "$1" | tr '\n' ,)" \
		"$(sha256sum <"$1")"
}
# Control: unconfined, the generation and the inode flags change here (the
# cases can fail).
echo ctl >"$T/ctl"
"$ACT" setversion "$T/ctl" >/dev/null && [ "$("$ACT" getversion "$T/ctl")" = 4242 ] ||
	fail "control: FS_IOC_SETVERSION does not work unconfined here: the case proves nothing"
"$ACT" chattr "$T/ctl" | grep -q 'chattr: ok' ||
	fail "control: FS_IOC_SETFLAGS does not work unconfined here: the case proves nothing"
for c in bw-ro bw-ww; do
	before=$(meta "$O")
	sleep 0.01
	for how in "" hi ext4; do
		wr $c run -- "$ACT" setversion "$O" $how
		grep -q '^setversion: ok' "$T/out" &&
			fail "$c: SETVERSION${how:+ ($how)} succeeded inside: $(cat "$T/out")"
	done
	wr $c run -c "$ACT chattr $O; $ACT setxattr $O; chmod 777 $O; chown 1:1 $O; touch -d 2020-01-01 $O; true"
	grep -q ': ok$' "$T/out" && fail "$c: an ioctl or xattr change succeeded inside: $(cat "$T/out")"
	after=$(meta "$O")
	if [ "$after" = "$before" ]; then
		ok "$c: generation, flags, xattrs, mode, owner, times and contents of the outside file unchanged"
	else
		fail "$c: the outside file's metadata changed: '$before' -> '$after'"
	fi
done

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

echo "---- protected paths hold by every route"
MARK=planted-by-a-detour-$$
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t \
	GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t HOME=$T/home
mkdir -p "$T/home"
git init -q "$T/subsrc" && git -C "$T/subsrc" commit -q --allow-empty -m sub ||
	fail "git: cannot make the submodule's source repository"

# fresh_repo [nogit]: $WS anew, a repository with one commit and a
# submodule `sub` (its git directory is .git/modules/sub); nogit: an
# empty root without .git.
fresh_repo() {
	rm -rf "$WS"
	mkdir "$WS"
	[ "${1:-}" = nogit ] && return
	(cd "$WS" && git init -q . && echo a >f && git add f &&
		git -c protocol.file.allow=always submodule add -q "$T/subsrc" sub &&
		git commit -q -m one) >/dev/null 2>&1 ||
		fail "git: cannot make the workspace repository"
}

# The host's view of every protected path: contents of the config files,
# the hooks directories' entries, and what git says.
protected_state() {
	(cd "$WS" && for f in .git/config .git/modules/sub/config; do
		printf '== %s\n' "$f"
		cat "$f" 2>&1
	done
	find .git/hooks .git/modules/sub/hooks -printf '%p %y %m %s\n' 2>&1 | sort
	for f in .git/config.worktree .git/worktrees .git/commondir .git/modules/new \
		.git/modules/sub/commondir \
		.git-aside .git/hooks-aside; do
		[ -e "$f" ] && echo "exists: $f"
	done
	git rev-parse HEAD 2>&1
	git -C sub rev-parse --git-dir 2>&1)
}

# planted: every file in the root that holds the mark.
planted() {
	grep -rlF "$MARK" "$WS" "$T/ws" 2>/dev/null | sort -u
}

# route C NAME SCRIPT: run SCRIPT (sh) in the root under config C, then
# assert that the host's protected paths are as before and nothing was
# planted.
route() {
	c=$1 what=$2
	before=$(protected_state)
	wr $c run -c "cd '$WS' || exit 99
		$3"
	after=$(protected_state)
	p=$(planted)
	if [ -n "$p" ]; then
		fail "$c: $what: planted on the host: $p"
		ls -la "$WS/.git"
		sed 's/^/  stderr: /' "$T/err"
	elif [ "$after" != "$before" ]; then
		fail "$c: $what: the host's protected paths changed"
		printf '%s\n' "$before" >"$T/before"
		printf '%s\n' "$after" >"$T/after"
		diff "$T/before" "$T/after"
		sed 's/^/  stderr: /' "$T/err"
	else
		ok "$c: $what: nothing planted, protected paths unchanged"
	fi
}

hook=post-checkout
# routes C: every route to a protected path of the repository in $WS.
routes() {
	c=$1
	route $c "direct writes" "
		echo $MARK >> .git/config
		git config core.hooksPath /tmp/$MARK
		echo $MARK > .git/hooks/$hook; chmod +x .git/hooks/$hook
		echo $MARK > .git/hooks/pre-commit.sample
		echo $MARK >> .git/modules/sub/config
		echo $MARK > .git/modules/sub/hooks/$hook
		echo $MARK > .git/config.worktree
		true"
	route $c "rename .git, recreate hooks and config" "
		mv .git .git-aside
		mkdir -p .git/hooks .git/modules/sub/hooks
		echo $MARK > .git/hooks/$hook
		echo $MARK > .git/config
		echo $MARK > .git/modules/sub/hooks/$hook
		true"
	route $c "rename .git/hooks and .git/modules, recreate them" "
		mv .git/hooks .git/hooks-aside; mkdir .git/hooks; echo $MARK > .git/hooks/$hook
		mv .git/modules .git/modules-aside; mkdir -p .git/modules/sub/hooks
		echo $MARK > .git/modules/sub/hooks/$hook
		mv .git/modules/sub .git/modules/sub-aside; mkdir -p .git/modules/sub/hooks
		echo $MARK > .git/modules/sub/hooks/$hook
		mv .git/config .git/config-aside; echo $MARK > .git/config
		true"
	route $c "delete and recreate the protected paths" "
		rm -rf .git/hooks; mkdir .git/hooks; echo $MARK > .git/hooks/$hook
		rm -f .git/config; echo $MARK > .git/config
		rm -rf .git/modules/sub/hooks; mkdir .git/modules/sub/hooks
		echo $MARK > .git/modules/sub/hooks/$hook
		rm -f .git/modules/sub/config; echo $MARK > .git/modules/sub/config
		true"
	route $c "commondir planted to take config and hooks from elsewhere" "
		mkdir -p evil/hooks; cp -r .git/objects .git/refs evil/
		printf '[core]\\n\\trepositoryformatversion = 0\\n$MARK\\n' > evil/config
		echo $MARK > evil/hooks/$hook; chmod +x evil/hooks/$hook
		echo ../evil > .git/commondir; echo ../../../evil > .git/modules/sub/commondir
		rm -rf evil; true"
	route $c "new submodule and worktree git directories" "
		mkdir -p .git/modules/new/hooks; echo $MARK > .git/modules/new/hooks/$hook
		echo $MARK > .git/modules/new/config
		mkdir -p .git/worktrees/w; echo $MARK > .git/worktrees/w/config.worktree
		true"
}
for c in bw-ww bw-ro; do
	fresh_repo
	routes $c
	# rm -rf .git takes the repository's own data with it (that is
	# writable); only what the protected paths are must survive.
	before=$(cd "$WS" && cat .git/config .git/modules/sub/config; ls -A .git/hooks .git/modules/sub/hooks)
	wr $c run -c "rm -rf .git; mkdir -p .git/hooks; echo $MARK > .git/hooks/$hook
		echo $MARK > .git/config; true"
	after=$(cd "$WS" && cat .git/config .git/modules/sub/config; ls -A .git/hooks .git/modules/sub/hooks)
	p=$(planted)
	[ -z "$p" ] && [ "$after" = "$before" ] &&
		ok "$c: rm -rf .git and recreate: the protected paths stay, nothing planted" ||
		fail "$c: rm -rf .git and recreate: planted '$p'; changed: $([ "$after" = "$before" ] || echo yes)"

	# A root with no .git yet: nothing can make one.
	fresh_repo nogit
	wr $c run -c "git init -q . 2>/dev/null; mkdir -p .git/hooks; echo $MARK > .git/hooks/$hook
		echo $MARK > .git/config; true"
	if [ -n "$(planted)" ] || [ -e "$WS/.git" ]; then
		fail "$c: no .git: the host has $(ls -A "$WS") $(planted)"
	else
		ok "$c: no .git: none made, nothing planted, no pin left behind"
	fi
done

echo "---- the same routes in a second root and in a worktree's common directory"
# A second root beside the root: its protected paths hold as the root's.
mkdir -p "$T/ws"
EXTRA="writable_roots = $T/second" config bw-ww2 workspace-write bwrap
WS=$T/second
fresh_repo
routes bw-ww2
wr bw-ww2 run -c "cd '$WS' && echo b >> f && git add f && git commit -q -m two"
[ "$rc" = 0 ] && [ "$(git -C "$WS" log --format=%s -1)" = two ] &&
	ok "bw-ww2: git commit in the second root" || fail "bw-ww2: git commit in the second root: $(cat "$T/err")"
# The root a worktree of $T/main (with a submodule): the main repository's
# git directory is granted, its protected paths held there (no .git/
# prefix); the routes run in the main repository, whose tree is not a root.
WS=$T/main
fresh_repo
rm -rf "$T/ws"
git -C "$WS" worktree add -q "$T/ws" 2>/dev/null || fail "git worktree add"
cp "$T/ws/.git" "$T/dotgit.before"
# (read-only grants the common directory nothing: the matrix checks it.)
routes bw-ww
wr bw-ww run --json -c 'echo w > w && git add w && git commit -q -m wt && git log --format=%s -1'
[ "$rc" = 0 ] && [ "$(git -C "$T/ws" log --format=%s -1)" = wt ] && [ -z "$(git -C "$T/ws" status --short)" ] &&
	ok "bw-ww: git commit in the worktree reaches the main repository" ||
	fail "bw-ww: git commit in the worktree: exit $rc: $(cat "$T/out" "$T/err")"
case $(field roots) in
*"'$T/main/.git'"*git-common-dir*) ok "bw-ww: run --json names the common directory" ;;
*) fail "bw-ww: roots $(field roots)" ;;
esac
wr bw-ww run -c "echo 'gitdir: $T/second/.git' > .git; echo $T/second/.git > $T/main/.git/worktrees/ws/commondir
	mv .git dotgit; echo $MARK > $T/main/.git/worktrees/ws/config.worktree; true"
cmp -s "$T/ws/.git" "$T/dotgit.before" && [ "$(cat "$T/main/.git/worktrees/ws/commondir")" = ../.. ] &&
	[ ! -e "$T/main/.git/worktrees/ws/config.worktree" ] && [ ! -e "$T/ws/dotgit" ] &&
	ok "bw-ww: the worktree's .git, its commondir and config.worktree hold" ||
	fail "bw-ww: the worktree's links changed: $(cat "$T/ws/.git" "$T/main/.git/worktrees/ws/commondir")"
left=$(ls -d "$T/main/.git/config.worktree" "$T/main/.git/commondir" "$T/second/.git/config.worktree" \
	"$T/ws/.git/config.worktree" 2>/dev/null)
[ -z "$left" ] && ok "no pin left in the common directory or the second root" || fail "pins left: $left"
rm -rf "$T/ws" "$T/main" "$T/second"
mkdir "$T/ws"
WS=$T/ws

echo "---- a submodule named with a slash and a nested submodule, in the root and a second root"
# Their git directories lie deeper than .git/modules/NAME: .git/modules/lib/foo
# and .git/modules/a/modules/b.  Neither hooks nor config can be planted
# there; a directory under .git/modules that is no git directory stays
# read-only as a whole, and a submodule's own modules/ too.
git init -q "$T/inner" && git -C "$T/inner" commit -q --allow-empty -m inner &&
	git init -q "$T/outer" && (cd "$T/outer" &&
	git -c protocol.file.allow=always submodule add -q "$T/inner" b && git commit -q -m outer) ||
	fail "git: cannot make the nested submodules' sources"
for c in bw-ww bw-ww2; do
	case $c in bw-ww) WS=$T/ws ;; *) WS=$T/second ;; esac
	rm -rf "$WS" && mkdir "$WS"
	(cd "$WS" && git init -q . && git -c protocol.file.allow=always submodule add -q "$T/subsrc" lib/foo &&
		git -c protocol.file.allow=always submodule add -q "$T/outer" a &&
		git -c protocol.file.allow=always submodule update -q --init --recursive &&
		git commit -q -m deep) >/dev/null 2>&1 ||
		fail "$c: git: cannot make the deep submodules"
	[ -d "$WS/.git/modules/lib/foo/hooks" ] && [ -d "$WS/.git/modules/a/modules/b/hooks" ] ||
		fail "$c: the submodules' git directories are not where this case expects them"
	deep() { (cd "$WS" && cat .git/modules/lib/foo/config .git/modules/a/modules/b/config
		find .git/modules -path '*/hooks/*' ! -name '*.sample' | sort; ls -A .git/modules .git/modules/lib .git/modules/a) 2>&1; }
	before=$(deep)
	wr $c run -c "cd '$WS' || exit 99
		echo $MARK > .git/modules/lib/foo/hooks/$hook; echo $MARK >> .git/modules/lib/foo/config
		echo $MARK > .git/modules/a/modules/b/hooks/$hook; echo $MARK >> .git/modules/a/modules/b/config
		mv .git/modules/lib .git/modules/lib2; mv .git/modules/a/modules .git/modules/a/m2
		mkdir -p .git/modules/lib/bar/hooks; echo $MARK > .git/modules/lib/bar/hooks/$hook
		rm -rf .git/modules/a/modules/b/hooks; mkdir -p .git/modules/a/modules/c/hooks
		echo $MARK > .git/modules/a/modules/c/hooks/$hook
		git -C lib/foo config core.hooksPath /tmp/$MARK; git -C a/b config core.hooksPath /tmp/$MARK
		true"
	p=$(grep -rlF "$MARK" "$WS" 2>/dev/null)
	[ -z "$p" ] && [ "$(deep)" = "$before" ] &&
		ok "$c: no hook or config line in a submodule named lib/foo or a nested submodule" ||
		fail "$c: deep submodules: planted '$p'; $(printf '%s\n' "$before" >"$T/b"; deep | diff "$T/b" -)"
	# git still works in a plain submodule of the same root.
	wr $c run -c "cd '$WS' && git -C a status --short >/dev/null && echo x >> a/x && git -C a add x &&
		git -C a commit -q -m in-a && git -C a log --format=%s -1"
	[ "$rc" = 0 ] && [ "$(tail -n 1 "$T/out")" = in-a ] && [ "$(git -C "$WS/a" log --format=%s -1)" = in-a ] &&
		ok "$c: git commit in a submodule with a nested one still works" ||
		fail "$c: git commit in submodule a: exit $rc: $(cat "$T/err")"
	left=$(cd "$WS" && find .git -name modules -empty 2>/dev/null)
	[ -z "$left" ] && ok "$c: no pin left in the submodules" || fail "$c: pins left: $left"
done
rm -rf "$T/second"
rm -rf "$T/ws" && mkdir "$T/ws"
WS=$T/ws

echo "---- git add and commit work inside workspace-write, not in read-only"
fresh_repo
wr bw-ww run -c 'echo b >> f && git add f && git commit -q -m two && git -C sub status --short && git log --format=%s -1'
[ "$rc" = 0 ] && [ "$(tail -n 1 "$T/out")" = two ] &&
	[ "$(git -C "$WS" log --format=%s -1)" = two ] && [ -z "$(git -C "$WS" status --short)" ] &&
	ok "bw-ww: git add and git commit inside; the host's repository has the commit" ||
	fail "bw-ww: git commit inside: exit $rc: $(cat "$T/out" "$T/err")"
left=$(cd "$WS" && ls -d .git/config.worktree .git/worktrees .git/commondir 2>/dev/null)
[ -z "$left" ] && ok "bw-ww: the pins bwrap made on the host are gone after the run" ||
	fail "bw-ww: pins left on the host: $left"
wr bw-ro run -c 'echo c >> f; git add f && git commit -q -m three'
[ "$rc" != 0 ] && [ "$(git -C "$WS" log --format=%s -1)" = two ] &&
	ok "bw-ro: git commit refused in read-only (exit $rc)" ||
	fail "bw-ro: git commit in read-only: exit $rc, head $(git -C "$WS" log --format=%s -1)"

echo "---- a pinned commondir: git works inside, and one left by a killed run is harmless"
fresh_repo
wr bw-ww run -c 'echo "$(cat .git/commondir)"; git rev-parse --git-common-dir; git -C sub status --short; echo c >> f; git commit -q -am three && git log --format=%s -1'
[ "$rc" = 0 ] && [ "$(head -n 1 "$T/out")" = . ] && [ "$(tail -n 1 "$T/out")" = three ] &&
	[ ! -e "$WS/.git/commondir" ] && [ "$(git -C "$WS" log --format=%s -1)" = three ] &&
	ok "bw-ww: .git/commondir reads '.', git commits inside, no commondir on the host after" ||
	fail "bw-ww: with the commondir pin: exit $rc: $(cat "$T/out" "$T/err"); host: $(ls "$WS/.git")"
n=$((TAG * 10 + 8))
mkfifo "$T/fifo"
(cd "$WS" && exec "$WARDEN" --config "$T/bw-ww.ini" run -c "echo started > $T/fifo; sleep $n") \
	>/dev/null 2>&1 </dev/null &
wpid=$!
line=$(timeout 30 cat "$T/fifo")
rm -f "$T/fifo"
# bwrap is warden's child: stop warden, kill bwrap, then warden, so that
# nothing removes the pins.
kill -STOP $wpid
for p in $(pgrep -P $wpid); do kill -KILL "$p"; done
kill -KILL $wpid
wait $wpid 2>/dev/null
i=0
while [ -n "$(leftovers "sleep $n")" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
if [ "$line" = started ] && [ "$(cat "$WS/.git/commondir" 2>/dev/null)" = . ]; then
	git -C "$WS" status --short >/dev/null 2>"$T/err" && [ "$(git -C "$WS" log --format=%s -1)" = three ] &&
		ok "a commondir left by a killed run holds '.': the host's git works on" ||
		fail "a commondir left by a killed run breaks git: $(cat "$T/err")"
else
	fail "the killed run left no commondir to look at (started: '$line')"
fi
rm -f "$WS/.git/commondir" "$WS/.git/config.worktree"
rmdir "$WS/.git/worktrees" "$WS/.git/modules/sub/commondir" 2>/dev/null
TAG=$((TAG + 1))

echo "---- warden run binds the root and the pins by descriptor"
fresh_repo
# bwrap's own process is PID 1 of the sandbox: its argv is what it was given.
wr bw-ww run -- sh -c 'tr "\0" "\n" < /proc/1/cmdline'
fdbinds=$(awk 'prev == "--bind-fd" || prev == "--ro-bind-fd" { getline d; print prev, d } { prev = $0 }' "$T/out")
case $fdbinds in
*"--bind-fd $WS
"*"--bind-fd $WS/.git
"*"--ro-bind-fd $WS/.git/config
"*"--ro-bind-fd $WS/.git/hooks"*)
	ok "bw-ww: the root, .git, .git/config and .git/hooks are bound by descriptor" ;;
*) fail "bw-ww: binds by descriptor: '$fdbinds' ($(tr '\n' ' ' <"$T/out"))" ;;
esac

echo "---- pins are removed after a timeout too"
fresh_repo
wr bw-ww run --timeout 1 -c "sleep $((TAG * 10 + 9))"
left=$(cd "$WS" && ls -d .git/config.worktree .git/worktrees 2>/dev/null)
[ "$rc" = 124 ] && [ -z "$left" ] && ok "bw-ww: timed out (124), no pin left behind" ||
	fail "bw-ww: after a timeout: exit $rc, left: $left"

echo "---- the protected key"
config bw-bad1 workspace-write bwrap "protected = .git/hoo*"
wr bw-bad1 plugins
grep -qF "protected: '.git/hoo*' may have a glob (* ? [) only before its last component" "$T/out" &&
	ok "protected: a glob in the last component is refused, named" ||
	fail "protected = .git/hoo*: $(cat "$T/out" "$T/err")"
config bw-bad2 workspace-write bwrap "protected = .git/../x"
wr bw-bad2 plugins
grep -qF "protected: '.git/../x' must be a path relative to the workspace root without '.', '..' or empty components" "$T/out" &&
	ok "protected: '..' is refused, named" ||
	fail "protected = .git/../x: $(cat "$T/out" "$T/err")"
config bw-own workspace-write bwrap "protected = notes/ .envrc"
fresh_repo nogit
wr bw-own run -c "echo $MARK > .envrc; mkdir -p notes; echo $MARK > notes/x; mv notes n2; true"
[ -z "$(planted)" ] && [ -z "$(ls -A "$WS")" ] &&
	ok "protected = notes/ .envrc: neither can be made, no pin left behind" ||
	fail "protected = notes/ .envrc: the root holds $(ls -A "$WS") $(planted)"
fresh_repo
mv "$WS/.git/hooks" "$WS/.git/hooks-real"
ln -s hooks-real "$WS/.git/hooks"
wr bw-ww run --json -- true
enf=$(field enforcement)
wr bw-ww confine --json -- true
detail=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["detail"])' "$T/out")
[ "$enf" = partial ] &&
	[ "$detail" = "protected .git/hooks/ is not held: .git/hooks is a symbolic link" ] &&
	ok "a protected path behind a symbolic link: run and confine say partial ($detail)" ||
	fail "symlinked .git/hooks: enforcement $enf: $detail"

finish

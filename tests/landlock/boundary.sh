#!/bin/sh
# boundary.sh — the Landlock backend against the detours of DESIGN §2
# "Boundary integrity", through a real `warden run` with a landlock-only
# config in both confining modes, as root: host IPC, file ioctls, and a
# command that would outlive a killed warden.  Each case checks the host
# afterwards (its IPC objects, the file's generation and ctime, what the
# killed run could still print), not only exit codes.  An unprivileged
# caller (nobody, through setpriv) gets its namespaces from a user
# namespace; the runner's fallback without namespaces (what a caller
# without root or user namespaces gets) is reached by nesting: a confined
# process holds no capability and may not make a user namespace.  With a
# second writable root and a worktree as the root, no route reaches the
# common directory's hooks or config.
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: needs root (as CI runs it): the runner makes its namespaces"
	echo "directly only with root's privilege; its unprivileged part needs setpriv from root"
	exit 77
fi
. "$top_srcdir/tests/run/lib.sh"

ACT=$top_builddir/tests/landlock/ll-act
[ -x "$ACT" ] || { echo "FAIL: $ACT was not built"; exit 1; }

# gone_within SECONDS PATTERN: waits until no process's command line
# holds PATTERN, for at most SECONDS.
gone_within() {
	end=$(( $(date +%s) + $1 ))
	while [ -n "$(leftovers "$2")" ] && [ "$(date +%s)" -lt "$end" ]; do
		sleep 0.1
	done
}

config ll-ro read-only landlock
config ll-ww workspace-write landlock
O=$T/outside/file

# Keys no other run uses: the host's IPC namespace is shared with
# everything else on the machine.
KEY=$((0x57440000 + ($$ % 4096) * 16))

# ipc_absent WHAT KEY: none of the four objects of KEY exists on the host
# (asked of the host's namespaces, and in /proc/sysvipc).
ipc_absent() {
	got=$("$ACT" ipc-exists "$2" | tr '\n' ' ')
	if [ "$got" != "shm=no sem=no msg=no mq=no " ]; then
		fail "$1: the host has: $got"
		"$ACT" ipc-remove "$2" >/dev/null
	elif awk -v k="$2" 'NR > 1 && $1 == k { f = 1 } END { exit !f }' \
		/proc/sysvipc/shm /proc/sysvipc/sem /proc/sysvipc/msg; then
		fail "$1: /proc/sysvipc lists key $2"
	else
		ok "$1: nothing of key $2 on the host"
	fi
}

echo "---- warden plugins: full read-only with namespaces, as root"
(cd "$T/ws" && "$WARDEN" --config "$T/ll-ro.ini" plugins --json) >"$T/plugins.json" 2>"$T/err"
probe() { # probe FILE MODE: "enforcement|detail" of the landlock backend
	"$PY" - "$1" "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
items = doc if isinstance(doc, list) else doc.get("plugins", [])
for p in items:
    if p.get("instance") == "landlock":
        m = p["probes"][sys.argv[2]]
        print("%s|%s" % (m["enforcement"], m["detail"]))
PY
}
case $(probe "$T/plugins.json" read-only) in
"full|"*"IPC and PID namespaces of its own"*) ok "plugins: read-only full, namespaces named" ;;
*) fail "plugins: read-only: $(probe "$T/plugins.json" read-only)" ;;
esac
case $(probe "$T/plugins.json" workspace-write) in
partial*) ok "plugins: workspace-write partial" ;;
*) fail "plugins: workspace-write: $(probe "$T/plugins.json" workspace-write)" ;;
esac

for c in ll-ro ll-ww; do
	echo "---- $c: host IPC (SysV shm, sem, msg; POSIX mqueue)"
	k=$KEY
	KEY=$((KEY + 2))
	host=$((k + 1))
	# An object of the host's the command must neither see nor remove.
	"$ACT" ipc-create $host >/dev/null || fail "$c: cannot create the host's objects"
	# Landlock refuses to open a message queue (its file system is no
	# path beneath a rule) but not to create one: mq_open(O_CREAT) made
	# the host's queue before it failed.
	wr $c run -- "$ACT" ipc-create $k
	if [ "$(grep -c -e '^shmget: ok$' -e '^semget: ok$' -e '^msgget: ok$' "$T/out")" = 3 ] &&
		grep -q -x -e 'mq_open: ok' -e 'mq_open: Permission denied' "$T/out"; then
		ok "$c: the command made its objects (in a namespace of its own)"
	else
		fail "$c: ipc-create inside: exit $rc: $(tr '\n' ' ' <"$T/out")"
	fi
	ipc_absent "$c: after the run" $k
	wr $c run -- "$ACT" ipc-remove $host
	[ "$(grep -c ': ok$' "$T/out")" = 0 ] ||
		fail "$c: the command removed a host object: $(tr '\n' ' ' <"$T/out")"
	wr $c run -- "$ACT" ipc-exists $host
	[ "$(tr '\n' ' ' <"$T/out")" = "shm=no sem=no msg=no mq=no " ] ||
		fail "$c: the command sees the host's objects: $(tr '\n' ' ' <"$T/out")"
	got=$("$ACT" ipc-exists $host | tr '\n' ' ')
	if [ "$got" = "shm=yes sem=yes msg=yes mq=yes " ]; then
		ok "$c: the host's objects are untouched and unseen"
	else
		fail "$c: the host's objects after the run: $got"
	fi
	"$ACT" ipc-remove $host >/dev/null

	echo "---- $c: file ioctls"
	echo original >"$O"
	echo ctl >"$T/ctl"
	# Control: unconfined, the same request works on this file system.
	g0=$("$ACT" getversion "$T/ctl")
	if ! "$ACT" setversion "$T/ctl" >/dev/null || [ "$("$ACT" getversion "$T/ctl")" != 4242 ]; then
		fail "$c: FS_IOC_SETVERSION does not work unconfined here (generation $g0): the case proves nothing"
	fi
	gen=$("$ACT" getversion "$O")
	ct=$(stat -c %z "$O")
	sleep 0.01
	for how in "" hi ext4; do
		wr $c run -- "$ACT" setversion "$O" $how
		if grep -q 'setversion: Permission denied' "$T/out"; then
			ok "$c: SETVERSION${how:+ ($how)} on a read-only descriptor refused"
		else
			fail "$c: SETVERSION${how:+ ($how)}: exit $rc: $(cat "$T/out" "$T/err")"
		fi
	done
	[ "$("$ACT" getversion "$O")" = "$gen" ] && [ "$(stat -c %z "$O")" = "$ct" ] &&
		ok "$c: the outside file's generation ($gen) and ctime are unchanged" ||
		fail "$c: generation $gen -> $("$ACT" getversion "$O"), ctime $ct -> $(stat -c %z "$O")"
	wr $c run -- "$ACT" getversion "$O"
	[ "$rc" = 0 ] && [ "$(cat "$T/out")" = "$gen" ] &&
		ok "$c: FS_IOC_GETVERSION (allowed) reads it" ||
		fail "$c: getversion inside: exit $rc: $(cat "$T/out" "$T/err")"
	"$ACT" fiogetown | grep -q 'fiogetown: ok' ||
		fail "$c: FIOGETOWN does not work unconfined: the case proves nothing"
	wr $c run -- "$ACT" fiogetown
	grep -q 'fiogetown: Inappropriate ioctl for device' "$T/out" &&
		ok "$c: a request off the allowlist gets ENOTTY" ||
		fail "$c: FIOGETOWN: $(cat "$T/out" "$T/err")"

	echo "---- $c: SIGKILL to warden run kills the command and all it started"
	s=$(( ($$ + ${#c}) % 90 + 10 ))
	p="sleep 2.$s"
	sid=$(cd "$T/ws" && "$WARDEN" --config "$T/$c.ini" session new | tail -n 1)
	# The last loop's output is gone before this run starts: the shell
	# truncates kill.out only when the background job gets to it, and a
	# stale "started" line would have warden killed before its start is
	# logged.
	rm -f "$T/kill.out"
	(cd "$T/ws" && exec "$WARDEN" --config "$T/$c.ini" --session "$sid" run -c "
		($p; echo orphan-$s) &
		setsid sh -c '$p; echo setsid-$s' &
		sh -c '($p; echo double-$s) &'
		echo started-$s; $p; echo marker-$s") >"$T/kill.out" 2>"$T/kill.err" </dev/null &
	wpid=$!
	i=0
	while ! grep -q "started-$s" "$T/kill.out" && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ $i -lt 100 ] || fail "$c: the command never started: $(cat "$T/kill.err")"
	kill -KILL $wpid
	wait $wpid
	# What outlived warden would print its marker when its sleep ends:
	# wait until nothing of the run is left (at most 3 s, longer than
	# the sleeps), then look.
	gone_within 3 "$p"
	if grep -q -e "marker-$s" -e "orphan-$s" -e "setsid-$s" -e "double-$s" "$T/kill.out"; then
		fail "$c: something outlived warden: $(tr '\n' ' ' <"$T/kill.out")"
	else
		ok "$c: no marker after warden's death (command, child, setsid, double fork)"
	fi
	left=$(leftovers "$p")
	[ -z "$left" ] && ok "$c: nothing left running" || fail "$c: left running: $left"
	# The killed run is in the log: its start, without an end.
	"$WARDEN" --config "$T/$c.ini" session show "$sid" --json >"$T/ev.json" 2>"$T/err" ||
		fail "$c: the log of the killed run does not replay: $(cat "$T/err")"
	"$PY" - "$T/ev.json" "started-$s" <<'PY' && ok "$c: the killed run's start is in the log" ||
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["events"] if e["type"] == "sandbox/run"]
assert len(ev) == 1, ev
e = ev[0]
assert e["phase"] == "start" and e["backend"] == "landlock", e
assert e["argv"][:2] == ["bash", "-c"] and sys.argv[2] in e["argv"][2], e
PY
		fail "$c: no start event for the killed run: $(cat "$T/ev.json")"
	(cd "$T/ws" && "$WARDEN" --config "$T/$c.ini" --session "$sid" run -- true) ||
		fail "$c: the session cannot run after the killed run"
done

echo "---- an unprivileged caller: the namespaces come from a user namespace"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
far=$(unreachable_by_others)
if [ -n "$far" ]; then
	echo "note: SKIP (unprivileged part): nobody cannot search $far, above the build tree; tests/unpriv.sh runs warden as a user from a copy"
elif [ "$(cat /proc/sys/user/max_user_namespaces)" -gt 0 ]; then
	got=$(as_nobody "$RUNNER" --probe 2>&1)
	case $got in
	"abi="[3-9]" enforcement=full namespaces=yes") ok "probe as nobody: $got" ;;
	*) fail "probe as nobody: '$got', want enforcement=full namespaces=yes" ;;
	esac
	k=$KEY
	KEY=$((KEY + 1))
	as_nobody "$RUNNER" -- "$ACT" ipc-create $k >"$T/out" 2>&1
	[ "$(grep -c -e '^shmget: ok$' -e '^semget: ok$' -e '^msgget: ok$' "$T/out")" = 3 ] ||
		fail "as nobody: ipc-create inside: $(tr '\n' ' ' <"$T/out")"
	ipc_absent "as nobody" $k
	s=$(( $$ % 90 + 10 ))
	p="sleep 3.$s"
	# setpriv execs the runner: $! is the runner.  No stale kill.out.
	rm -f "$T/kill.out"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$RUNNER" -- sh -c "($p; echo orphan-$s) & setsid sh -c '$p; echo setsid-$s' &
		echo started-$s; $p; echo marker-$s" >"$T/kill.out" 2>&1 </dev/null &
	rpid=$!
	i=0
	while ! grep -q "started-$s" "$T/kill.out" && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	kill -KILL $rpid
	wait $rpid
	gone_within 4 "$p"
	if grep -q -e "marker-$s" -e "orphan-$s" -e "setsid-$s" "$T/kill.out" ||
		[ -n "$(leftovers "$p")" ]; then
		fail "as nobody: something outlived the runner: $(tr '\n' ' ' <"$T/kill.out") $(leftovers "$p")"
	else
		ok "as nobody: SIGKILL of the runner leaves nothing (command, child, setsid)"
	fi
else
	echo "NOTE: user.max_user_namespaces is 0 here: the unprivileged route"
	echo "      is the fallback below"
fi

echo "---- without namespaces (nested: no capability, no user namespace)"
nested=$("$RUNNER" -- "$RUNNER" --probe)
case $nested in
"abi="[3-9]" enforcement=partial namespaces=no") ok "runner probe: $nested" ;;
*) fail "nested runner probe: '$nested', want enforcement=partial namespaces=no" ;;
esac
"$RUNNER" -- "$RUNNER" -- true 2>"$T/err"
rc=$?
[ $rc = 125 ] && grep -q '^warden-landlock-run: fatal: namespaces: ' "$T/err" &&
	ok "a run promised namespaces fails when it cannot have them" ||
	fail "nested run without --no-namespaces: exit $rc: $(cat "$T/err")"
(cd "$T/ws" && "$RUNNER" --rw "$T" -- "$WARDEN" --config "$T/ll-ro.ini" plugins --json) \
	>"$T/plugins.json" 2>"$T/err"
case $(probe "$T/plugins.json" read-only) in
"partial|"*"no PID namespace: detached processes can outlive warden"*)
	ok "plugins without namespaces: read-only partial, named" ;;
*) fail "plugins without namespaces: $(probe "$T/plugins.json" read-only) $(cat "$T/err")" ;;
esac
k=$KEY
(cd "$T/ws" && "$RUNNER" --rw "$T" -- "$WARDEN" --config "$T/ll-ww.ini" run --json -- "$ACT" ipc-create $k) \
	>"$T/out" 2>"$T/err"
rc=$?
if [ "$(grep -c ': Operation not permitted$' "$T/out")" = 4 ] &&
	[ "$(field enforcement)" = partial ]; then
	ok "warden run without namespaces: the four IPC calls refused (EPERM), partial"
else
	fail "warden run without namespaces: exit $rc: $(cat "$T/out" "$T/err")"
fi
ipc_absent "without namespaces" $k


echo "---- protected paths and file metadata, through warden run"
# Read-only: every route to a protected path fails and the host's .git is
# as before; every metadata change of an outside file is refused.
# Workspace-write: Landlock cannot take a right back below the writable
# root, nor tell a chmod outside the root from one inside it: `warden
# plugins` and the run say partial and name both (the declared gaps).
MARK=planted-by-a-detour-$$
export GIT_CONFIG_NOSYSTEM=1 HOME=$T/home
mkdir -p "$T/home"
# gitstate: the host's view of the root's .git (protected paths, HEAD).
gitstate() {
	(cd "$T/ws" && find .git -path .git/objects -prune -o -printf '%p %y %m %s\n' | sort
	 cat .git/config .git/HEAD; ls -A .git/hooks) 2>&1
}
planted() { grep -rlF "$MARK" "$T/ws" 2>/dev/null; }
# meta FILE: generation, mode, owner, times, inode flags, xattr names, contents.
meta() {
	printf '%s %s %s|%s|%s\n' "$("$ACT" getversion "$1")" "$(stat -c '%a %u:%g %Y %Z' "$1")" \
		"$(lsattr -d "$1" 2>&1 | cut -d' ' -f1)" "$("$ACT" listxattr "$1" | tr '\n' ,)" \
		"$(sha256sum <"$1")"
}
METACMD="$ACT chattr $O; $ACT setxattr $O; chmod 777 $O; chown 1:1 $O; touch -d 2020-01-01 $O; true"
rm -rf "$T/ws/.git"
git init -q "$T/ws" || fail "git init"
echo original >"$O"
before=$(gitstate)
for route in \
	"echo $MARK >> .git/config; echo $MARK > .git/hooks/post-checkout; chmod +x .git/hooks/post-checkout" \
	"mv .git .git-aside; mkdir -p .git/hooks; echo $MARK > .git/hooks/post-checkout; echo $MARK > .git/config" \
	"rm -rf .git/hooks; mkdir .git/hooks; echo $MARK > .git/hooks/post-checkout" \
	"rm -f .git/config; echo $MARK > .git/config" \
	"mkdir -p .git/modules/x/hooks; echo $MARK > .git/modules/x/hooks/post-checkout"; do
	wr ll-ro run --json -c "$route; true"
	if [ "$(field enforcement)" != full ]; then
		fail "ll-ro: '$route': enforcement $(field enforcement)"
	elif [ -n "$(planted)" ] || [ "$(gitstate)" != "$before" ] || [ -e "$T/ws/.git-aside" ]; then
		fail "ll-ro: '$route': the host's .git changed: $(planted)"
	else
		ok "ll-ro: '$route': refused, the host's .git unchanged, nothing planted"
	fi
done
rm -rf "$T/ws/.git"
wr ll-ro run -c "git init -q . 2>/dev/null; mkdir -p .git/hooks; echo $MARK > .git/hooks/post-checkout; true"
[ ! -e "$T/ws/.git" ] && [ -z "$(planted)" ] && ok "ll-ro: no .git: none made" ||
	fail "ll-ro: no .git: the host has $(ls -A "$T/ws")"
mb=$(meta "$O")
sleep 0.01
wr ll-ro run --json -c "$METACMD"
[ "$(meta "$O")" = "$mb" ] && [ "$(field enforcement)" = full ] &&
	ok "ll-ro: chattr, setxattr, chmod, chown, utime of an outside file refused: unchanged" ||
	fail "ll-ro: the outside file's metadata changed: '$mb' -> '$(meta "$O")'"

(cd "$T/ws" && "$WARDEN" --config "$T/ll-ww.ini" plugins --json) >"$T/plugins.json" 2>"$T/err"
case $(probe "$T/plugins.json" workspace-write) in
"partial|"*"metadata changes (chmod, chown, utime, xattr) outside the root are not governed"*".git/hooks and .git/config stay writable"*)
	ok "plugins: workspace-write partial, names the metadata and protected-path gaps" ;;
*) fail "plugins: workspace-write: $(probe "$T/plugins.json" workspace-write)" ;;
esac
git init -q "$T/ws" || fail "git init"
wr ll-ww run --json -c "echo $MARK >> .git/config; true"
[ "$(field enforcement)" = partial ] && ok "ll-ww: a run writing .git/config is reported partial" ||
	fail "ll-ww: a run writing .git/config: enforcement $(field enforcement)"
[ -n "$(planted)" ] && echo "NOTE: ll-ww: .git/config was written (the declared gap)"
rm -rf "$T/ws/.git"
mb=$(meta "$O")
sleep 0.01
wr ll-ww run --json -c "$METACMD"
[ "$(field enforcement)" = partial ] && ok "ll-ww: a run changing metadata outside is reported partial" ||
	fail "ll-ww: metadata run: enforcement $(field enforcement)"
[ "$(meta "$O")" != "$mb" ] && echo "NOTE: ll-ww: the outside file's metadata changed (the declared gap)"
wr ll-ww run -- "$ACT" chattr "$O"
grep -q 'chattr: ok' "$T/out" && fail "ll-ww: FS_IOC_SETFLAGS on an outside file succeeded" ||
	ok "ll-ww: inode flags (an ioctl) stay refused even so"
chmod 644 "$O" 2>/dev/null; chown 0:0 "$O" 2>/dev/null

echo "---- a second root and a worktree root: the common directory's hooks and config"
# The root a worktree of $T/main, $T/second beside it: of the common
# directory Landlock grants objects, refs, logs and worktrees/* only, so
# every route to its hooks and config stays refused in workspace-write
# (read-only grants it nothing: the matrix checks that), and inode flags
# and the generation of its files cannot change (an ioctl).
GIT="git -c user.email=t@example.org -c user.name=t -c init.defaultBranch=main"
rm -rf "$T/ws"
mkdir -p "$T/second"
$GIT init -q "$T/main" && $GIT -C "$T/main" commit -q --allow-empty -m init &&
	$GIT -C "$T/main" worktree add -q "$T/ws" 2>/dev/null || fail "git: the worktree"
EXTRA="writable_roots = $T/second" config ll-ww2 workspace-write landlock
mainstate() {
	(cd "$T/main" && find .git -path .git/objects -prune -o -path .git/logs -prune -o \
		-path .git/refs -prune -o -path .git/worktrees -prune -o -printf '%p %y %m %s\n' | sort
	 cat .git/config; ls -A .git/hooks; "$ACT" getversion .git/config; lsattr -d .git/config 2>&1 | cut -d' ' -f1) 2>&1
}
before=$(mainstate)
for c in ll-ww2; do
	for route in \
		"echo $MARK >> .git/config; echo $MARK > .git/hooks/post-checkout; chmod +x .git/hooks/post-checkout" \
		"mv .git .git-aside; mkdir -p .git/hooks; echo $MARK > .git/hooks/post-checkout; echo $MARK > .git/config" \
		"mv .git/hooks .git/h; mkdir .git/hooks; echo $MARK > .git/hooks/post-checkout" \
		"rm -rf .git/hooks; mkdir .git/hooks; echo $MARK > .git/hooks/post-checkout" \
		"rm -f .git/config; echo $MARK > .git/config; echo . > .git/commondir" \
		"mkdir -p .git/modules/x/hooks; echo $MARK > .git/modules/x/hooks/post-checkout" \
		"ln -s $T/main/.git/hooks $T/second/h; echo $MARK > $T/second/h/post-checkout; ln $T/main/.git/config $T/second/c; echo $MARK >> $T/second/c" \
		"cd $T/ws && git config core.hooksPath $T/second && git -C $T/main config core.hooksPath $T/second" \
		"$ACT chattr .git/config; $ACT setversion .git/config"; do
		wr $c run --json -c "cd '$T/main' || exit 99; $route; true"
		if [ -n "$(grep -rlF "$MARK" "$T/main" 2>/dev/null)" ] || [ "$(mainstate)" != "$before" ] ||
		   [ -e "$T/main/.git-aside" ]; then
			fail "$c: '$route': the common directory changed"
			printf '%s\n' "$before" >"$T/before"; mainstate | diff "$T/before" -
		else
			ok "$c: '$route': refused, the common directory unchanged"
		fi
		rm -f "$T/second/h" "$T/second/c"
	done
done
wr ll-ww2 run --json -c "$GIT add -A && $GIT commit -q --allow-empty -m ll && echo s > '$T/second/s'"
[ "$rc" = 0 ] && [ "$(git -C "$T/ws" log --format=%s -1)" = ll ] && [ "$(cat "$T/second/s")" = s ] &&
	ok "ll-ww2: git commit in the worktree and a write in the second root" ||
	fail "ll-ww2: commit or second root: exit $rc: $(cat "$T/err")"
[ "$(mainstate)" = "$before" ] || fail "ll-ww2: the commit changed the common directory's protected paths"

finish

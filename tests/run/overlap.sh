#!/bin/sh
# overlap.sh — two bwrap runs on one workspace root at the same time.  A
# protected path that does not exist is pinned: bwrap makes a mount point
# for it on the host, and the run that made it removes it when it ends.
# A run that started meanwhile took the pin for an existing path and
# binds it read-only; had the first run removed the pin, the kernel would
# have detached the second run's mount, and its command could then write
# the protected path on the host (git's commondir pointed at a directory
# of its own, a hook, a whole .git in a directory that had none), which
# the user's next git command obeys.
#
# For each kind of root (a git repository, whose commondir is pinned; one
# without .git/hooks; a directory that is no repository, whose .git is
# pinned): run A sleeps; run B, started while A's pins exist, tries to
# plant the protected path again and again until well after A has ended
# (the test tells B when A has ended: a file in the root, made once
# `warden run` A has exited, so after A's cleanup).  Nothing may be
# planted, on the host, afterwards.  B is started both by `warden run` and
# from the argv `warden confine` prints.  The same for a git repository
# that is a writable root beside the root (writable_roots): each run holds
# a lock on every root, and A leaves its pins there to B too.  The eight
# cases run side by side, each in roots of its own.
. "${top_srcdir:?run by make check}/tests/run/lib.sh"

EVIL='#!/bin/sh
touch "$0.ran"'

# kind ROOT: makes the root of a kind; prints the pin to wait for.
make_root() {
	rm -rf "$2"
	mkdir "$2"
	case $1 in
	git) git init -q "$2"; echo "$2/.git/commondir" ;;
	nohooks) git init -q "$2"; rm -rf "$2/.git/hooks"; echo "$2/.git/hooks" ;;
	plain) echo "$2/.git" ;;
	esac
}

# The attack B runs: tries 0.1 s apart, until A has ended (the file
# a-ended appears in the root; A ends after about 2 s), and then 20 more,
# for 2 s after A's cleanup.  At most 300 tries before A's end.
ATTACK='try() {
	{ echo /tmp > .git/commondir; } 2>/dev/null && echo "planted commondir $i"
	{ mkdir -p .git/hooks && printf "%s\n" "$EVIL" > .git/hooks/pre-commit; } 2>/dev/null &&
		echo "planted hook $i"
	{ printf "[core]\n\tfsmonitor = touch $PWD/fsmonitor.ran\n" > .git/config; } 2>/dev/null &&
		[ ! -s .git/HEAD ] && echo "planted config $i"
	sleep 0.1
}
{ echo >> .git/config; } 2>/dev/null || echo "refused at first"
i=0
while [ ! -e a-ended ] && [ $i -lt 300 ]; do i=$((i + 1)); try; done
[ -e a-ended ] && echo "saw A end after $i tries"
for j in $(seq 20); do i=$((i + 1)); try; done
exit 0'

# One case: KIND of root, B started by HOW.  The eight cases run side by
# side (each its own roots and files): each waits on its runs, not on the
# others.
one_case() {
	kind=$1 how=$2
	w="$kind root, B by $how"
	R=$T/r-$kind-$how
	more=
	if [ "$kind" = second ]; then
		# The root is a plain directory; the repository attacked is
		# the root beside it, D.
		mkdir -p "$R"
		D=$T/s-$how
		pin=$(make_root git "$D")
		more="writable_roots = $D"
	else
		pin=$(make_root "$kind" "$R")
		D=$R
	fi
	head0=$(cat "$D/.git/HEAD" 2>/dev/null)
	cfg0=$(cat "$D/.git/config" 2>/dev/null)
	{
		printf '[warden]\ndefault_mode = workspace-write\nstate_dir = %s\nworkspace_root = %s\n%s\n' \
			"$T/state" "$R" "$more"
		printf '[backend bwrap]\nplugin = %s\nlauncher = %s\n' "$BWRAP_SO" \
			"$top_builddir/plugins/bwrap/warden-bwrap-exec"
	} >"$T/o-$kind-$how.ini"
	(cd "$R" && "$WARDEN" --config "$T/o-$kind-$how.ini" run -- sleep 2) >"$T/a-$kind-$how.out" 2>&1 &
	apid=$!
	i=0
	while [ ! -e "$pin" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	[ -e "$pin" ] || fail "$w: run A made no pin at $pin"
	if [ "$how" = run ]; then
		(cd "$R" && EVIL=$EVIL "$WARDEN" --config "$T/o-$kind-$how.ini" run -- /bin/sh -c "cd '$D' || exit 1; $ATTACK") \
			>"$T/b-$kind-$how.out" 2>&1 </dev/null &
	else
		(cd "$R" && "$WARDEN" --config "$T/o-$kind-$how.ini" confine -0 -- /bin/sh -c "cd '$D' || exit 1; $ATTACK") >"$T/argv-$kind-$how" &&
			(cd "$R" && EVIL=$EVIL xargs -0 sh -c 'exec "$@"' sh <"$T/argv-$kind-$how") >"$T/b-$kind-$how.out" 2>&1 </dev/null &
	fi
	bpid=$!
	wait $apid
	: >"$D/a-ended"
	wait $bpid
	# The premise: A ended while B ran (B saw a-ended, made after A's end).
	grep -q "^saw A end" "$T/b-$kind-$how.out" || fail "$w: premise: run B did not see run A end"
	rm -f "$D/a-ended"
	if grep -q planted "$T/b-$kind-$how.out"; then
		fail "$w: B planted: $(grep planted "$T/b-$kind-$how.out" | head -n 3 | tr '\n' ' ')"
	else
		ok "$w: every write of B was refused (A ended while B ran)"
	fi
	grep -q "^refused at first" "$T/b-$kind-$how.out" ||
		fail "$w: B's first write to .git/config was not refused: $(head -n 3 "$T/b-$kind-$how.out")"
	# The host, afterwards.
	cd_ok=yes
	if [ -e "$D/.git/commondir" ] && [ "$(cat "$D/.git/commondir")" != . ]; then
		fail "$w: the host's .git/commondir holds '$(cat "$D/.git/commondir")'"
		cd_ok=no
	fi
	if [ -e "$D/.git/hooks/pre-commit" ]; then
		fail "$w: a hook was planted on the host"
		cd_ok=no
	fi
	if [ "$(cat "$D/.git/config" 2>/dev/null)" != "$cfg0" ] ||
	   [ "$(cat "$D/.git/HEAD" 2>/dev/null)" != "$head0" ]; then
		fail "$w: the host's .git/config or HEAD changed"
		cd_ok=no
	fi
	[ "$cd_ok" = yes ] && ok "$w: the host's .git is as it was (or holds only empty pins)"
	# What is left of pins is empty and harmless; git still works.
	if [ "$kind" != plain ]; then
		if (cd "$D" && git status --porcelain >/dev/null 2>&1); then
			ok "$w: git still works in the root"
		else
			fail "$w: git fails in the root: $(cd "$D" && git status 2>&1 | head -n 1)"
		fi
	fi
}

pids=
for kind in git nohooks plain second; do
	for how in run confine; do
		( failures=0; one_case "$kind" "$how"; exit "$failures" ) >"$T/case-$kind-$how.log" 2>&1 &
		pids="$pids $!"
	done
done
for p in $pids; do
	wait "$p" || failures=$((failures + $?))
done
for kind in git nohooks plain second; do
	for how in run confine; do
		cat "$T/case-$kind-$how.log"
	done
done
cp "$T/o-second-confine.ini" "$T/o.ini"

# With no other run, a run's pins are removed when it ends.
R=$T/r-alone
make_root plain "$R" >/dev/null
sed "s#^workspace_root = .*#workspace_root = $R#" "$T/o.ini" >"$T/alone.ini"
(cd "$R" && "$WARDEN" --config "$T/alone.ini" run -- /bin/true) >"$T/out" 2>&1
if [ -e "$R/.git" ]; then
	fail "a lone run left its pin $R/.git"
else
	ok "a lone run removes its pins"
fi
finish

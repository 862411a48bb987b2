#!/bin/sh
# leftover.sh — an empty .git in a root that is no repository: the pin a
# run left behind (killed with SIGKILL, or kept while another run on the
# root held its lock), or one made by hand.  A later run must not fill it
# with a repository of its own (HEAD, objects, refs and a rebase whose
# next step is an `exec` line, which the user's `git rebase --continue`
# would run), nor move it aside and make a new one in its place:
# an empty directory on the way to the protected paths is bound
# read-only.  Checked on the host afterwards: .git is still empty, and git
# finds no repository there.  Three ways to the empty .git: made by hand,
# left by a SIGKILLed launcher, and a run that overlaps one that pinned it.
. "${top_srcdir:?run by make check}/tests/run/lib.sh"

command -v git >/dev/null || { echo "FAIL: git is not installed (the tests run it)"; exit 1; }
FILL='for i in $(seq 30); do
	{ mkdir -p .git/objects .git/refs/heads .git/rebase-merge &&
	  echo "ref: refs/heads/main" > .git/HEAD &&
	  echo "exec touch $PWD/rebase.ran" > .git/rebase-merge/git-rebase-todo; } 2>/dev/null &&
		echo "filled $i"
	git init -q . 2>/dev/null && echo "git init $i"
	{ mv .git .git-aside && git init -q .; } 2>/dev/null && echo "moved aside $i"
	sleep 0.1
done
exit 0'

# check WHAT ROOT: nothing of a repository on the host.
check() {
	if [ -n "$(ls -A "$2/.git" 2>/dev/null)" ] || GIT_CEILING_DIRECTORIES=$T git -C "$2" rev-parse --git-dir >/dev/null 2>&1; then
		fail "$1: the host's .git holds: $(ls -A "$2/.git" | tr '\n' ' ')"
	else
		ok "$1: no repository on the host ($(ls -A "$2" | tr '\n' ' '))"
	fi
	grep -q 'filled\|git init\|moved aside' "$T/b.out" &&
		fail "$1: the command wrote into .git: $(grep -m 2 'filled\|git init\|moved aside' "$T/b.out" | tr '\n' ' ')"
}

# fill WHAT ROOT: the command tries to fill ROOT's empty .git; then check.
fill() {
	(cd "$2" && "$WARDEN" --config "$T/l.ini" run -- sh -c "$FILL") >"$T/b.out" 2>&1 </dev/null
	check "$1" "$2"
}

conf() { # conf ROOT
	printf '[warden]\ndefault_mode = workspace-write\nstate_dir = %s\nworkspace_root = %s\n[backend bwrap]\nplugin = %s\nlauncher = %s\n' \
		"$T/state" "$1" "$BWRAP_SO" "$top_builddir/plugins/bwrap/warden-bwrap-exec" >"$T/l.ini"
}

echo "---- an empty .git made by hand"
R=$T/r-hand
mkdir -p "$R/.git"
conf "$R"
fill "made by hand" "$R"

echo "---- the pin of a launcher killed with SIGKILL"
R=$T/r-killed
mkdir "$R"
conf "$R"
SLEEP="sleep 30.$TAG"
(cd "$R" && "$WARDEN" --config "$T/l.ini" confine -0 -- $SLEEP) >"$T/argv"
(cd "$R" && "$PY" -c '
import subprocess, sys, time, os
argv = open(sys.argv[1], "rb").read().split(b"\0")[:-1]
p = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
for _ in range(100):
    if os.path.exists(".git"): break
    time.sleep(0.05)
time.sleep(0.3); p.kill(); p.wait()' "$T/argv")
i=0
while pgrep -f "$SLEEP" >/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -d "$R/.git" ] || fail "the killed launcher left no pin to look at"
fill "left by a killed launcher" "$R"

echo "---- a run that overlaps the one that pinned .git"
R=$T/r-overlap
mkdir "$R"
conf "$R"
(cd "$R" && "$WARDEN" --config "$T/l.ini" run -- sleep 2) >"$T/a.out" 2>&1 &
apid=$!
i=0
while [ ! -e "$R/.git" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -e "$R/.git" ] || fail "run A made no pin"
fill "overlapping runs" "$R"
wait $apid
check "overlapping runs, after both" "$R"
[ ! -e "$R/rebase.ran" ] || fail "a rebase exec ran"

finish

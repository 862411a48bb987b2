#!/bin/sh
# termrace.sh — a run ended by a signal or its timeout while its command
# races to plant a repository where the pin of a missing .git is.  The pin
# is removed after the run; removed while something of the sandbox still
# ran, it would detach the pin's mount under that process, and a rename
# of the command's own repository onto .git would land on the host (the
# user's next `git status` there runs the command's fsmonitor).  The
# command prepares ./fakegit (core.fsmonitor = a script of its own) and
# four processes that ignore SIGTERM, INT and HUP rename it to .git in a
# loop.  Ended three ways: SIGTERM to the launcher of the argv `warden
# confine` prints (as a harness's timeout does), SIGTERM to `warden run`,
# and `warden run --timeout`.  Afterwards the host runs `git status` in
# the root: the fsmonitor must not have run, and .git must not exist.
. "${top_srcdir:?run by make check}/tests/run/lib.sh"

command -v git >/dev/null || { echo "FAIL: git is not installed (the tests run it)"; exit 1; }
CMD='trap "" TERM INT HUP
git init -q fakegit 2>/dev/null || exit 9
mv fakegit/.git g.tmp && rmdir fakegit && mv g.tmp fakegit
printf "#!/bin/sh\ntouch \"%s/fsmonitor.ran\"\n" "$PWD" > fm.sh; chmod +x fm.sh
git --git-dir=fakegit config core.fsmonitor "$PWD/fm.sh"
echo ready
for j in 1 2 3 4; do python3 -c "
import os, signal  # termrace-'"$TAG"'
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP): signal.signal(s, signal.SIG_IGN)
while True:
    try:
        os.rename(\"fakegit\", \".git\"); print(\"PLANTED\", flush=True); break
    except OSError: pass
" & done; wait'

for how in confine-term confine-term confine-term confine-term run-term run-timeout; do
	R=$T/r-$how-$$-$(date +%s%N)
	mkdir "$R"
	printf '[warden]\ndefault_mode = workspace-write\nstate_dir = %s\nworkspace_root = %s\n[backend bwrap]\nplugin = %s\nlauncher = %s\n' \
		"$T/state" "$R" "$BWRAP_SO" "$top_builddir/plugins/bwrap/warden-bwrap-exec" >"$T/c.ini"
	case $how in
	confine-term)
		(cd "$R" && "$WARDEN" --config "$T/c.ini" confine -0 -- sh -c "$CMD") >"$T/argv"
		(cd "$R" && "$PY" -c '
import subprocess, sys, time
argv = open(sys.argv[1], "rb").read().split(b"\0")[:-1]
p = subprocess.Popen(argv, stdout=open(sys.argv[2], "w"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
time.sleep(2); p.terminate(); p.wait()' "$T/argv" "$T/o") ;;
	run-term)
		(cd "$R" && exec "$WARDEN" --config "$T/c.ini" run -- sh -c "$CMD") >"$T/o" 2>&1 </dev/null &
		p=$!
		sleep 2
		kill -TERM $p
		wait $p ;;
	run-timeout)
		(cd "$R" && exec "$WARDEN" --config "$T/c.ini" run --timeout 2 -- sh -c "$CMD") >"$T/o" 2>&1 </dev/null ;;
	esac
	sleep 0.3
	grep -q ready "$T/o" || fail "$how: the command did not get ready: $(head -c 300 "$T/o")"
	(cd "$R" && git status >/dev/null 2>&1)
	if [ -e "$R/fsmonitor.ran" ] || [ -e "$R/.git" ]; then
		fail "$how: the command's repository is the host's .git ($(ls -A "$R" | tr '\n' ' '))"
	else
		ok "$how: nothing planted; the pin is gone ($(ls -A "$R" | tr '\n' ' '))"
	fi
	# This test's processes only (its tag): another suite may run beside it.
	[ -z "$(pgrep -f "termrace-$TAG")" ] || fail "$how: the command's processes outlived the run"
done
# The launcher as its caller may start it: exec'd by a process with a job
# of its own (the launcher reaps what bwrap leaves behind, and only that),
# and with SIGCHLD ignored (inherited through exec: the launcher must
# still see bwrap and the sandbox end).  Either way the command's status
# is the launcher's and the pin is gone after.
R=$T/r-caller
mkdir "$R"
printf '[warden]\ndefault_mode = workspace-write\nstate_dir = %s\nworkspace_root = %s\n[backend bwrap]\nplugin = %s\nlauncher = %s\n' \
	"$T/state" "$R" "$BWRAP_SO" "$top_builddir/plugins/bwrap/warden-bwrap-exec" >"$T/c.ini"
(cd "$R" && "$WARDEN" --config "$T/c.ini" confine -0 -- sh -c 'exit 3') >"$T/argv"
(cd "$R" && exec "$PY" -c '
import os, sys, subprocess
p = subprocess.Popen(["sleep", "300"]); open(sys.argv[2], "w").write(str(p.pid))
argv = open(sys.argv[1], "rb").read().split(b"\0")[:-1]
os.execv(argv[0], argv)' "$T/argv" "$T/bg")
rc=$?
bg=$(cat "$T/bg")
if kill -0 "$bg" 2>/dev/null; then
	ok "the launcher left its caller's own job ($bg) alone"
	kill "$bg"
else
	fail "the launcher killed its caller's own job ($bg)"
fi
[ $rc = 3 ] && [ ! -e "$R/.git" ] && ok "a caller with a job of its own: exit 3, the pin gone" ||
	fail "a caller with a job of its own: exit $rc, want 3; $(ls -A "$R")"
(cd "$R" && exec timeout 20 "$PY" -c '
import signal, os, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
argv = open(sys.argv[1], "rb").read().split(b"\0")[:-1]
os.execv(argv[0], argv)' "$T/argv")
rc=$?
[ $rc = 3 ] && [ ! -e "$R/.git" ] && ok "a caller that ignores SIGCHLD: exit 3, the pin gone" ||
	fail "a caller that ignores SIGCHLD: exit $rc (124: it hung), want 3; $(ls -A "$R")"

finish

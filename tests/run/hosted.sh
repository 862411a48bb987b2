#!/bin/sh
# hosted.sh — `warden run` spawns bwrap itself and does its launcher's
# part (plugin ABI: spawn_env, finish).  Seen from the host while a
# workspace-write run sleeps in a root that is no repository (its .git is
# pinned): warden's one child is bwrap; the shared lock on the root is
# held by warden, never by bwrap or the command, and bwrap holds no
# descriptor of the root but the O_PATH one it binds; nothing of the
# loader's environment reaches bwrap; bwrap dies with warden.  After the
# run: the pin is gone and the lock released; after a run killed on its
# timeout too.
. "${top_srcdir:?run by make check}/tests/run/lib.sh"

config b workspace-write bwrap
TAGN=$((TAG * 10 + 3))
mkfifo "$T/fifo"
(cd "$T/ws" && LD_LIBRARY_PATH=/nonexistent/lib GCONV_PATH=/nonexistent/gconv \
	exec "$WARDEN" --config "$T/b.ini" run -c "echo started > $T/fifo; sleep 3; : $TAGN") \
	>"$T/a.out" 2>&1 </dev/null &
wpid=$!
line=$(timeout 30 cat "$T/fifo")
[ "$line" = started ] || fail "the command did not start: '$line'"

bw=$(pgrep -P $wpid)
[ "$(echo "$bw" | wc -w)" = 1 ] && [ "$(readlink "/proc/$bw/exe")" = "$(readlink -f /usr/bin/bwrap)" ] &&
	ok "warden's one child is bwrap ($bw)" ||
	fail "warden's children: '$bw' ($(for p in $bw; do readlink /proc/$p/exe; done))"

# The lock: /proc/locks names the holder's pid and the inode.
ino=$(stat -c %i "$T/ws")
holders=$(awk -v ino="$ino" '$2 == "FLOCK" { split($6, f, ":"); if (f[3] == ino) print $5 }' /proc/locks | sort -u)
[ "$holders" = "$wpid" ] && ok "the root's flock is held by warden ($wpid), no one else" ||
	fail "the root's flock holders: '$holders', want warden's $wpid alone"

# bwrap's descriptors of the root: only O_PATH ones (the bind), never the
# lock (a directory opened for reading).
bad=
for fd in /proc/$bw/fd/*; do
	[ "$(readlink "$fd")" = "$T/ws" ] || continue
	flags=$(awk '$1 == "flags:" { print $2 }' "/proc/$bw/fdinfo/${fd##*/}")
	# O_PATH is 010000000 (octal).
	case $flags in
	*1??????? ) ;;
	*) bad="$bad ${fd##*/}:$flags" ;;
	esac
done
[ -z "$bad" ] && ok "bwrap holds no descriptor of the root but O_PATH ones" ||
	fail "bwrap holds the root open for reading (the lock?):$bad"

env_bw=$(tr '\0' '\n' <"/proc/$bw/environ" | grep -E '^(LD_|GCONV_PATH=|GLIBC_TUNABLES=)')
[ -z "$env_bw" ] && ok "no loader variable in bwrap's environment" ||
	fail "bwrap's environment has: $env_bw"
[ -d "$T/ws/.git" ] && ok "the pin (.git) exists while the run does" ||
	fail "no .git pin during the run"

wait $wpid
rc=$?
[ $rc = 0 ] || fail "the run ended with $rc: $(cat "$T/a.out")"
[ ! -e "$T/ws/.git" ] && ok "the pin is removed after the run" ||
	fail "the pin is left: $(ls -la "$T/ws/.git")"
holders=$(awk -v ino="$ino" '$2 == "FLOCK" { split($6, f, ":"); if (f[3] == ino) print $5 }' /proc/locks)
[ -z "$holders" ] && ok "the lock is released" || fail "the root is still locked by $holders"

# A run killed on its timeout: the same.
wr b run --timeout 0.5 -- sleep 30
[ "$rc" = 124 ] || fail "the timed-out run exited $rc, want 124"
[ ! -e "$T/ws/.git" ] && ok "the pin is removed after a timeout kill" ||
	fail "a timed-out run left its pin: $(ls -la "$T/ws/.git")"

# SIGTERM to warden: forwarded; the run ends and cleans up.
(cd "$T/ws" && exec "$WARDEN" --config "$T/b.ini" run -c "echo started > $T/fifo; sleep 30; : $TAGN") \
	>"$T/a.out" 2>&1 </dev/null &
wpid=$!
line=$(timeout 30 cat "$T/fifo")
kill -TERM $wpid
wait $wpid
[ ! -e "$T/ws/.git" ] && ok "the pin is removed after SIGTERM to warden" ||
	fail "SIGTERM to warden left the pin: $(ls -la "$T/ws/.git")"
[ -z "$(pgrep -f ": $TAGN")" ] && ok "nothing of the command is left after SIGTERM" ||
	fail "left behind: $(pgrep -af ": $TAGN")"

# A bwrap without --bind-fd (bubblewrap before 0.5, emulated): the binds
# name paths, and the lock is still taken and kept here, never left to a
# launcher that is not there.
mkdir -p "$T/bin"
chmod 755 "$T/bin"
cat >"$T/bin/bwrap-nofd" <<'SH'
#!/bin/sh
for a in "$@"; do
	case $a in
	--bind-fd|--ro-bind-fd) echo "bwrap: Unknown option $a" >&2; exit 1 ;;
	--) break ;;
	esac
done
exec /usr/bin/bwrap "$@"
SH
chmod 755 "$T/bin/bwrap-nofd"
config nofd workspace-write "[backend bwrap]
plugin = $BWRAP_SO
launcher = $top_builddir/plugins/bwrap/warden-bwrap-exec
path = $T/bin/bwrap-nofd"
wr nofd run -c 'test -d .git && echo pinned'
[ "$rc" = 0 ] && [ "$(tail -n 1 "$T/out")" = pinned ] && [ ! -e "$T/ws/.git" ] &&
	ok "a bwrap without --bind-fd: the run is confined, its pin removed after" ||
	fail "a bwrap without --bind-fd: exit $rc: $(cat "$T/out" "$T/err")"

finish

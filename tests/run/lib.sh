# lib.sh — shared by the `warden run` tests: a scratch tree inside the
# build tree (the loader refuses world-writable directories, and a bwrap
# workspace-write run hides the host's /tmp), configs over the real
# plugins, and assertions on a run's exit status, output and --json
# object.  Sourced, not run.
: "${top_srcdir:?run by make check}" "${top_builddir:?run by make check}" "${WARDEN:?run by make check}"

PY=/usr/bin/python3
BWRAP_SO=$top_builddir/plugins/bwrap/.libs/bwrap.so
LL_SO=$top_builddir/plugins/landlock/.libs/landlock.so
RUNNER=$top_builddir/plugins/landlock/warden-landlock-run
FAKE_PARTIAL=$top_srcdir/tests/landlock/fake-partial-runner
failures=0

mkdir -p "$top_builddir/tests/run"
T=$(mktemp -d "$top_builddir/tests/run/t-XXXXXX")
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT
mkdir "$T/ws" "$T/outside" "$T/state"
chmod 700 "$T/state"
echo original >"$T/outside/file"
# Processes a test starts carry this in their argv, so that what is left
# of them can be found afterwards.
TAG=$(( ($$ % 9000) + 1000 ))

# No program under a temp directory can be granted, so a test of grants
# whose build tree is under /tmp (a clone there) moves its directory under
# the home's cache, which is no temp directory.
grantable_tree() {
	case $(cd "$T" && pwd -P) in
	/tmp/*|/var/tmp/*|/dev/shm/*)
		base=${HOME:-/root}/.cache
		case $(mkdir -p "$base" && cd "$base" && pwd -P) in
		''|/tmp/*|/var/tmp/*|/dev/shm/*)
			echo "FAIL: the build tree and \$HOME/.cache ($base) are under a temp directory: no program there can be granted"; exit 1 ;;
		esac
		NT=$(mktemp -d "$base/warden-grants.XXXXXX") || { echo "FAIL: mktemp -d in $base"; exit 1; }
		cp -a "$T/." "$NT/" && rm -rf "$T" && T=$NT ||
			{ echo "FAIL: cannot move the test's directory to $NT"; exit 1; }
		echo "note: the build tree is under a temp directory; this test runs in $T" ;;
	esac
}

# unreachable_by_others: prints the first directory above the build tree
# that other users cannot search (a home directory of mode 0700, say), or
# nothing.  A test that runs warden as another user from the build tree
# needs none; tests/unpriv.sh copies what it needs and runs anywhere.
unreachable_by_others() {
	d=$(cd "$top_builddir" && pwd -P)
	while [ "$d" != / ] && [ -n "$d" ]; do
		d=$(dirname "$d")
		m=$(stat -c %A "$d") || { echo "$d"; return; }
		case $m in
		?????????[xt]) ;;
		*) echo "$d ($m)"; return ;;
		esac
	done
}

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

ok() {
	echo "ok: $*"
}

finish() {
	if [ "$failures" -ne 0 ]; then
		echo "$failures failure(s)"
		exit 1
	fi
	exit 0
}

# The real mechanisms must be here: a missing one fails, it never skips.
command -v bwrap >/dev/null 2>&1 ||
	{ echo "FAIL: bubblewrap is not installed (apt-get install bubblewrap; ./quickstart installs it)"; exit 1; }
for f in "$BWRAP_SO" "$LL_SO" "$RUNNER"; do
	[ -e "$f" ] || { echo "FAIL: $f was not built"; exit 1; }
done

# net_servers DIR SOCKDIR: starts tests/run/net-servers.py (the host's
# servers, each writing DIR/markers/NAME when contacted) with its sockets
# in SOCKDIR and waits until DIR/addresses says they listen; on exit they
# are killed and SOCKDIR removed with $T.
NET_PIDS= NET_DIRS=
net_servers() {
	mkdir -p "$1"
	"$PY" "$top_srcdir/tests/run/net-servers.py" "$1" "$2" 2>"$1/servers.err" &
	NET_PIDS="$NET_PIDS $!"
	NET_DIRS="$NET_DIRS $2"
	trap 'kill $NET_PIDS 2>/dev/null; wait $NET_PIDS 2>/dev/null; rm -rf "$T" $NET_DIRS' EXIT
	i=0
	while [ ! -e "$1/addresses" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -e "$1/addresses" ] || { echo "FAIL: the servers did not start: $(cat "$1/servers.err")"; exit 1; }
}

# config NAME DEFAULT_MODE [SECTION...]: writes $T/NAME.ini with state_dir
# and workspace_root in $T; each SECTION is "bwrap", "landlock",
# "landlock-partial" (the fake ABI-2 runner), "missing", or a literal
# block of lines.  Extra [warden] keys come from $EXTRA.  A config of
# Landlock alone has no deny_read list unless EXTRA gives one: Landlock
# cannot hold it (partial, see denyread.sh), and these checks are of its
# write boundary, which is full.
config() {
	name=$1 mode=$2
	shift 2
	{
		printf '[warden]\ndefault_mode = %s\nstate_dir = %s\nworkspace_root = %s\n' \
			"$mode" "$T/state" "$T/ws"
		case " $* ${EXTRA:-} " in
		*" bwrap "*|*deny_read*) ;;
		*" landlock "*|*" landlock-partial "*) printf 'deny_read_defaults = false\n' ;;
		esac
		[ -z "${EXTRA:-}" ] || printf '%s\n' "$EXTRA"
		for s in "$@"; do
			case $s in
			bwrap) printf '[backend bwrap]\nplugin = %s\nlauncher = %s\n' "$BWRAP_SO" \
				"$top_builddir/plugins/bwrap/warden-bwrap-exec" ;;
			landlock) printf '[backend landlock]\nplugin = %s\nrunner = %s\n' "$LL_SO" "$RUNNER" ;;
			landlock-partial) printf '[backend landlock]\nplugin = %s\nrunner = %s\n' "$LL_SO" "$FAKE_PARTIAL" ;;
			missing) printf '[backend gone]\nplugin = %s/no-such-backend.so\n' "$T" ;;
			*) printf '%s\n' "$s" ;;
			esac
		done
	} >"$T/$name.ini"
	chmod 644 "$T/$name.ini"
}

# wr CONFIG ARGS...: runs warden --config $T/CONFIG.ini ARGS in $T/ws;
# sets $rc, stdout in $T/out, stderr in $T/err.
wr() {
	c=$1
	shift
	(cd "$T/ws" && "$WARDEN" --config "$T/$c.ini" "$@") >"$T/out" 2>"$T/err" </dev/null
	rc=$?
}

# field KEY: a field of the --json object (the last line of $T/out), as
# Python prints it (None, True, a number, a string).
field() {
	tail -n 1 "$T/out" | "$PY" -c 'import json, sys; print(json.load(sys.stdin).get(sys.argv[1], "<absent>"))' "$1" 2>/dev/null ||
		echo "<no json>"
}

# expect WHAT RC [KEY=VALUE...]: $rc is RC and each --json field has VALUE.
expect() {
	what=$1 want=$2
	shift 2
	if [ "$rc" != "$want" ]; then
		fail "$what: exit $rc, want $want"
		sed 's/^/  stdout: /' "$T/out"
		sed 's/^/  stderr: /' "$T/err"
		return 1
	fi
	for kv in "$@"; do
		got=$(field "${kv%%=*}")
		if [ "$got" != "${kv#*=}" ]; then
			fail "$what: ${kv%%=*} is '$got', want '${kv#*=}'"
			tail -n 1 "$T/out"
			sed 's/^/  stderr: /' "$T/err"
			return 1
		fi
	done
	ok "$what (exit $rc${*:+, $*})"
}

# err_has WHAT PATTERN: stderr has a line matching PATTERN (grep -E).
err_has() {
	if grep -qE -- "$2" "$T/err"; then
		ok "$1"
	else
		fail "$1: no stderr line matches '$2'"
		sed 's/^/  stderr: /' "$T/err"
	fi
}

# leftovers PATTERN: processes whose command line contains PATTERN.
leftovers() {
	for d in /proc/[0-9]*; do
		cmd=$( (tr '\0' ' ' <"$d/cmdline") 2>/dev/null) || continue
		case $cmd in *"$1"*) echo "${d#/proc/} $cmd" ;; esac
	done
}

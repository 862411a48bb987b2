# lib.sh — shared by the sandbox tests: a scratch tree in the build
# directory (a world-writable directory would be refused for the config),
# a config naming the built bwrap and landlock backends, an outside tree
# whose whole state is snapshotted, and a way to run what `warden confine
# --json` prints.  Sourced, not run.

: "${WARDEN:?run by make check}" "${top_builddir:?run by make check}"
: "${top_srcdir:?run by make check}"

ACT=$top_builddir/tests/landlock/ll-act
RUNNER=$top_builddir/plugins/landlock/warden-landlock-run
LAUNCHER=$top_builddir/plugins/bwrap/warden-bwrap-exec
PY=/usr/bin/python3
failures=0

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

ok() {
	echo "ok: $*"
}

# Nothing here may be checked half-way: a missing tool is a failure.
need() {
	for f in "$@"; do
		if [ ! -x "$f" ]; then
			echo "FAIL: $f is missing: this test cannot check anything without it"
			exit 1
		fi
	done
}
need "$PY" "$ACT" "$RUNNER" "$LAUNCHER" /usr/bin/bwrap

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: needs root (as CI runs it): the privilege cases are only"
	echo "meaningful for a root caller (tests/unpriv.sh runs the others as a user)"
	exit 77
fi

unset WARDEN_SESSION WARDEN_CONFIG
T=$(mktemp -d "$top_builddir/tests/sandbox-XXXXXX")
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
export XDG_CONFIG_HOME="$T/xdg"
mkdir "$T/ws" "$T/state"
WS=$T/ws

CONF=$T/warden.ini
cat >"$CONF" <<INI
[warden]
default_mode = read-only
state_dir = $T/state
durability = none
plugin_dir = $top_builddir/plugins/bwrap/.libs
# The matrix is of file effects: Landlock cannot hold deny_read (partial,
# see tests/run/denyread.sh); bwrap's is checked with its own config.
deny_read_defaults = false

[backend bwrap]
plugin = bwrap
path = /usr/bin/bwrap
launcher = $LAUNCHER

[backend landlock]
plugin = $top_builddir/plugins/landlock/.libs/landlock.so
runner = $RUNNER
INI
chmod 644 "$CONF"

w() {
	"$WARDEN" --config "$CONF" "$@"
}

# json_get FILE KEY: one top-level value of a JSON file, as text (lists
# joined by newlines, booleans as true/false, null as null).
json_get() {
	"$PY" - "$1" "$2" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))[sys.argv[2]]
if isinstance(v, bool):
    print("true" if v else "false")
elif v is None:
    print("null")
elif isinstance(v, list):
    sys.stdout.write("".join(str(x) + "\n" for x in v))
else:
    print(v)
PY
}

. "$top_srcdir/tests/outside.sh"
reset_outside

finish() {
	if [ "$failures" -ne 0 ]; then
		echo "$failures failure(s)"
		exit 1
	fi
	exit 0
}

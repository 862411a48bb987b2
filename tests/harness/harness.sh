#!/bin/sh
# harness.sh — one scenario (tests/harness/scenario.json), three faces,
# the same results: `warden mcp` driven by the official MCP TypeScript
# SDK (mcp.cjs), `warden serve` by a Python stdlib client (serve.py) and
# `warden run --json` (cli.py).  The cases: the config's default_timeout
# and max_timeout, the output_limit cap and its marker (the CLI stays
# byte-exact), stdout and stderr in the order written, cwd, stdin, a
# timeout said as one, a signal death, stderr that only reads like a
# refusal (failed) and a real refused write (denied).
. "${top_srcdir:?run by make check}/tests/run/lib.sh"

MODULES=${MCP_NODE_MODULES:-$top_srcdir/tests/mcp/node_modules}
command -v node >/dev/null 2>&1 ||
	{ echo "FAIL: node is not installed (apt-get install nodejs npm; ./quickstart check installs it)"; exit 1; }
[ -f "$MODULES/@modelcontextprotocol/sdk/package.json" ] ||
	{ echo "FAIL: the MCP SDK is not installed in $MODULES (run: cd $top_srcdir/tests/mcp && npm ci)"; exit 1; }

EXTRA='default_timeout = 1
max_timeout = 3
output_limit = 4K' config h workspace-write bwrap
mkdir -p "$T/ws/sub"
ws=$(cd "$T/ws" && pwd -P)
H=$top_srcdir/tests/harness

for face in mcp serve cli; do
	echo "---- $face"
	case $face in
	mcp) timeout 300 node "$H/mcp.cjs" "$MODULES" "$WARDEN" "$T/h.ini" "$ws" "$T/outside" "$TAG" ;;
	*) timeout 300 "$PY" "$H/$face.py" "$WARDEN" "$T/h.ini" "$ws" "$T/outside" "$TAG" ;;
	esac >"$T/$face.out" 2>&1
	rc=$?
	cat "$T/$face.out"
	[ "$rc" = 0 ] || fail "$face: the driver reported failures (exit $rc)"
	n=$(grep -c '^ok: ' "$T/$face.out")
	[ "$n" = "$(grep -c '"name"' "$H/scenario.json")" ] && ok "$face: every case checked" ||
		fail "$face: $n cases checked"
done

finish

#!/bin/sh
# readme.sh — README's three integrations run as a reader would run them:
# every block marked <!-- example: NAME --> is written to NAME and run
# with `warden` on PATH (the built one, over a test config): cli.py and
# serve.py with python3, mcp.mjs with node and the official MCP SDK
# (tests/mcp/node_modules).  Each must exit 0 and print what README says
# it prints, so that README cannot drift from what warden does.
. "${top_srcdir:?run by make check}/tests/run/lib.sh"

MODULES=${MCP_NODE_MODULES:-$top_srcdir/tests/mcp/node_modules}
command -v node >/dev/null 2>&1 ||
	{ echo "FAIL: node is not installed (apt-get install nodejs npm; ./quickstart check installs it)"; exit 1; }
[ -f "$MODULES/@modelcontextprotocol/sdk/package.json" ] ||
	{ echo "FAIL: the MCP SDK is not installed in $MODULES (run: cd $top_srcdir/tests/mcp && npm ci)"; exit 1; }

config rd workspace-write bwrap "[answerer client]
plugin = client
timeout_ms = 5000"
mkdir -p "$T/bin" "$T/ex"
printf '#!/bin/sh\nexec "%s" --config "%s" "$@"\n' "$WARDEN" "$T/rd.ini" >"$T/bin/warden"
chmod 755 "$T/bin/warden"
# Node finds the SDK beside the script, as in a reader's project.
ln -s "$MODULES" "$T/ex/node_modules"

"$PY" - "$top_srcdir/README.md" "$T/ex" <<'PYEOF' || fail "the examples could not be read out of README.md"
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
found = re.findall(r"<!-- example: ([\w.-]+) -->\n```\w*\n(.*?)\n```\n", text, re.S)
for name, body in found:
    with open(sys.argv[2] + "/" + name, "w", encoding="utf-8") as f:
        f.write(body + "\n")
    print("example: " + name)
PYEOF
for name in cli.py serve.py mcp.mjs; do
	[ -s "$T/ex/$name" ] || fail "README.md has no example marked <!-- example: $name -->"
done

# ex NAME INPUT PROGRAM...: runs the example in the workspace; its output
# in $T/NAME.out.
ex() {
	name=$1 input=$2
	shift 2
	(cd "$T/ws" && printf '%s' "$input" | PATH="$T/bin:$PATH" timeout 120 "$@" "$T/ex/$name") \
		>"$T/$name.out" 2>&1
	rc=$?
	sed "s/^/  $name: /" "$T/$name.out"
	[ "$rc" = 0 ] && ok "$name: exit 0" || fail "$name: exit $rc"
}
# says NAME TEXT: the output of example NAME has the line TEXT.
says() {
	grep -qxF -- "$2" "$T/$1.out" && ok "$1: says '$2'" || fail "$1: does not say '$2'"
}

ex cli.py '' "$PY"
says cli.py 'hello from the sandbox'
says cli.py 'class: ok exit: 0 mode: workspace-write'
says cli.py 'class: denied escalate_to: danger-full-access'
grep -q "^warden: denied .*warden run --escalate danger-full-access" "$T/cli.py.out" &&
	ok "cli.py: the denial says how to ask" || fail "cli.py: the denial does not say how to ask"

# The user at the terminal answers n: the escalation is rejected.
ex serve.py 'n
' "$PY"
says serve.py 'hello from the sandbox'
says serve.py 'class: ok exit: 0 mode: workspace-write'
grep -q "^allow 'touch /etc/warden-was-here' under danger-full-access? \[y/N\] escalation: rejected started: False\$" \
	"$T/serve.py.out" && ok "serve.py: the user was asked, and refused" ||
	fail "serve.py: the escalation was not asked and refused"
[ ! -e /etc/warden-was-here ] || fail "a refused escalation wrote /etc/warden-was-here"

ex mcp.mjs '' node
says mcp.mjs 'tools: run session_state'
says mcp.mjs 'hello from the sandbox'
says mcp.mjs 'class: ok isError: false'

finish

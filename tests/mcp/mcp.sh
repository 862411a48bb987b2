#!/bin/sh
# mcp.sh — `warden mcp` driven by a real MCP client, the official
# TypeScript SDK (@modelcontextprotocol/sdk, installed by `npm ci` in
# tests/mcp: ./quickstart check does it).  Without the SDK this test
# fails; it never skips.  The client (client.cjs) connects over stdio,
# lists the tools, writes inside the root and outside it, escalates with
# its user accepting, declining and cancelling an elicitation, gets
# progress, cancels a long run; a second client without elicitation is
# answered by the rest of the waterfall; a client that answers too late or
# malformed makes the client answerer unavailable (never a fall-through);
# a client that allows an escalation for the session through the form's
# decision gives a grant (a later identical run is not asked; warden grant
# list and revoke see it), and one that chooses a scope the form did not
# offer gives none.  Then the host's state and the session logs are
# checked here, and the version negotiation by hand.
. "$top_srcdir/tests/run/lib.sh"
# The raw exchanges below share tests/mcp/exchange.py.
PYTHONPATH="$top_srcdir/tests/mcp${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH

RULES=$top_builddir/plugins/rules/.libs/rules.so
MODULES=${MCP_NODE_MODULES:-$top_srcdir/tests/mcp/node_modules}
command -v node >/dev/null 2>&1 ||
	{ echo "FAIL: node is not installed (apt-get install nodejs npm; ./quickstart check installs it)"; exit 1; }
[ -f "$MODULES/@modelcontextprotocol/sdk/package.json" ] ||
	{ echo "FAIL: the MCP SDK is not installed in $MODULES (run: cd $top_srcdir/tests/mcp && npm ci; ./quickstart check does it)"; exit 1; }
echo "MCP SDK $(node -p 'require(process.argv[1]).version' "$MODULES/@modelcontextprotocol/sdk/package.json"), node $(node --version)"

# The client answers first; with elicitation it decides, without it
# delegates to the rules.
config elicit workspace-write bwrap "[answerer client]
plugin = client
timeout_ms = 20000" "[answerer rules]
plugin = $RULES
allow = bash:*by-rules*"
config slow workspace-write bwrap "[answerer client]
plugin = client
timeout_ms = 1500" "[answerer rules]
plugin = $RULES
allow = bash:*
deny = bash:*"
config waterfall workspace-write bwrap "[answerer client]
plugin = client" "[answerer rules]
plugin = $RULES
allow = bash:*by-rules*
deny = bash:*"

# Nobody can answer: the client (no elicitation) and the terminal (the
# server runs in a session of its own: none).
config nobody workspace-write bwrap "[answerer client]
plugin = client" "[answerer tty]
plugin = $top_builddir/plugins/tty/.libs/tty.so"
# The same, its first backend missing: every run carries a notice.
config nobodygone workspace-write missing bwrap "[answerer client]
plugin = client" "[answerer tty]
plugin = $top_builddir/plugins/tty/.libs/tty.so"

timeout 600 node "$top_srcdir/tests/mcp/client.cjs" "$MODULES" "$WARDEN" "$T/elicit.ini" \
	"$T/waterfall.ini" "$T/slow.ini" "$T/ws" "$T/outside" "$TAG" "$T/nobody.ini" >"$T/client.out" 2>&1
rc=$?
cat "$T/client.out"
[ "$rc" = 0 ] || fail "the MCP client reported failures (exit $rc)"
grep -q '^ok: ' "$T/client.out" || fail "the MCP client checked nothing"

echo "---- the host and the session log"
[ "$(cat "$T/outside/file")" = accepted ] && ok "only the accepted write changed the outside file" ||
	fail "the outside file: $(cat "$T/outside/file")"
session=$(sed -n 's/^session: //p' "$T/client.out")
if [ -n "$session" ]; then
	"$WARDEN" --config "$T/elicit.ini" session show "$session" --json >"$T/events" 2>"$T/err" ||
		fail "session show $session: $(cat "$T/err")"
	"$PY" - "$T/events" "$T/ws" <<'PY' && ok "the session log has the client's decisions and the runs" || fail "the session log"
import json, sys
text = open(sys.argv[1]).read()
try:
    events = json.loads(text)
except ValueError:
    events = [json.loads(l) for l in text.splitlines() if l.strip()]
if isinstance(events, dict):
    events = events.get("events", [])
kinds = [e.get("type") or e.get("event") for e in events]
start = [e for e in events if (e.get("type") or e.get("event")) == "session/start"]
assert start, kinds
decided = [e for e in events if (e.get("type") or e.get("event")) == "approval/decided"]
outcomes = [(e.get("outcome"), e.get("answerer")) for e in decided]
for want in [("rejected", "client"), ("cancelled", "client"), ("allowed-once", "client")]:
    assert want in outcomes, (want, outcomes)
runs = [e for e in events if (e.get("type") or e.get("event")) == "sandbox/run"]
assert len(runs) >= 8, len(runs)
PY
else
	fail "the client did not name its session"
fi

echo "---- the grant the client gave, in the host's state"
gsession=$(sed -n 's/^grant session: //p' "$T/client.out")
if [ -n "$gsession" ]; then
	"$WARDEN" --config "$T/elicit.ini" session show "$gsession" --json >"$T/gevents" 2>"$T/err" ||
		fail "session show $gsession: $(cat "$T/err")"
	"$PY" - "$T/gevents" <<'PY' && ok "the log: approval/grant by the client, the covered run, the revoke, no grant from an answer not offered" || fail "the grant session's log"
import json, sys
text = open(sys.argv[1]).read()
try:
    events = json.loads(text)
except ValueError:
    events = [json.loads(l) for l in text.splitlines() if l.strip()]
if isinstance(events, dict):
    events = events.get("events", [])
grants = [e for e in events if e["type"] == "approval/grant"]
assert len(grants) == 1, grants
g = grants[0]
assert g["name"] == "exact" and g["answerer"] == "client", g
sc = g["scope"]
assert sc["kind"] == "exact" and sc["argv"][:2] == ["bash", "-c"] and "granted-" in sc["argv"][2], sc
assert sc["mode"] == "danger-full-access", sc
d = events[events.index(g) + 1]
assert d["type"] == "approval/decided" and d["grant"] == g["grant"], d
assert d["outcome"] == "allowed-for-session" and d["answerer"] == "client", d
revokes = [e for e in events if e["type"] == "approval/revoke"]
assert [r["grant"] for r in revokes] == [g["grant"]], revokes
decided = [(e["outcome"], e.get("answerer"), e.get("grant")) for e in events
           if e["type"] == "approval/decided"]
assert decided == [("allowed-for-session", "client", g["grant"]),
                   ("allowed-for-session", None, g["grant"]),
                   ("rejected", "client", None),
                   ("unavailable", "client", None),
                   ("unavailable", "client", None),
                   ("allowed-once", "client", None)], decided
assert "did not offer" in [e for e in events if e["type"] == "approval/decided"][3]["reason"]
runs = [e for e in events if e["type"] == "sandbox/run"]
# Three ran (granted, covered, once), three were refused before starting.
assert [r["mode"] for r in runs if r.get("class") == "ok"] == ["danger-full-access"] * 3, runs
assert len([r for r in runs if r.get("started") is False]) == 3, runs
PY
	"$WARDEN" --config "$T/elicit.ini" --session "$gsession" grant list --json >"$T/out" 2>"$T/err" &&
		"$PY" -c 'import json, sys; assert json.load(open(sys.argv[1]))["grants"] == []' "$T/out" &&
		ok "warden grant list: nothing in force after the revoke" ||
		fail "grant list after the revoke: $(cat "$T/out" "$T/err")"
else
	fail "the client did not name its grant session"
fi

echo "---- version negotiation, by hand"
"$PY" - "$WARDEN" "$T/elicit.ini" "$T/ws" <<'PY' && ok "2025-06-18 and 2025-11-25 as asked, older ones get the latest" || fail "version negotiation"
import json, subprocess, sys
warden, cfg, ws = sys.argv[1:4]
for asked, want in [("2025-06-18", "2025-06-18"), ("2025-11-25", "2025-11-25"),
                    ("2025-03-26", "2025-11-25"), ("2024-11-05", "2025-11-25")]:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": asked, "capabilities": {},
                       "clientInfo": {"name": "t", "version": "0"}}}
    p = subprocess.run([warden, "--config", cfg, "mcp", "--cwd", ws],
                       input=(json.dumps(init) + "\n").encode(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=30)
    lines = [json.loads(l) for l in p.stdout.decode().splitlines() if l.strip()]
    assert lines and lines[0]["id"] == 1, (asked, p.stdout, p.stderr)
    got = lines[0]["result"]["protocolVersion"]
    assert got == want, (asked, got, want)
    print("  asked", asked, "got", got)
PY

echo "---- tools/call before initialize is an error, and nothing runs"
"$PY" - "$WARDEN" "$T/elicit.ini" "$T/ws" <<'PY' && ok "tools/call before initialize: an error, nothing ran" || fail "tools/call before initialize"
import json, os, subprocess, sys
warden, cfg, ws = sys.argv[1:4]
call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "run", "arguments": {"command": "touch early"}}}
p = subprocess.run([warden, "--config", cfg, "mcp", "--cwd", ws],
                   input=(json.dumps(call) + "\n").encode(), stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE, timeout=30)
lines = [json.loads(l) for l in p.stdout.decode().splitlines() if l.strip()]
assert lines and lines[0]["id"] == 7 and "error" in lines[0], lines
assert "before initialize" in lines[0]["error"]["message"], lines[0]
assert not os.path.exists(os.path.join(ws, "early")), "the command ran"
PY

echo "---- one initialize per connection; ids are strings or integers; session_state takes nothing"
"$PY" - "$WARDEN" "$T/elicit.ini" "$T/ws" <<'PY' && ok "a second initialize, an id null or 1.5, session_state with arguments: refused, nothing ran" || fail "protocol refusals"
import os, sys
from exchange import INIT, by_id, read_until, start
warden, cfg, ws = sys.argv[1:4]
again = dict(INIT, id=2, params=dict(INIT["params"], protocolVersion="2025-11-25",
                                     capabilities={"elicitation": {}}))
msgs = [INIT, again,
        {"jsonrpc": "2.0", "id": None, "method": "tools/call",
         "params": {"name": "run", "arguments": {"command": "touch null-id"}}},
        {"jsonrpc": "2.0", "id": 1.5, "method": "tools/call",
         "params": {"name": "run", "arguments": {"command": "touch real-id"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "session_state", "arguments": {"x": 1}}},
        {"jsonrpc": "2.0", "id": 4, "method": "ping"}]
p = start(warden, cfg, ws, msgs)
by = by_id(read_until(p, lambda g: any(m.get("id") == 4 for m in g)))
p.stdin.close()
p.wait(timeout=30)
assert by["1"][0]["result"]["protocolVersion"] == "2025-06-18", by["1"]
assert by["2"][0]["error"]["code"] == -32600 and "initialized already" in by["2"][0]["error"]["message"], by["2"]
nulls = by.get("null", [])
assert len(nulls) == 2 and all(m["error"]["code"] == -32600 for m in nulls), nulls
assert by["3"][0]["result"]["isError"] and "no arguments" in by["3"][0]["result"]["content"][0]["text"], by["3"]
assert not os.path.exists(os.path.join(ws, "null-id")) and not os.path.exists(os.path.join(ws, "real-id"))
PY

echo "---- run's cwd, relative to the session's root"
mkdir -p "$T/ws/sub"
"$PY" - "$WARDEN" "$T/elicit.ini" "$T/ws" <<'PY' && ok "cwd: the command starts there; a missing one runs nothing" || fail "run's cwd"
import os, sys
from exchange import INIT, call, exchange
warden, cfg, ws = sys.argv[1:4]
got, rc = exchange(warden, cfg, ws, [INIT, call(2, "run", {"command": "pwd; touch here", "cwd": "sub"}),
                                     call(3, "run", {"command": "touch there", "cwd": "nope"})], [2, 3])
sc = got[2]["result"]["structuredContent"]
out = [b["text"] for b in got[2]["result"]["content"] if b["text"].startswith("--- stdout\n")]
assert sc["class"] == "ok" and out == ["--- stdout\n" + os.path.join(os.path.realpath(ws), "sub") + "\n"], got[2]
assert os.path.exists(os.path.join(ws, "sub", "here")), "not run in sub"
assert got[3]["result"]["isError"] and "nothing ran" in got[3]["result"]["content"][0]["text"], got[3]
assert not os.path.exists(os.path.join(ws, "there")) and not os.path.exists(os.path.join(ws, "nope")), "ran"
PY

echo "---- the end of input cancels what runs, and mcp exits"
"$PY" - "$WARDEN" "$T/elicit.ini" "$T/ws" "$TAG" <<'PY' && ok "input closed mid-run: the run is cancelled, nothing of it is left, exit 0" || fail "end of input mid-run"
import os, subprocess, sys, time
from exchange import INIT, call, start
warden, cfg, ws, tag = sys.argv[1:5]
marker = os.path.join(ws, "after-eof")
p = start(warden, cfg, ws, [INIT, call(2, "run", {"command": "echo started; sleep 30 # eof-%s\ntouch after-eof" % tag})])
p.stdout.readline()                 # initialize's answer
def running():
    return subprocess.run(["pgrep", "-f", "eof-" + tag], stdout=subprocess.DEVNULL).returncode == 0
t0 = time.time()
while not running() and time.time() - t0 < 20:
    time.sleep(0.02)
assert running(), "the command never started"
p.stdin.close()
rc = p.wait(timeout=20)
rest = p.stdout.read().decode()
assert rc == 0, rc
assert '"id": 2' not in rest and '"id":2' not in rest, rest      # cancelled: no response
t0 = time.time()
while running() and time.time() - t0 < 10:
    time.sleep(0.02)
assert not running(), "the command outlived mcp"
assert not os.path.exists(marker), "the command went on"
PY

echo "---- a command no program could take: refused, and the server goes on"
"$PY" - "$WARDEN" "$T/elicit.ini" "$T/ws" <<'PY' && ok "a 3 MB command: a tool error naming the limit, nothing ran, the next call answered" || fail "a 3 MB command"
import os, sys
from exchange import INIT, call, exchange
warden, cfg, ws = sys.argv[1:4]
got, rc = exchange(warden, cfg, ws, [INIT, call(2, "run", {"command": "touch big-ran #" + "x" * 3000000}),
                                     {"jsonrpc": "2.0", "id": 3, "method": "ping"}], [2, 3])
assert rc == 0, rc
r = got[2]["result"]
assert r["isError"] and "131071" in r["content"][0]["text"] and "write it to a file" in r["content"][0]["text"], r
assert got[3]["result"] == {}, got[3]
assert not os.path.exists(os.path.join(ws, "big-ran")), "it ran"
PY

echo "---- nobody can approve and the run carries a notice: still no invitation to escalate"
"$PY" - "$WARDEN" "$T/nobodygone.ini" "$T/ws" "$T/outside" <<'PY' && ok "a notice does not bring back escalate_to when nobody can approve" || fail "no_approver with a notice"
import os, sys
from exchange import INIT, call, exchange
warden, cfg, ws, outside = sys.argv[1:5]
# A session of its own: no terminal for the tty answerer.
got, rc = exchange(warden, cfg, ws, [INIT, call(2, "run", {"command": "echo x > '%s/nobody-gone'" % outside})],
                   [2], start_new_session=True)
sc = got[2]["result"]["structuredContent"]
text = got[2]["result"]["content"][0]["text"]
assert sc["class"] == "denied" and sc.get("notices"), sc
assert sc["escalate_to"] is None and sc["escalate_network"] is False and sc.get("no_approver"), sc
assert "call run again" not in text, text
assert not os.path.exists(os.path.join(outside, "nobody-gone"))
PY

echo "---- a bad --cwd: nothing starts"
"$WARDEN" --config "$T/elicit.ini" mcp --cwd "$T/no-such-dir" </dev/null >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" = 64 ] && grep -q "^warden: mcp: " "$T/err" && [ ! -s "$T/out" ] &&
	ok "a missing --cwd: exit 64, said on stderr, nothing on stdout" ||
	fail "a missing --cwd: exit $rc, stderr: $(cat "$T/err")"

finish

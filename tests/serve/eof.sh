#!/bin/sh
# eof.sh — the end of a serve client's input is not the cancellation of
# everything: a client that writes its requests and half-closes (a pipe
# that ends) still gets an answer to each call that changes nothing
# (plugins, session.new, session.show) and to a run it started, whose
# command ran; a run that needs the client's own approval, which can no
# longer come, is decided by the rest of the waterfall (here: none).
. "$top_srcdir/tests/serve/lib.sh"

"$PY" - "$WARDEN" "$T/ww.ini" "$T/ws" <<'PY' && ok "every call answered after the end of input" || fail "the end of input"
import json, os, subprocess, sys
warden, cfg, ws = sys.argv[1:4]
def rpc(i, method, params=None):
    m = {"jsonrpc": "2.0", "id": i, "method": method}
    if params is not None:
        m["params"] = params
    return json.dumps(m) + "\n"
p = subprocess.run([warden, "--config", cfg, "serve"],
                   input=(rpc(1, "plugins") + rpc(2, "session.new", {"cwd": ws})).encode(),
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
got = {m["id"]: m for m in map(json.loads, p.stdout.decode().splitlines()) if "id" in m}
assert 1 in got and "result" in got[1], (got, p.stderr)
assert 2 in got and "result" in got[2], (got, p.stderr)
sid = got[2]["result"]["session"] if isinstance(got[2]["result"], dict) else None
assert sid, got[2]
marker = os.path.join(ws, "eof-ran")
p = subprocess.run([warden, "--config", cfg, "serve"],
                   input=(rpc(3, "session.show", {"session": sid}) +
                          rpc(4, "run", {"session": sid, "command": "sleep 1; touch eof-ran; echo done"}) +
                          rpc(5, "run", {"session": sid, "command": "true", "escalate": "danger-full-access",
                                         "justification": "needs it"})).encode(),
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
got = {m["id"]: m for m in map(json.loads, p.stdout.decode().splitlines()) if "id" in m}
assert 3 in got and "result" in got[3], (got, p.stderr)
assert 4 in got and "result" in got[4], (got, p.stderr)
r4 = got[4]["result"]; r4 = r4.get("report", r4)
assert r4.get("class") == "ok", got[4]
assert os.path.exists(marker), "the run was cancelled at the end of input"
assert 5 in got, got
r5 = got[5].get("result", {}); r5 = r5.get("report", r5)
assert r5.get("status") == 77 or "error" in got[5], got[5]
print("  answered:", sorted(got))
PY
finish

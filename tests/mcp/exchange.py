"""exchange.py -- raw MCP exchanges for tests/mcp/mcp.sh.

`warden mcp` is started on a config and a root, the messages are written
at once, and the answers are read until the ones a check waits for came:
the input stays open until then, since its end cancels what runs.
"""
import json
import subprocess

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "0"}}}


def call(id, tool, arguments):
    return {"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}


def start(warden, cfg, ws, msgs, **popen):
    p = subprocess.Popen([warden, "--config", cfg, "mcp", "--cwd", ws], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, **popen)
    p.stdin.write("".join(json.dumps(m) + "\n" for m in msgs).encode())
    p.stdin.flush()
    return p


def read_until(p, done):
    """The messages, in order, until done(messages) or the output ends."""
    got = []
    while not done(got):
        line = p.stdout.readline()
        if not line:
            break
        got.append(json.loads(line))
    return got


def by_id(got):
    """The messages by id (json text of the id), each a list in order."""
    out = {}
    for m in got:
        out.setdefault(json.dumps(m.get("id")), []).append(m)
    return out


def exchange(warden, cfg, ws, msgs, ids, timeout=60, **popen):
    """Writes msgs, reads until every id in ids answered, closes the
    input: ({id: the answer}, exit status)."""
    p = start(warden, cfg, ws, msgs, **popen)
    got = read_until(p, lambda g: set(ids) <= {m.get("id") for m in g})
    p.stdin.close()
    rc = p.wait(timeout=timeout)
    return {m.get("id"): m for m in got}, rc

#!/usr/bin/python3
"""serve.py -- the scenario (scenario.json) through `warden serve` on
stdio, with the Python stdlib client of tests/serve/client.py: the
output of each run rebuilt in order from run.output's seq numbers (the
run.left_out marker where bytes were left out), stdin as the run's
stdin parameter.

    serve.py WARDEN CONFIG WS OUTSIDE TAG
"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "serve"))
sys.path.insert(0, here)

import common  # noqa: E402
from client import Client, RpcError  # noqa: E402

warden, config, ws, outside, tag = sys.argv[1:6]
c = Client.stdio([warden, "--config", config, "serve"], stderr=None)
sid = c.call("session.new", {"cwd": ws})["session"]
for case in common.load(ws, outside, tag):
    params = {"command": case["command"], "session": sid}
    for k in ("cwd", "stdin", "timeout_s"):
        if k in case:
            params[k] = case[k]
    id, q = c.start("run", params)
    try:
        r = c.wait(id, q, timeout=120)
    except RpcError as e:
        common.check("serve", case, {"refused": e.message or ""})
        continue
    merged = c.merged(id).decode("utf-8", "replace")
    common.check("serve", case, {"result": r, "merged": merged, "text": ""})
c.close()
common.finish()

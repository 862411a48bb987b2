#!/usr/bin/python3
"""cli.py -- the scenario (scenario.json) through `warden run --json`:
the result from --result-fd, stdout and stderr into one pipe (so their
order is the terminal's own), the case's stdin as the command's stdin,
cwd as the directory warden is started in.  The CLI is byte-exact: a
long output arrives whole.

    cli.py WARDEN CONFIG WS OUTSIDE TAG
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

warden, config, ws, outside, tag = sys.argv[1:6]
sid = subprocess.run([warden, "--config", config, "session", "new", "--cwd", ws],
                     stdout=subprocess.PIPE, check=True).stdout.decode().split("\n")[-2]
for case in common.load(ws, outside, tag):
    rfd, wfd = os.pipe()
    argv = [warden, "--config", config, "--session", sid, "run", "--json",
            "--result-fd", str(wfd)]
    if "timeout_s" in case:
        argv += ["--timeout", str(case["timeout_s"])]
    argv += ["-c", case["command"]]
    p = subprocess.run(argv, cwd=os.path.join(ws, case.get("cwd", ".")),
                       input=case.get("stdin", "").encode(), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, pass_fds=(wfd,), timeout=120)
    os.close(wfd)
    with os.fdopen(rfd, "rb") as f:
        result = f.read().decode()
    out = p.stdout.decode("utf-8", "replace")
    if p.returncode == 64 or not result.strip():
        common.check("cli", case, {"refused": out})
        continue
    # warden's own lines ("warden: ...") are on stderr too: the
    # command's output is what is left.
    merged = "".join(l for l in out.splitlines(True) if not l.startswith("warden: "))
    common.check("cli", case, {"result": json.loads(result), "merged": merged, "text": ""},
                 byte_exact=True)
common.finish()

"""common.py -- the scenario (scenario.json) and its checks, shared by the
serve and CLI drivers of tests/harness/harness.sh (the MCP driver,
mcp.cjs, checks the same in JavaScript).

A face hands the checks one outcome per case: {"refused": message} when
nothing ran, else {"result": the run's object, "merged": stdout and
stderr in the order written (the left-out marker where bytes were left
out), "text": what a model reads (or "" where there is none)}.
"""
import json
import os
import sys

failures = 0


def ok(what):
    print("ok: " + what)


def fail(what, detail=None):
    global failures
    failures += 1
    print("FAIL: " + what)
    if detail is not None:
        print("  " + repr(detail)[:2000])


def load(ws, outside, tag):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenario.json")
    with open(path) as f:
        text = f.read()

    def sub(v):
        if isinstance(v, str):
            return v.replace("{ws}", ws).replace("{outside}", outside).replace("{tag}", tag)
        if isinstance(v, dict):
            return {k: sub(x) for k, x in v.items()}
        if isinstance(v, list):
            return [sub(x) for x in v]
        return v
    return sub(json.loads(text))["cases"]


def check(face, case, got, byte_exact=False):
    """Checks one outcome against the case's expectations."""
    e = case["expect"]
    what = "%s: %s" % (face, case["name"])
    bad = []
    if "refused" in e:
        if "refused" not in got or e["refused"] not in got["refused"]:
            bad.append("want a refusal saying %r" % e["refused"])
    else:
        r = got.get("result") or {}
        for k in ("class", "exit", "signal", "timed_out", "timeout_ms", "network_denied",
                  "escalate_to"):
            if k in e and r.get(k) != e[k]:
                bad.append("%s %r, want %r" % (k, r.get(k), e[k]))
        if e.get("says_timed_out") and face == "mcp" and "timed out" not in got["text"]:
            bad.append("the text does not say it timed out")
        if "merged" in e and got["merged"] != e["merged"]:
            bad.append("output %r, want %r" % (got["merged"][:200], e["merged"]))
        cap = e.get("capped")
        if cap:
            full = cap["char"] * e["total_bytes"]
            want = full if byte_exact else (
                cap["char"] * cap["head"] + "\n[... %d bytes left out ...]\n" % cap["left_out"]
                + cap["char"] * cap["tail"])
            if got["merged"] != want:
                bad.append("output of %d chars, want %d (%s)" % (
                    len(got["merged"]), len(want), "all of it" if byte_exact else "capped"))
    if "absent" in e and os.path.exists(e["absent"]):
        bad.append("%s exists: it ran" % e["absent"])
    if bad:
        fail(what, {"why": bad, "got": got})
    else:
        ok(what)


def finish():
    sys.exit(min(failures, 100))

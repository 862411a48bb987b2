#!/usr/bin/python3
"""check.py -- `warden serve` through a real client (tests/serve/*.sh).

    check.py stdio|socket

Environment (from the shell wrapper): WARDEN, T (scratch: ws, outside,
state, the configs), TAG (marks processes a test starts).

Every method over the connection with the CLI's semantics and error
texts; a run's output byte for byte (10 MB of random bytes without a
final newline, binary on stderr); several runs at once; cancel killing
the command's process group; the client answering approvals (allowed
with a message that lands in approval/decided, rejected, a malformed
reply and no reply: unavailable) and no client at all (delegates); the
network knob (network, network.set, session.state) and a run the
restricted network denies, then escalated with escalate_network: a TCP
server on 127.0.0.1 outside the sandbox writes a marker when it is
reached, exactly when the client allowed the escalation.
Socket only: a directory others could write to is refused (unless
sticky), mode 0600, another user refused (as root: a child that became
nobody), and commands the server or another warden confined, or started
unconfined, cannot reach the socket: with the network restricted the
sandbox refuses the unix socket itself; with it enabled the server
refuses the peer (a command it started, or one in another mount or PID
namespace).
"""
import json
import queue
import os
import socket
import stat
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from client import Client, RpcError, pids_with, wait_for  # noqa: E402

WARDEN = os.environ["WARDEN"]
T = os.environ["T"]
TAG = os.environ["TAG"]
WS = os.path.join(T, "ws")
MODE = sys.argv[1]
failures = 0


def ok(what):
    print("ok: " + what, flush=True)


def fail(what):
    global failures
    failures += 1
    print("FAIL: " + what, flush=True)


def check(cond, what, detail=None):
    if cond:
        ok(what)
    else:
        fail(what + ("" if detail is None else ": " + str(detail)))
    return cond


def expect_error(fn, code, text, what):
    try:
        r = fn()
    except RpcError as e:
        check(e.code == code and text in (e.message or ""), what,
              "code %r message %r" % (e.code, e.message))
        return e
    fail(what + ": no error, got %r" % (r,))
    return None


def conf(name):
    return os.path.join(T, name + ".ini")


SOCK = os.path.join(T, "sock", "serve.sock")
server = None
server_err = os.path.join(T, "serve.err")


def connect(config="ww"):
    if MODE == "stdio":
        errf = open(os.path.join(T, "stdio.err"), "ab")
        return Client.stdio([WARDEN, "--config", conf(config), "serve"], stderr=errf)
    return Client.unix(SOCK)


def start_socket_server():
    global server
    os.makedirs(os.path.dirname(SOCK), exist_ok=True)
    os.chmod(os.path.dirname(SOCK), 0o755)
    server = subprocess.Popen([WARDEN, "--config", conf("ww"), "serve", "--socket", SOCK],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=open(server_err, "wb"))
    if not wait_for(lambda: os.path.exists(SOCK), 20):
        fail("serve --socket: no socket at %s" % SOCK)
        sys.exit(1)


def socket_dirs():
    """Where serve may put its socket: not where others could replace it."""
    for mode, want in [(0o777, "refused"), (0o775, "refused"), (0o1777, "served")]:
        d = os.path.join(T, "sockdir-%o" % mode)
        os.makedirs(d, exist_ok=True)
        os.chmod(d, mode)
        path = os.path.join(d, "s.sock")
        p = subprocess.Popen([WARDEN, "--config", conf("ww"), "serve", "--socket", path],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        if want == "refused":
            out, err = p.communicate(timeout=20)
            check(p.returncode == 64 and b"writable by others" in err and b"not sticky" in err
                  and not os.path.exists(path) and out == b"",
                  "serve --socket in a directory of mode %o: refused (64), no socket" % mode,
                  (p.returncode, err))
        else:
            up = wait_for(lambda: os.path.exists(path), 20)
            p.terminate()
            p.communicate(timeout=20)
            check(up and not os.path.exists(path),
                  "serve --socket in a sticky directory of mode %o: served" % mode)


def server_log():
    with open(server_err, "rb") as f:
        return f.read().decode(errors="replace")


def log_events(sid, type_):
    out = subprocess.run([WARDEN, "--config", conf("ww"), "session", "show", sid, "--json"],
                         capture_output=True, check=True).stdout
    return [e for e in json.loads(out)["events"] if e["type"] == type_]


# ------------------------------------------------------------- the methods

def methods(c):
    sid = c.call("session.new", {"cwd": WS})["session"]
    check(len(sid) > 10, "session.new gives the new id (%s)" % sid)
    st = c.call("session.state", {"session": sid})
    check(st["mode"]["value"] == "workspace-write" and st["root"]["value"] == WS,
          "session.state: mode and root", st)
    check(c.call("mode.set", {"mode": "read-only", "session": sid})["message"] == "mode: read-only",
          "mode.set answers with the line the CLI prints")
    check(c.call("session.state", {"session": sid})["mode"]["value"] == "read-only",
          "mode.set changed the session's mode")
    check("nothing written" in c.call("mode.set", {"mode": "read-only", "session": sid})["message"],
          "mode.set again: nothing written, as the CLI says")
    e = expect_error(lambda: c.call("mode.set", {"mode": "bogus", "session": sid}), 64,
                     "mode.set: not a sandbox mode (allowed: read-only, workspace-write, danger-full-access)",
                     "mode.set of a bad mode: the operation's error in its own words, code 64")
    check(e is not None and e.data == {"field": "mode"}, "mode.set of a bad mode: data names the field",
          e and e.data)
    expect_error(lambda: c.call("mode.set", {"mode": "read-only", "session": "../x"}), 64,
                 "session id has a character outside", "mode.set with a bad session id: the operation's error")
    c.call("mode.set", {"mode": "workspace-write", "session": sid})
    check(c.call("policy.set", {"policy": "never", "session": sid})["message"] == "policy: never",
          "policy.set")
    check(c.call("session.state", {"session": sid})["policy"]["value"] == "never",
          "policy.set changed the session's policy")
    expect_error(lambda: c.call("policy.set", {"policy": "sometimes", "session": sid}), 64,
                 "policy.set: not an approval policy", "policy.set of a bad policy: code 64")
    c.call("policy.set", {"policy": "ask", "session": sid})
    presets = c.call("preset.list", {"session": sid})
    check([p["name"] for p in presets] == ["workspace-write", "danger-full-access"],
          "preset.list", presets)
    check(c.call("preset.select", {"name": "danger-full-access", "session": sid})["message"]
          == "preset: danger-full-access", "preset.select")
    cur = c.call("preset.current", {"session": sid})
    check(cur["preset"] == "danger-full-access" and cur["sandbox"] == "danger-full-access",
          "preset.current after select", cur)
    expect_error(lambda: c.call("preset.select", {"name": "nope", "session": sid}), 64,
                 "preset.select: unknown preset", "preset.select of an unknown preset: code 64")
    c.call("preset.select", {"name": "workspace-write", "session": sid})
    cfg = c.call("config.check")
    check(isinstance(cfg, dict) and cfg.get("config") == conf("ww") and cfg.get("ok") is True, "config.check", cfg)
    plugins = c.call("plugins")["plugins"]
    byname = {p["instance"]: p for p in plugins}
    check(byname["client"]["status"] == "loaded" and byname["client"]["isolation"] == "inproc",
          "plugins: the client answerer is built in", byname.get("client"))
    check(byname["bwrap"]["status"] == "loaded", "plugins: bwrap loaded")
    conf_ = c.call("confine", {"argv": ["true"], "mode": "read-only", "root": WS})
    check(isinstance(conf_, dict) and "true" in conf_.get("argv", []), "confine", conf_)
    c.call("mode.set", {"mode": "read-only", "session": sid})
    conf_ = c.call("confine", {"argv": ["true"], "session": sid})
    check(conf_.get("session") == sid and conf_.get("mode") == "read-only"
          and conf_.get("mode_source") == "session",
          "confine with a session: the session's mode, as the CLI's --session gives", conf_)
    c.call("mode.set", {"mode": "workspace-write", "session": sid})
    expect_error(lambda: c.call("roots.list", {"session": ""}), -32602,
                 "parameter 'session' is empty", "an empty session param: -32602, not no session")
    expect_error(lambda: c.call("run", {"argv": ["true"], "session": ""}), -32602,
                 "parameter 'session' is empty", "run with an empty session param: -32602, nothing runs")
    expect_error(lambda: c.call("no.such.method"), -32601, "Method not found",
                 "an unknown method: -32601")
    expect_error(lambda: c.call("mode.set", {"mode": 3, "session": sid}), -32602,
                 "'mode' must be a string", "a parameter of the wrong type: -32602")
    expect_error(lambda: c.call("run", {"command": "true", "argv": ["true"]}), -32602,
                 "not both", "run with command and argv: -32602")
    expect_error(lambda: c.call("run", {"session": sid}), -32602,
                 "no command: give command", "run with neither command nor argv: -32602")
    expect_error(lambda: c.call("run", {"command": "true", "colour": 1}), -32602,
                 "unknown parameter 'colour'", "an unknown parameter: -32602")
    expect_error(lambda: c.call("run", {"argv": ["echo", "x" * 200000], "session": sid}), -32602,
                 "more than the 131071 one argument of a program takes",
                 "run with an argument no program could take: -32602, nothing runs")
    expect_error(lambda: c.call("run", {"argv": ["echo"] + ["y" * 100000] * 12, "session": sid}), -32602,
                 "argv is 1200017 bytes in all", "run with over 1 MiB of argv: -32602")

    # approve: the client answers.
    c.on_ask = lambda p: {"result": {"decision": "allowed-once", "message": "fine by the test"}}
    r = c.call("approve", {"tool": "bash", "subject": "make deploy", "session": sid})
    check(r["outcome"] == "allowed-once" and r["answerer"] == "client"
          and r["reason"] == "fine by the test", "approve: the client allowed it", r)
    c.on_ask = lambda p: {"result": {"decision": "rejected"}}
    r = c.call("approve", {"tool": "bash", "subject": "make deploy", "session": sid})
    check(r["outcome"] == "rejected", "approve: the client rejected it (a result, not an error)", r)
    check(c.asked[-1]["request"]["subject"] == "make deploy"
          and c.asked[-1]["request"]["tool"] == "bash", "approval.ask carries the request",
          c.asked[-1])
    expect_error(lambda: c.call("approve", {"tool": "bash", "subject": "x"}), 64,
                 "session", "approve without a session: the CLI's error")
    ev = c.call("session.show", {"session": sid})["events"]
    decided = [e for e in ev if e["type"] == "approval/decided"]
    check(len(decided) == 2 and decided[0].get("reason") == "fine by the test",
          "session.show: the decisions and the client's message", decided)
    c.on_ask = None
    return sid


# ------------------------------------------------------------------ runs

def runs(c, sid):
    r, out, err = c.run({"command": "echo hi; echo there >&2", "session": sid})
    check(r["class"] == "ok" and r["exit"] == 0 and r["status"] == 0 and out == b"hi\n"
          and err == b"there\n" and r["mode"] == "workspace-write" and r["backend"] == "bwrap"
          and r["session"] == sid and r["cancelled"] is False,
          "run: the report and the output", (r, out, err))
    id, q = c.start("run", {"command": "echo 1; sleep 0.2; echo 2 >&2; sleep 0.2; echo 3;"
                            " sleep 0.2; echo 4 >&2", "session": sid})
    r = c.wait(id, q)
    check(c.merged(id) == b"1\n2\n3\n4\n" and json.dumps(id) not in c.left_out
          and [ch[0] for ch in c.chunks[json.dumps(id)]] == [1, 2, 3, 4],
          "run: seq across both streams rebuilds the order they were written in",
          c.chunks.get(json.dumps(id)))

    big = os.urandom(10 * 1024 * 1024)
    if big[-1:] == b"\n":
        big = big[:-1] + b"x"
    with open(os.path.join(WS, "big"), "wb") as f:
        f.write(big)
    t0 = time.time()
    id, q = c.start("run", {"argv": ["cat", "big"], "cwd": WS, "session": sid})
    r = c.wait(id, q, timeout=300)
    out = bytes(c.output[json.dumps(id)]["stdout"])
    half = 128 * 1024
    check(r["class"] == "ok" and out == big[:half] + big[-half:],
          "run: of 10 MB of random bytes without a final newline, the first and the last"
          " 128 KiB (output_limit 256K) arrive exact (%.2f s)" % (time.time() - t0),
          (r["class"], len(out)))
    lo = c.left_out.get(json.dumps(id), {})
    check(lo.get("bytes") == len(big) - 2 * half and lo.get("stdout") == len(big) - 2 * half
          and lo.get("stderr") == 0
          and r["output"] == {"limit": 2 * half, "stdout_bytes": len(big), "stderr_bytes": 0,
                              "stdout_left_out": len(big) - 2 * half, "stderr_left_out": 0},
          "run: run.left_out and the result say how many bytes were left out", (lo, r["output"]))
    seqs = [ch[0] for ch in c.chunks[json.dumps(id)]]
    kinds = [ch[1] for ch in c.chunks[json.dumps(id)]]
    check(seqs == list(range(1, len(seqs) + 1)) and kinds.count("left_out") == 1
          and b"".join(ch[2] for ch in c.chunks[json.dumps(id)]
                       if ch[1] != "left_out" and ch[0] < seqs[kinds.index("left_out")]) == big[:half],
          "run: seq counts the notifications, run.left_out between the head and the tail",
          (seqs[:5], kinds.index("left_out")))
    os.unlink(os.path.join(WS, "big"))
    os.makedirs(os.path.join(WS, "sub"), exist_ok=True)
    r, out, err = c.run({"argv": ["pwd"], "cwd": "sub", "session": sid})
    want = os.path.realpath(os.path.join(WS, "sub"))
    check(r["class"] == "ok" and out == (want + "\n").encode() and r["cwd"] == want,
          "run: a relative cwd is taken from the session's root, not the server's directory",
          (r, out, err))
    os.rmdir(os.path.join(WS, "sub"))
    r, out, err = c.run({"command": "printf '\\377\\000\\303(' >&2; printf 'no newline'",
                         "session": sid})
    check(out == b"no newline" and err == b"\xff\x00\xc3(", "run: invalid UTF-8 and NUL on stderr",
          (out, err))

    # The command holds none of the server's descriptors: not the
    # client's connection (stdio or socket), not the listening socket, not
    # another run's pipes.  ls opens the directory it lists as 3.
    other, q_other = c.start("run", {"command": "sleep 1", "session": sid})
    for mode in ("workspace-write", "danger-full-access"):
        c.call("mode.set", {"mode": mode, "session": sid})
        r, out, err = c.run({"argv": ["ls", "/proc/self/fd"], "session": sid})
        r0, out0, err0 = c.run({"argv": ["readlink", "/proc/self/fd/0"], "session": sid})
        check(r["class"] == "ok" and out == b"0\n1\n2\n3\n" and out0 == b"/dev/null\n",
              "run (%s): the command has descriptors 0 (/dev/null), 1 and 2 only" % mode,
              (out, out0, err))
    c.call("mode.set", {"mode": "workspace-write", "session": sid})
    c.wait(other, q_other)

    r, out, err = c.run({"command": "cat; wc -c", "stdin": "line one\nline two\n",
                         "session": sid})
    check(r["class"] == "ok" and out == b"line one\nline two\n0\n",
          "run: stdin is the text given, read to its end", (r, out, err))
    expect_error(lambda: c.call("run", {"command": "cat", "stdin": "x" * (1024 * 1024 + 1),
                                        "session": sid}),
                 -32602, "1 MiB", "run: stdin above 1 MiB is refused, saying the limit")
    r, out, err = c.run({"argv": ["readlink", "/proc/self/fd/0"], "session": sid})
    check(out == b"/dev/null\n", "run: the next run's stdin is /dev/null again", out)

    r, out, err = c.run({"command": "echo x > ../outside/new", "session": sid})
    check(r["class"] == "denied" and r["status"] != 0
          and not os.path.exists(os.path.join(T, "outside", "new")),
          "run: a write outside the root is denied and nothing is written", r)
    r, out, err = c.run({"argv": ["no-such-program-%s" % TAG], "session": sid})
    check(r["status"] == 127 and r["started"] is False and r["refused"] == "not-found",
          "run: a program that is not there is 127, nothing started", r)
    r, out, err = c.run({"command": "sleep 5", "timeout_s": 0.3, "session": sid})
    check(r["status"] == 124 and r["timed_out"] is True, "run: timeout_s", r)
    expect_error(lambda: c.call("run", {"command": "true", "session": "no-such-session"}), 64,
                 "", "run in an unknown session: an error with the consumer's status")

    # Several at once.
    t0 = time.time()
    started = [c.start("run", {"command": "sleep 1; echo %d" % i, "session": sid})
               for i in range(3)]
    res = [c.wait(id, q) for id, q in started]
    took = time.time() - t0
    check(all(x["class"] == "ok" for x in res) and took < 2.8,
          "run: three runs of 1 s at once take %.2f s" % took)
    for i, (id, q) in enumerate(started):
        o = c.output[json.dumps(id)]["stdout"]
        check(bytes(o) == b"%d\n" % i, "run %d: its own output under its own id" % i, o)

    # Cancel.
    marker = os.path.join(WS, "cancelled-marker")
    long_sleep = "9%s.5" % TAG
    id, q = c.start("run", {"command": "echo started; sleep %s; touch %s" % (long_sleep, marker),
                            "session": sid})
    key = json.dumps(id)
    wait_for(lambda: key in c.output and b"started" in c.output[key]["stdout"])
    check(wait_for(lambda: pids_with("sleep " + long_sleep)), "cancel: the command runs")
    expect_error(lambda: c.call("cancel", {"id": "no-such-run"}), -32602, "no run",
                 "cancel of an unknown id: an error")
    t0 = time.time()
    check(c.call("cancel", {"id": id}) == {"cancelled": True}, "cancel answers cancelled")
    r = c.wait(id, q)
    check(r["cancelled"] is True and r["signal"] == 15 and time.time() - t0 < 5,
          "cancel: the run's response says cancelled, killed by SIGTERM", r)
    check(not pids_with("sleep " + long_sleep), "cancel: nothing of the run is left")
    time.sleep(0.3)
    check(not os.path.exists(marker), "cancel: the command never went on")


# ----------------------------------------------------------- the network

def tcp_marker_server(marker):
    """A TCP server on 127.0.0.1 outside every sandbox: each connection
    appends what it got to marker.  Returns the port."""
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)

    def serve():
        while True:
            conn, _ = srv.accept()
            conn.settimeout(5)
            try:
                data = conn.recv(4096)
            except OSError:
                data = b"?"
            conn.close()
            with open(marker, "ab") as f:
                f.write(data or b"(nothing)")
    threading.Thread(target=serve, daemon=True).start()
    return srv.getsockname()[1]


def network(c, sid):
    n = c.call("network", {"session": sid})
    check(n["network"] == "restricted" and n["source"] in ("session", "config")
          and n["session"] == sid and n["mode"] == "workspace-write",
          "network: the session's network, as `warden network --json` says", n)
    check(c.call("network.set", {"network": "enabled", "session": sid})["message"]
          == "network: enabled", "network.set answers as the CLI prints")
    st = c.call("session.state", {"session": sid})
    check(st["network"]["value"] == "enabled" and st["network"]["source"] == "session",
          "session.state shows the session's network", st.get("network"))
    check("nothing written" in c.call("network.set", {"network": "enabled", "session": sid})["message"],
          "network.set again: nothing written, as the CLI says")
    expect_error(lambda: c.call("network.set", {"network": "open", "session": sid}), 64,
                 "network.set: not a network setting (allowed: restricted, allowlist, enabled)",
                 "network.set of a bad value: the operation's error, code 64")
    expect_error(lambda: c.call("network.set", {"network": "enabled", "session": "../x"}), 64,
                 "session id has a character outside",
                 "network.set with a bad session id: the operation's error")
    expect_error(lambda: c.call("network.set", {"session": sid}), -32602,
                 "parameter 'network' is required", "network.set without a value: -32602")
    check(c.call("network", {"session": sid})["network"] == "enabled",
          "a bad network.set changed nothing")
    check(c.call("network.set", {"network": "restricted", "session": sid})["message"]
          == "network: restricted", "network.set back to restricted")
    conf_ = c.call("confine", {"argv": ["true"], "mode": "workspace-write",
                               "network": "enabled", "root": WS})
    check(isinstance(conf_, dict) and conf_.get("network") == "enabled",
          "confine takes network", conf_)
    expect_error(lambda: c.call("confine", {"argv": ["true"], "network": "open", "root": WS}),
                 64, "network", "confine with a bad network: the CLI's usage error")

    marker = os.path.join(T, "net-marker-" + MODE)
    port = tcp_marker_server(marker)
    cmd = "echo reached-%s > /dev/tcp/127.0.0.1/%d && echo sent" % (TAG, port)
    r, out, err = c.run({"command": cmd, "session": sid})
    time.sleep(0.3)
    check(r["class"] == "denied" and r["network"] == "restricted" and r["network_denied"] is True
          and r["escalate_network"] is True and r["escalate_to"] is None
          and not os.path.exists(marker),
          "run: the restricted network denies a TCP connection to the host, escalate_network says "
          "how to ask, and the server was never reached", (r, err))

    expect_error(lambda: c.call("run", {"command": cmd, "escalate_network": True, "session": sid}),
                 -32602, "escalate_network needs justification",
                 "escalate_network without justification: -32602, nothing runs")
    expect_error(lambda: c.call("run", {"command": cmd, "escalate_network": "yes",
                                        "justification": "x", "session": sid}),
                 -32602, "'escalate_network' must be true or false",
                 "escalate_network not a boolean: -32602")

    def escalate(answer):
        c.on_ask = answer
        n = len(c.asked)
        r, out, err = c.run({"command": cmd, "escalate_network": True,
                             "justification": "the test reaches its server", "session": sid})
        time.sleep(0.3)
        return r, out, err, c.asked[n:]

    r, out, err, asked = escalate(lambda p: {"result": {"decision": "rejected", "message": "no network"}})
    esc = r.get("escalation") or {}
    check(len(asked) == 1 and asked[0]["request"]["requested_network"] == "enabled"
          and asked[0]["request"]["requested_mode"] is None,
          "escalate_network: approval.ask asks for the network alone", asked)
    check(r["started"] is False and esc.get("outcome") == "rejected" and esc.get("network") == "enabled"
          and esc.get("reason") == "no network" and out == b"" and not os.path.exists(marker),
          "escalate_network rejected: nothing runs, the server is not reached", (r, err))
    r, out, err, asked = escalate(lambda p: {"result": {"decision": "allowed-once"}})
    esc = r.get("escalation") or {}
    check(r["class"] == "ok" and r["network"] == "enabled" and esc.get("outcome") == "allowed-once"
          and out == b"sent\n" and r["mode"] == "workspace-write",
          "escalate_network allowed: the run has the network, still in workspace-write", (r, err))
    check(os.path.exists(marker) and open(marker, "rb").read() == b"reached-%s\n" % TAG.encode(),
          "escalate_network allowed: the host's server was reached once")
    os.unlink(marker)
    c.on_ask = None
    r, out, err = c.run({"command": cmd, "session": sid})
    time.sleep(0.3)
    check(r["class"] == "denied" and not os.path.exists(marker),
          "allowed once only: the next run is denied the network again", r)


# ------------------------------------------------------------- approvals

def approvals(c, sid):
    def escalate(answer, what, want_status, want_outcome, reason=None, slow=False):
        c.on_ask = answer
        t0 = time.time()
        n = len(c.asked)
        r, out, err = c.run({"command": "echo escalated-%s" % TAG, "escalate": "danger-full-access",
                             "justification": "the test needs it", "call_id": "call-%s" % what,
                             "session": sid})
        took = time.time() - t0
        esc = r.get("escalation") or {}
        good = (r["status"] == want_status and esc.get("outcome") == want_outcome
                and len(c.asked) == n + 1)
        if reason is not None:
            good = good and reason in (esc.get("reason") or "")
        if want_outcome == "allowed-once":
            good = good and out == b"escalated-%s\n" % TAG.encode() \
                and r["mode"] == "danger-full-access"
        else:
            good = good and out == b""
        if slow:
            good = good and took >= 1.4
        check(good, "escalation, client %s: %s (status %d)" % (what, want_outcome, r["status"]),
              (r, out, took))
        return r

    r = escalate(lambda p: {"result": {"decision": "allowed-once", "message": "go ahead, once"}},
                 "allows", 0, "allowed-once", "go ahead, once")
    a = c.asked[-1]["request"]
    check(a["argv"] == ["bash", "-c", "echo escalated-%s" % TAG] and a["cwd"] == WS
          and a["requested_mode"] == "danger-full-access" and a["reason"] == "the test needs it"
          and a["call_id"] == "call-allows" and a["program"].endswith("bash"),
          "approval.ask shows what will run", a)
    escalate(lambda p: {"result": {"decision": "rejected", "message": "not today"}},
             "rejects", 77, "rejected", "not today")
    escalate(lambda p: {"result": {"decision": "cancelled"}}, "cancels", 77, "cancelled")
    escalate(lambda p: {"result": {"decision": "maybe"}}, "replies malformed", 77,
             "unavailable", "malformed")
    escalate(lambda p: {"result": "yes"}, "replies a string", 77, "unavailable", "malformed")
    escalate(lambda p: {"error": {"code": 1, "message": "no"}}, "replies an error", 77,
             "unavailable")
    # Not a JSON-RPC response: a yes in it counts for nothing.
    escalate(lambda p: {"result": {"decision": "allowed-once"},
                        "error": {"code": -1, "message": "user denied"}},
             "replies both a result and an error", 77, "unavailable", "error")
    escalate(lambda p: {"jsonrpc": None, "result": {"decision": "allowed-once"}},
             "replies without jsonrpc", 77, "unavailable", "error")
    escalate(lambda p: None, "never replies", 77, "unavailable", "no reply", slow=True)
    check(wait_for(lambda: any(w["ask"] == c.ask_ids[-1] for w in c.withdrawn), timeout=5)
          and [w for w in c.withdrawn if w["ask"] == c.ask_ids[-1]][0]["reason"]
          == "no answer came in time",
          "never replies: approval.withdrawn voids that approval.ask", c.withdrawn[-3:])

    # A run cancelled while its approval.ask waits: the question is
    # withdrawn, naming the approval.ask's id and the run's.
    c.on_ask = lambda p: None
    n = len(c.asked)
    rid = "withdrawn-%s" % TAG
    id, q = c.start("run", {"command": "echo never-%s" % TAG, "escalate": "danger-full-access",
                            "justification": "to be cancelled", "session": sid}, id=rid)
    check(wait_for(lambda: len(c.asked) > n), "cancel while asking: the client is asked")
    ask_id = c.ask_ids[-1]
    check(c.call("cancel", {"id": rid}) == {"cancelled": True}, "cancel while asking: cancelled")
    r = c.wait(id, q)
    w = [x for x in c.withdrawn if x["ask"] == ask_id]
    check(r.get("cancelled") is True and len(w) == 1 and w[0]["id"] == rid
          and w[0]["reason"] == "the run was cancelled",
          "cancel while asking: approval.withdrawn {ask, id, reason} came", (r, c.withdrawn[-3:]))

    # The client goes away while asked (stdio: its input ends, its output
    # is still read): the question is withdrawn before serve ends.  Over
    # a socket the connection is gone both ways: nothing to tell.
    if MODE == "stdio":
        c2 = connect()
        c2.on_ask = lambda p: None
        id2, q2 = c2.start("run", {"command": "echo never-%s" % TAG,
                                   "escalate": "danger-full-access",
                                   "justification": "client leaves", "session": sid})
        check(wait_for(lambda: len(c2.asked) == 1), "client leaves: it is asked")
        rc = c2.close()
        check(rc == 0 and len(c2.withdrawn) == 1 and c2.withdrawn[0]["ask"] == c2.ask_ids[0]
              and c2.withdrawn[0]["reason"] == "the client went away",
              "client leaves while asked: approval.withdrawn came before serve ended",
              (rc, c2.withdrawn))
    # A cancel and an answer that cross: both in one write, the cancel
    # first.  The run is withdrawn and the answer discarded: the command
    # never runs.  (When the server still passed such an answer on, the
    # worker read it before the signal in a few tries of a hundred, and the
    # command ran unconfined; the worker now also discards an answer that a
    # withdrawal crossed.)
    marker = os.path.join(WS, "crossed-marker")
    crossed_ok = True
    for i in range(25):
        rid = "crossed-%s-%d" % (TAG, i)
        cid = "cancel-" + rid
        pending = {}

        def crossed(p, rid=rid, cid=cid, pending=pending):
            with c._lock:
                pending["q"] = c._waiting[json.dumps(cid)] = queue.Queue()
            c.send_raw((json.dumps({"jsonrpc": "2.0", "id": cid, "method": "cancel",
                                    "params": {"id": rid}}) + "\n" +
                        json.dumps({"jsonrpc": "2.0", "id": c.ask_id,
                                    "result": {"decision": "allowed-once"}}) + "\n").encode())
            return None
        c.on_ask = crossed
        id, q = c.start("run", {"command": "touch %s" % marker, "escalate": "danger-full-access",
                                "justification": "crossed", "session": sid}, id=rid)
        r = c.wait(id, q)
        cancel_said = c.wait(cid, pending["q"]) if "q" in pending else None
        time.sleep(0.05)
        if os.path.exists(marker) or r.get("cancelled") is not True or \
                (r.get("escalation") or {}).get("outcome") == "allowed-once" or \
                cancel_said != {"cancelled": True}:
            crossed_ok = False
            check(False, "a cancel crossed by an answer: try %d" % i, (r, cancel_said))
            break
    check(crossed_ok, "a cancel crossed by an allowed-once answer, 25 tries: never ran, "
          "every run cancelled")
    c.on_ask = None

    decided = log_events(sid, "approval/decided")
    by_call = {e.get("call_id"): e for e in decided}
    check(by_call["call-allows"]["reason"] == "go ahead, once"
          and by_call["call-allows"]["answerer"] == "client"
          and by_call["call-rejects"]["reason"] == "not today",
          "approval/decided records the client's one-line message", by_call.get("call-allows"))
    c.on_ask = None

    # No client: the CLI's run; the client answerer delegates.
    p = subprocess.run([WARDEN, "--config", conf("ww"), "--session", sid, "run", "--json",
                        "--escalate", "danger-full-access", "--justification", "no client",
                        "-c", "echo never"], capture_output=True, cwd=WS, stdin=subprocess.DEVNULL)
    res = json.loads(p.stdout.splitlines()[-1])
    check(p.returncode == 77 and res["escalation"]["outcome"] == "unavailable"
          and res["escalation"]["delegated"] == ["client"] and b"never\n" not in p.stdout
          and "client: no client is connected" in res["escalation"]["reason"],
          "no client connected: the client answerer delegates, and the reason says so",
          res.get("escalation"))


# ----------------------------------------------------------- the socket

def socket_only(c, sid):
    st = os.stat(SOCK)
    check(st.st_mode & 0o777 == 0o600 and st.st_uid == os.geteuid(), "the socket is 0600, ours",
          oct(st.st_mode))

    def as_nobody(path):
        """Connects as nobody and sends a request: the reply, or why none."""
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
                import socket
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.settimeout(10)
                s.connect(path)
                s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"session.new"}\n')
                got = s.recv(4096)
                msg = b"reply:" + got
            except Exception as e:  # noqa: BLE001
                msg = ("error:%s" % e).encode()
            os.write(w, msg)
            os._exit(0)
        os.close(w)
        out = b""
        while True:
            b = os.read(r, 4096)
            if not b:
                break
            out += b
        os.waitpid(pid, 0)
        return out.decode(errors="replace")

    def unreachable(path):
        """The first directory above path that others cannot search."""
        d = os.path.dirname(os.path.realpath(path))
        while True:
            if not os.stat(d).st_mode & stat.S_IXOTH:
                return d
            if d == "/":
                return None
            d = os.path.dirname(d)

    far = unreachable(SOCK) if os.geteuid() == 0 else None
    if os.geteuid() != 0:
        print("skip: another user on the socket needs root (setuid to nobody)")
    elif far is not None:
        print("note: SKIP (another user on the socket): nobody cannot search %s, above the socket" % far)
    else:
        got = as_nobody(SOCK)
        check(got.startswith("error:") and "Permission denied" in got,
              "nobody cannot connect to the 0600 socket", got)
        # Even when the socket's mode lets it in, the server refuses.
        os.chmod(SOCK, 0o666)
        got = as_nobody(SOCK)
        os.chmod(SOCK, 0o600)
        check(got in ("reply:",) or got.startswith("error:"),
              "nobody on a socket opened to all: no reply", got)
        check(wait_for(lambda: "refused a connection: uid 65534" in server_log()),
              "the server says it refused uid 65534", server_log()[-500:])

    # A confined command tries the socket.
    # (Restricted, the sandbox refuses the unix socket itself: "error:".)
    probe = ("import socket, sys\n"
             "try:\n"
             "    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
             "    s.settimeout(10)\n"
             "    s.connect(sys.argv[1])\n"
             "    s.sendall(b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session.new\"}\\n')\n"
             "    print('reply:', s.recv(4096))\n"
             "except Exception as e:\n"
             "    print('error:', e)\n")
    before = server_log().count("refused a connection")
    r, out, err = c.run({"argv": ["python3", "-c", probe, SOCK], "session": sid})
    check(r["backend"] == "bwrap" and (b"error:" in out or out == b"reply: b''\n")
          and b"result" not in out,
          "a command confined by bwrap cannot use the server's socket", (r["class"], out, err))
    # Unconfined but started by this server: refused as well.
    c.call("mode.set", {"mode": "danger-full-access", "session": sid})
    r, out, err = c.run({"argv": ["python3", "-c", probe, SOCK], "session": sid})
    c.call("mode.set", {"mode": "workspace-write", "session": sid})
    check(r["mode"] == "danger-full-access" and b"result" not in out,
          "an unconfined command this server started cannot use its socket", (r["mode"], out))
    check(wait_for(lambda: server_log().count("refused a connection") >= before + 1),
          "the server says it refused them", server_log()[-800:])
    # Confined by Landlock in another warden: it lives in other namespaces.
    p = subprocess.run([WARDEN, "--config", conf("ll"), "run", "--json", "--",
                        "python3", "-c", probe, SOCK], capture_output=True, cwd=WS,
                       stdin=subprocess.DEVNULL)
    lines = p.stdout.splitlines()
    res = json.loads(lines[-1])
    check(res["backend"] == "landlock" and b"result" not in p.stdout,
          "a command confined by Landlock cannot use the socket", (res["backend"], lines[:-1]))
    check(wait_for(lambda: "another mount or PID namespace" in server_log()),
          "the server refused it as sandboxed", server_log()[-800:])
    # With the network enabled the sandbox lets the unix socket be made:
    # the server's own refusal is what stands.
    c.call("network.set", {"network": "enabled", "session": sid})
    before = server_log().count("is a command this server started")
    r, out, err = c.run({"argv": ["python3", "-c", probe, SOCK], "session": sid})
    c.call("network.set", {"network": "restricted", "session": sid})
    check(r["backend"] == "bwrap" and r["network"] == "enabled" and b"result" not in out
          and wait_for(lambda: server_log().count("is a command this server started") > before),
          "network enabled: a command this server confined reaches the socket and is refused",
          (r["network"], out, server_log()[-500:]))
    before = server_log().count("another mount or PID namespace")
    p = subprocess.run([WARDEN, "--config", conf("bwnet"), "run", "--json", "--",
                        "python3", "-c", probe, SOCK], capture_output=True, cwd=WS,
                       stdin=subprocess.DEVNULL)
    res = json.loads(p.stdout.splitlines()[-1])
    check(res["backend"] == "bwrap" and res["network"] == "enabled" and b"result" not in p.stdout
          and wait_for(lambda: server_log().count("another mount or PID namespace") > before),
          "network enabled: a command another warden confined with bwrap is refused as sandboxed",
          (res["network"], p.stdout[-300:], server_log()[-500:]))
    # The harness itself still connects.
    c2 = connect()
    check(len(c2.call("session.new", {"cwd": WS})["session"]) > 10, "a second connection works")
    c2.close()


def roots(c, sid):
    extra = os.path.join(T, "extra-" + MODE)
    os.makedirs(extra, exist_ok=True)
    os.chmod(extra, 0o755)
    check(c.call("roots.add", {"dir": extra, "session": sid})["message"]
          == "roots: added " + extra, "roots.add answers as the CLI prints")
    lst = c.call("roots.list", {"session": sid})
    check(lst["source"] == "session" and [r["path"] for r in lst["roots"]] == [extra],
          "roots.list: the session's root", lst)
    st = c.call("session.state", {"session": sid})
    check(st["roots"]["source"] == "session"
          and [r["path"] for r in st["roots"]["value"]] == [extra],
          "session.state shows the session's roots", st.get("roots"))
    r, out, err = c.run({"argv": ["sh", "-c", "echo r >" + extra + "/r"], "session": sid})
    check(r.get("class") == "ok" and open(os.path.join(extra, "r")).read() == "r\n",
          "a run writes in the added root, on the host", r)
    expect_error(lambda: c.call("roots.add", {"dir": "relative", "session": sid}), -32602,
                 "absolute", "roots.add of a relative dir: -32602")
    expect_error(lambda: c.call("roots.add", {"dir": WS, "session": sid}), 64,
                 "workspace root", "roots.add of the workspace root: the operation's refusal")
    check(c.call("roots.remove", {"dir": extra, "session": sid})["message"]
          == "roots: removed " + extra, "roots.remove answers as the CLI prints")
    os.unlink(os.path.join(extra, "r"))
    r, out, err = c.run({"argv": ["sh", "-c", "echo r >" + extra + "/r"], "session": sid})
    check(r.get("class") == "denied" and not os.path.exists(os.path.join(extra, "r")),
          "after roots.remove the write is denied and nothing reaches the host", r)


def grants(c):
    """Session grants over serve: approval.ask offers grant_scopes, the client
    answers allowed-for-session with one of them, a covered run is not
    asked, grant.list and grant.revoke are the CLI's."""
    sid = c.call("session.new", {"cwd": WS})["session"]

    def run(word):
        n = len(c.asked)
        r, out, err = c.run({"argv": ["echo", "grant-" + TAG, word], "escalate": "danger-full-access",
                             "justification": "grants", "session": sid})
        return r, out, len(c.asked) - n

    c.on_ask = lambda p: {"result": {"decision": "allowed-for-session", "scope": "prefix:2"}}
    r, out, n = run("a")
    g = (r.get("escalation") or {}).get("grant") or {}
    offered = [s["name"] for s in c.asked[-1]["request"].get("grant_scopes", [])]
    check(r["status"] == 0 and n == 1 and out == ("grant-%s a\n" % TAG).encode()
          and g.get("scope") == "prefix:2" and g.get("new") is True
          and offered == ["exact", "prefix:2", "prefix:1"],
          "grants: the client grants prefix:2 of what approval.ask offers", (r, offered))
    c.on_ask = lambda p: {"result": {"decision": "rejected"}}
    r, out, n = run("b")
    check(r["status"] == 0 and n == 0 and out == ("grant-%s b\n" % TAG).encode()
          and r["escalation"]["grant"] == {"id": g.get("id"), "scope": "prefix:2", "new": False},
          "grants: a run the grant covers is not asked", r)
    lst = c.call("grant.list", {"session": sid})
    check([x["id"] for x in lst["grants"]] == [g.get("id")] and lst["grants"][0]["name"] == "prefix:2",
          "grant.list: the grant in force", lst)
    check(c.call("grant.revoke", {"grant": g.get("id"), "session": sid})["message"]
          == "grant: revoked " + g.get("id", ""), "grant.revoke answers as the CLI prints")
    r, out, n = run("b")
    check(r["status"] == 77 and n == 1 and out == b"", "grants: revoked, the client is asked again", r)
    expect_error(lambda: c.call("grant.revoke", {"grant": g.get("id"), "session": sid}), 64,
                 "no grant", "grant.revoke of a revoked grant: the operation's refusal")
    c.on_ask = lambda p: {"result": {"decision": "allowed-for-session", "scope": "prefix:9"}}
    r, out, n = run("c")
    check(r["status"] == 77 and r["escalation"]["outcome"] == "unavailable"
          and "does not offer" in (r["escalation"]["reason"] or ""),
          "grants: a scope the request does not offer is unavailable", r)
    c.on_ask = None


# ------------------------------------------------------- cancel, config

def log_lines(sid):
    with open(os.path.join(T, "state", sid + ".jsonl"), "rb") as f:
        return f.read().count(b"\n")


def cancel_races(c):
    """A write and its cancel sent close together, at delays that land the
    cancel before, during and after the write: the answer always says what
    the log shows (an error only when nothing was written; a change
    answered only when it was written), also for a preset that opens the
    session wide."""
    import random
    sid = c.call("session.new", {"cwd": WS})["session"]
    seen = {"written": 0, "stopped": 0}
    bad = []
    for i in range(80):
        if i % 2 == 0:
            method, params = "mode.set", {"mode": ["read-only", "workspace-write"][i // 2 % 2]}
        else:
            method, params = "preset.select", {"name": ["danger-full-access", "workspace-write"][i // 2 % 2]}
        params["session"] = sid
        before = log_lines(sid)
        rid = "race-%d" % i
        rid_, q = c.start(method, params, id=rid)
        time.sleep(random.uniform(0, 0.004))
        cid, cq = c.start("cancel", {"id": rid})
        try:
            r, e = c.wait(rid, q), None
        except RpcError as err:
            r, e = None, err
        try:
            c.wait(cid, cq)
        except RpcError:
            pass    # the call had ended: nothing to cancel
        grew = log_lines(sid) > before
        if e is not None:
            seen["stopped"] += 1
            if grew or e.code != 77 or "nothing was written" not in e.message:
                bad.append((method, "error", e.code, e.message, "log grew" if grew else ""))
        else:
            seen["written"] += r["changed"] is True
            if r["changed"] is True and not grew:
                bad.append((method, "answered changed, nothing in the log", r))
            if r["changed"] is False and grew:
                bad.append((method, "answered unchanged, the log grew", r))
    check(not bad, "write and cancel raced 80 times: every answer says what the log shows "
          "(%d written, %d stopped before writing)" % (seen["written"], seen["stopped"]), bad[:3])
    st = c.call("session.state", {"session": sid})
    cur = c.call("preset.current", {"session": sid})
    check(st["mode"]["value"] == cur["sandbox"], "after the races, session.state and "
          "preset.current agree with each other", (st["mode"], cur))


def one_config(c):
    """A server's calls all use the config it started with: the file edited
    behind its back changes neither session.state nor a run, and
    config.check (whose job it is) reads the file again."""
    path = os.path.join(T, "edited-" + MODE + ".ini")
    with open(conf("ww")) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text)
    errf = open(os.path.join(T, "edited.err"), "ab")
    s = Client.stdio([WARDEN, "--config", path, "serve"], stderr=errf)
    try:
        sid = s.call("session.new", {"cwd": WS})["session"]
        with open(path, "w") as f:
            f.write(text.replace("default_mode = workspace-write", "default_mode = read-only"))
        st = s.call("session.state", {"session": sid})
        probe = os.path.join(WS, "one-config-" + MODE)
        r, out, err = s.run({"argv": ["touch", probe], "session": sid})
        check(st["mode"]["value"] == "workspace-write" and r.get("mode") == "workspace-write"
              and os.path.exists(probe),
              "the config edited under serve: session.state and a run both keep the one it started with",
              (st["mode"], r.get("mode")))
        cur = s.call("preset.current", {"session": sid})
        check(cur["sandbox"] == "workspace-write", "preset.current too", cur)
        chk = s.call("config.check")
        check(chk.get("ok") is True and chk.get("config") == path,
              "config.check reads the file again", chk)
        if os.path.exists(probe):
            os.unlink(probe)
    finally:
        s.close()
        errf.close()


def show_pages(c):
    """session.show of a log larger than one answer holds: pages of at most
    2 MiB of events, next_after to the next one, null at the end; together
    exactly the events the CLI shows."""
    sid = c.call("session.new", {"cwd": WS})["session"]
    c.on_ask = lambda p: {"result": {"decision": "rejected"}}
    for i in range(40):
        c.call("approve", {"tool": "bash", "subject": ("%02d" % i) + "x" * 60000, "session": sid})
    c.on_ask = None
    pages, after = [], 0
    while after is not None and len(pages) < 20:
        pg = c.call("session.show", {"session": sid, "after": after})
        pages.append(pg)
        after = pg["next_after"]
    got = [e for pg in pages for e in pg["events"]]
    out = subprocess.run([WARDEN, "--config", conf("ww"), "session", "show", sid, "--json"],
                         capture_output=True, check=True).stdout
    want = json.loads(out)["events"]
    sizes = [len(json.dumps(pg["events"])) for pg in pages]
    check(len(pages) >= 2 and got == want and max(sizes) <= 2 * 1024 * 1024 + 65536,
          "session.show of a %d-byte log: %d pages, next_after, the CLI's events exactly"
          % (len(out), len(pages)), (len(pages), sizes, len(got), len(want)))
    check(c.call("session.show", {"session": sid, "after": None})["events"] == pages[0]["events"],
          "session.show with after null: from the start, as without it")
    expect_error(lambda: c.call("session.show", {"session": sid, "after": -1}), -32602,
                 "'after' must be an integer", "session.show with a negative after: -32602")
    last = want[-1]["seq"]
    check(c.call("session.show", {"session": sid, "after": last}) ==
          {"session": sid, "events": [], "next_after": None},
          "session.show after the last event: none, next_after null")


def write_order(c):
    """Writes sent one after the other without waiting are made in that
    order (a pipelined widen-then-narrow ends narrow, every time); a
    queued write cancelled before its turn is never made."""
    sid = c.call("session.new", {"cwd": WS})["session"]
    wrong = []
    for i in range(25):
        a = c.start("mode.set", {"mode": "danger-full-access", "session": sid})
        b = c.start("preset.select", {"name": "danger-full-access", "session": sid})
        d = c.start("mode.set", {"mode": "read-only", "session": sid})
        for id_, q in (a, b, d):
            c.wait(id_, q)
        mode = c.call("session.state", {"session": sid})["mode"]["value"]
        if mode != "read-only":
            wrong.append((i, mode))
    check(not wrong, "25 times widen, widen, narrow sent at once: the session ends read-only", wrong)
    modes = [e["mode"] for e in log_events(sid, "sandbox/mode")]
    check(modes == ["danger-full-access", "read-only"] * 25,
          "the log holds the writes in the order they were sent", modes[:6])
    # A write queued behind another, cancelled before its turn.
    before = log_lines(sid)
    a = c.start("mode.set", {"mode": "workspace-write", "session": sid})
    b = c.start("mode.set", {"mode": "danger-full-access", "session": sid})
    said = c.call("cancel", {"id": b[0]})
    try:
        c.wait(b[0], b[1])
        fail("a queued write cancelled: no error")
    except RpcError as e:
        check(e.code == 77 and "nothing was written" in e.message and said == {"cancelled": True},
              "a queued write cancelled before its turn: 77, nothing written", e.message)
    c.wait(a[0], a[1])
    check(c.call("session.state", {"session": sid})["mode"]["value"] == "workspace-write"
          and log_lines(sid) == before + 1, "only the write before it was made")
    # With the session's log held here, the first write waits for it and
    # the rest queue: one reusing a queued id, or past the most that may
    # wait (256), is refused at once; the others are made, in order, once
    # the log is free.
    import fcntl
    with open(os.path.join(T, "state", sid + ".jsonl"), "rb") as lf:
        fcntl.flock(lf, fcntl.LOCK_EX)
        first = c.start("policy.set", {"policy": "never", "session": sid}, id="held-0")
        queued = [c.start("policy.set", {"policy": ["ask", "never"][i % 2], "session": sid},
                          id="held-%d" % (i + 1)) for i in range(260)]
        # The refusal of a second "held-7" comes on that id's queue, before
        # the first "held-7" (queued behind the held log) can answer.
        c.send({"jsonrpc": "2.0", "id": "held-7", "method": "mode.set",
                "params": {"mode": "read-only", "session": sid}})
        refused = []
        for id_, q in queued[256:]:
            try:
                c.wait(id_, q)
            except RpcError as e:
                refused.append((e.code, "too many writes" in e.message))
        m = queued[6][1].get(timeout=30)
        dup_err = RpcError(m["error"]) if "error" in m else None
        # A run or a read reusing a queued write's id: refused too.
        c.send({"jsonrpc": "2.0", "id": "held-9", "method": "run", "params": {"argv": ["true"]}})
        c.send({"jsonrpc": "2.0", "id": "held-10", "method": "plugins"})
        m9, m10 = queued[8][1].get(timeout=30), queued[9][1].get(timeout=30)
        check(all(m_.get("error", {}).get("code") == -32600 and "still going on" in m_["error"]["message"]
                  for m_ in (m9, m10)),
              "a run and a read reusing the id of a queued write: refused at once, -32600", (m9, m10))
        fcntl.flock(lf, fcntl.LOCK_UN)
    made = [c.wait(id_, q) for id_, q in [first] + queued[:256]]
    check(refused == [(-32600, True)] * 4, "past 256 waiting writes: refused at once, -32600", refused)
    check(dup_err is not None and dup_err.code == -32600 and "still going on" in dup_err.message,
          "a write reusing the id of a queued one: refused at once, -32600",
          dup_err and dup_err.message)
    pol = [e["policy"] for e in log_events(sid, "approval/policy")]
    check(len(made) == 257 and pol[-257:] == ["never"] + [["ask", "never"][i % 2] for i in range(256)],
          "the 257 writes that waited were made in order once the log was free", pol[-4:])


def main():
    if MODE == "socket":
        socket_dirs()
        start_socket_server()
    c = connect()
    try:
        sid = methods(c)
        runs(c, sid)
        network(c, sid)
        roots(c, sid)
        approvals(c, sid)
        grants(c)
        cancel_races(c)
        write_order(c)
        if MODE == "stdio":
            one_config(c)
            show_pages(c)
        if MODE == "socket":
            socket_only(c, sid)
        check(not c.unknown, "nothing unexpected came", c.unknown[:3])
    finally:
        rc = c.close()
        if MODE == "stdio":
            check(rc == 0, "serve ends with its input (status %r)" % rc)
        if server is not None:
            server.terminate()
            server.wait(timeout=20)
            check(not os.path.exists(SOCK), "the socket is removed when serve ends")
    if failures:
        print("%d failure(s)" % failures)
        sys.exit(1)


main()

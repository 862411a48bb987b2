#!/usr/bin/python3
"""protocol.py -- warden(1)'s PROTOCOL section against a running server.

Reads the reference out of man/warden.1.in (methods with their params,
error codes, for `serve` and for `mcp`) and checks it both ways against
`warden serve` and `warden mcp`:

  - every documented method exists (calling it is not -32601) and an
    undocumented name is -32601;
  - every documented param is accepted by name (never "unknown
    parameter"), every one documented as required is refused when
    missing, and a key the reference does not list is refused;
  - every documented error code is produced by one of the requests made
    here, and no request produces a code the reference does not list.

Usage: protocol.py MANPAGE WARDEN DIR CONFIG MISSING_CONFIG
  DIR is a scratch directory; CONFIG a config with a working backend and
  the client answerer; MISSING_CONFIG one whose only backend is missing.
"""
import fcntl
import json
import os
import re
import resource
import select
import shutil
import subprocess
import sys
import time

MAN, WARDEN, DIR, CONFIG, MISSING = sys.argv[1:6]
failures = 0

# Codes the reference lists that no request from outside can bring about:
# each needs a failure inside warden itself.  They must stay documented.
UNREACHABLE = {
    ("serve", -32603): "a call's worker that ends without an answer",
    ("mcp", -32603): "out of memory",
}


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg, flush=True)


def ok(msg):
    print("ok: " + msg, flush=True)


# ------------------------------------------------------------ the reference

def roff_text(line):
    """The words of a roff line: requests and quotes dropped."""
    line = re.sub(r"^\.[A-Z]+ ?", "", line)
    line = line.replace("\\-", "-").replace('"', "")
    line = re.sub(r"\\f[BIRP]", "", line)
    return line.strip()


def read_reference(path):
    """{subsection title: [(name, [lines])]} of the PROTOCOL section."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, section, sub, entry = {}, None, None, None
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith(".SH "):
            section = roff_text(ln)
            sub = entry = None
        elif section == "PROTOCOL" and ln.startswith(".SS "):
            sub = roff_text(ln)
            out[sub] = []
            entry = None
        elif section == "PROTOCOL" and sub is not None and ln == ".TP" \
                and i + 1 < len(lines) and lines[i + 1].startswith(".B "):
            entry = (roff_text(lines[i + 1]), [])
            out[sub].append(entry)
            i += 1
        elif section == "PROTOCOL" and ln.startswith(".PP"):
            entry = None
        elif entry is not None:
            entry[1].append(ln)
        i += 1
    return out


def params_of(body):
    """[(name, required)] from an entry's "Params:" to its "Result:"."""
    got, on = [], False
    for k, ln in enumerate(body):
        if ln.startswith("Params:"):
            on = True
            continue
        if ln.startswith("Result:") or ln.startswith("The client's result:"):
            break
        spec = body[k + 1] if k + 1 < len(body) else ""
        # A param is ".I NAME" and then "(TYPE, required|optional...";
        # a name mentioned inside another's description is not one.
        if on and ln.startswith(".I ") and spec.startswith("("):
            first = spec.split(")")[0]
            got.append((roff_text(ln), ", required" in first))
    return got


ref = read_reference(MAN)
for want in ("serve: methods", "serve: notifications", "serve: errors",
             "mcp: methods", "mcp: errors"):
    if not ref.get(want):
        fail("warden(1) PROTOCOL has no entries under \"%s\"" % want)
serve_methods = {n: params_of(b) for n, b in ref.get("serve: methods", [])}
mcp_methods = {n: params_of(b) for n, b in ref.get("mcp: methods", [])}
serve_codes = {int(n) for n, _ in ref.get("serve: errors", [])}
mcp_codes = {int(n) for n, _ in ref.get("mcp: errors", [])}
notifications = {n for n, _ in ref.get("serve: notifications", [])}
ok("the reference: %d serve methods, %d codes; %d mcp methods, %d codes"
   % (len(serve_methods), len(serve_codes), len(mcp_methods), len(mcp_codes)))
for (face, code), why in UNREACHABLE.items():
    if code not in (serve_codes if face == "serve" else mcp_codes):
        fail("%s: code %d (%s) is not in the reference" % (face, code, why))


# `warden serve --help` names every method, and no other.
helptext = subprocess.run([WARDEN, "serve", "--help"], capture_output=True,
                          text=True).stdout
listed = re.search(r"Methods: (.*?)\.  ", helptext.replace("\n", " "))
listed = set(re.split(r",\s*", listed.group(1))) if listed else set()
if listed == set(serve_methods):
    ok("serve --help names the documented methods")
else:
    fail("serve --help names %s; the reference %s"
         % (sorted(listed), sorted(serve_methods)))


# ------------------------------------------------------------- the servers

class Server:
    def __init__(self, argv, face):
        self.face = face
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, cwd=DIR)
        self.next = 1000
        self.seen = {}          # code -> the first request that brought it
        self.notes = []         # the notifications, in order
        self.requests = []      # the server's requests, in order
        self.buf = b""          # what was read past the last line

    def line(self, text):
        self.proc.stdin.write(text.encode() + b"\n")
        self.proc.stdin.flush()

    def send(self, method, params=None, id=None):
        if id is None:
            self.next += 1
            id = self.next
        m = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            m["params"] = params
        self.line(json.dumps(m))
        return id

    def read(self, timeout=30):
        """The next message, or None at end of output."""
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no message from the server in %d s" % timeout)
            r, _, _ = select.select([fd], [], [], left)
            if r:
                chunk = os.read(fd, 65536)
                if not chunk:
                    return None
                self.buf += chunk
        ln, self.buf = self.buf.split(b"\n", 1)
        m = json.loads(ln)
        if "method" in m and "id" not in m:
            self.notes.append(m)
        elif "method" in m:
            self.requests.append(m)
        return m

    def reply(self, id, what, on_request=None):
        """The response to id (what: the request, for the record)."""
        while True:
            m = self.read()
            if m is None:
                raise EOFError("the server ended before answering " + what)
            if "method" in m:
                if "id" in m and on_request is not None:
                    on_request(m)
                continue
            if m.get("id") != id:
                continue
            if "error" in m:
                self.seen.setdefault(m["error"]["code"], what)
            return m

    def call(self, method, params=None, on_request=None):
        id = self.send(method, params)
        return self.reply(id, "%s %s" % (method, json.dumps(params)), on_request)

    def raw(self, text, what):
        """A line that gets an error with a null id (or the id given)."""
        self.line(text)
        while True:
            m = self.read()
            if m is None:
                raise EOFError("the server ended after " + what)
            if "method" not in m:
                if "error" in m:
                    self.seen.setdefault(m["error"]["code"], what)
                return m

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def code(m):
    return m.get("error", {}).get("code")


def expect_code(m, want, what):
    if code(m) == want:
        ok("%s: %d" % (what, want))
    else:
        fail("%s: want error %d, got %s" % (what, want, json.dumps(m)[:300]))


def children(pid):
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(d))
        except (OSError, ValueError, IndexError):
            pass
    return out


def alive(pid):
    """A process that exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def subtree(pid):
    got = [pid]
    for k in children(pid):
        got += subtree(k)
    return got


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read()
    except OSError:
        return b""


# A wrong value for each param's type: the param is then refused for its
# value, which shows that its name was accepted.
WRONG = {"argv": "not-an-array", "timeout_s": "x", "require_full": "x",
         "escalate_network": "x", "deadline_ms": "x", "id": [0]}


def check_params(srv, methods):
    for name, params in sorted(methods.items()):
        for p, required in params:
            m = srv.call(name, {p: WRONG.get(p, 12345)})
            msg = m.get("error", {}).get("message", "")
            if "unknown parameter" in msg:
                fail("%s: documented param '%s' is refused as unknown: %s"
                     % (name, p, msg))
            else:
                ok("%s: param '%s' is known" % (name, p))
            if required:
                others = {q: "x" for q, _ in params if q != p}
                others.pop("session", None)
                m = srv.call(name, others or None)
                msg = m.get("error", {}).get("message", "")
                if code(m) == -32602 and p in msg:
                    ok("%s: param '%s' is required" % (name, p))
                else:
                    fail("%s: documented as required, '%s' missing is not "
                         "refused: %s" % (name, p, json.dumps(m)[:300]))
        m = srv.call(name, {"no_such_param": 1})
        if code(m) == -32602 and "no_such_param" in m["error"].get("message", ""):
            ok("%s: an undocumented param is refused" % name)
        else:
            fail("%s: an undocumented param is not refused: %s"
                 % (name, json.dumps(m)[:300]))


# ------------------------------------------------------------------ serve

live = os.path.join(DIR, "live.ini")
shutil.copy(CONFIG, live)
srv = Server([WARDEN, "--config", live, "serve"], "serve")
try:
    # Every documented method exists; an undocumented one does not.
    for name in sorted(serve_methods):
        m = srv.call(name, {"no_such_param": 1})
        if code(m) == -32601:
            fail("serve: documented method %s: method not found" % name)
        else:
            ok("serve: method %s exists" % name)
    for name in ("no.such.method", "session.delete", "run.output"):
        expect_code(srv.call(name, {}), -32601, "serve: undocumented method %s" % name)
    check_params(srv, serve_methods)

    # One request per error code.
    expect_code(srv.raw("{not json", "bad JSON"), -32700, "serve: bad JSON")
    expect_code(srv.raw("[]", "a batch"), -32600, "serve: a batch")
    expect_code(srv.raw('{"jsonrpc": "1.0", "id": 1, "method": "plugins"}',
                        "jsonrpc 1.0"), -32600, "serve: jsonrpc 1.0")
    expect_code(srv.call("session.show", {}), -32602, "serve: session.show without a session")
    expect_code(srv.call("cancel", {"id": "nothing-runs"}), -32602, "serve: cancel of nothing")
    expect_code(srv.call("mode.set", {"mode": "no-such-mode"}), 64, "serve: an unknown mode")
    expect_code(srv.call("session.show", {"session": "no-such-session"}), 64,
                "serve: an unknown session")
    m = srv.call("mode.set", {"mode": "no-such-mode", "session": "x"})
    if (m.get("error", {}).get("message", "").startswith("mode.set: not a sandbox mode")
            and m["error"].get("data") == {"field": "mode"}):
        ok("serve: an operation's error names the method and the parameter at fault")
    else:
        fail("serve: an operation's error: %r" % (m,))
    session = srv.call("session.new", {"cwd": os.path.join(DIR, "ws")})["result"]["session"]

    # approve of a command whose program is not found: 127; not
    # executable: 126 (as a shell says).
    expect_code(srv.call("approve", {"tool": "bash", "argv": ["no-such-program-%d" % os.getpid()],
                                     "session": session}), 127,
                "serve: approve of a program that is not found")
    plain = os.path.join(DIR, "ws", "not-executable")
    with open(plain, "w") as f:
        f.write("#!/bin/sh\n")
    os.chmod(plain, 0o644)
    expect_code(srv.call("approve", {"tool": "bash", "argv": [plain], "session": session}), 126,
                "serve: approve of a program that is not executable")

    # A damaged log: 65.
    broken = srv.call("session.new", {"cwd": os.path.join(DIR, "ws")})["result"]["session"]
    logs = [os.path.join(r, f) for r, _, fs in os.walk(DIR) for f in fs
            if f == broken + ".jsonl"]
    if len(logs) != 1:
        fail("serve: the log of session %s is not found under %s" % (broken, DIR))
    else:
        with open(logs[0], "a") as f:
            f.write("not an event\n")
        expect_code(srv.call("session.show", {"session": broken}), 65,
                    "serve: a damaged session log")

    # approve cancelled while it waits for the client's approval: its
    # outcome, cancelled (approve answers whatever the outcome); a run
    # cancelled so: cancelled, never started.
    def cancel(id, what):
        """Cancels the call id: its response and the cancel's."""
        cid = srv.send("cancel", {"id": id})
        got = {}
        while id not in got or cid not in got:
            m = srv.read()
            if m is None:
                break
            if "id" in m and "method" not in m:
                got[m["id"]] = m
                if "error" in m:
                    srv.seen.setdefault(m["error"]["code"], what + ", cancelled")
        if got.get(cid, {}).get("result") != {"cancelled": True}:
            fail("serve: cancel of %s answered %s" % (what, json.dumps(got.get(cid))))
        return got.get(id, {}), got.get(cid)

    def cancelled_while_asked(method, params, what):
        """Sends method, waits for its approval.ask, cancels it: the
        responses to the call and to the cancel (None when nothing was
        asked)."""
        id = srv.send(method, params)
        while True:
            m = srv.read()
            if m is None:
                fail("serve: %s asked the client nothing" % what)
                return None, None
            if m.get("method") == "approval.ask":
                break
        return cancel(id, what)

    m, _ = cancelled_while_asked("approve", {"tool": "bash", "subject": "true", "session": session},
                                 "approve")
    if m is not None and m.get("result", {}).get("outcome") == "cancelled":
        ok("serve: approve cancelled while it waits: its outcome, cancelled")
    elif m is not None:
        fail("serve: approve cancelled while it waits: %s" % json.dumps(m))
    m, _ = cancelled_while_asked("run", {"argv": ["true"], "escalate": "danger-full-access",
                                         "justification": "to be cancelled", "session": session},
                                 "a run's escalation")
    r = (m or {}).get("result", {})
    if r.get("cancelled") is True and r.get("started") is False:
        ok("serve: a run cancelled while its escalation waits: cancelled, never started")
    elif m is not None:
        fail("serve: a run cancelled while its escalation waits: %s" % json.dumps(m)[:300])

    # A write cancelled while it waits for the session's log (held here):
    # 77, and nothing written once the lock is free.
    held = srv.call("session.new", {"cwd": os.path.join(DIR, "ws")})["result"]["session"]
    logs = [os.path.join(r_, f) for r_, _, fs in os.walk(DIR) for f in fs if f == held + ".jsonl"]
    with open(logs[0], "rb") as lf:
        before = lf.read()
        fcntl.flock(lf, fcntl.LOCK_EX)
        # Its worker starts before the cancel is read; whether it is on
        # the way to the lock or waits for it, it stops before it writes.
        m, _ = cancel(srv.send("mode.set", {"mode": "read-only", "session": held}),
                      "mode.set, waiting for the log")
        fcntl.flock(lf, fcntl.LOCK_UN)
    expect_code(m, 77, "serve: a write cancelled while it waits for the session's log")
    if "nothing was written" not in json.dumps(m):
        fail("serve: the cancelled write says nothing was written: %s" % json.dumps(m))
    srv.call("session.state", {"session": held})
    with open(logs[0], "rb") as lf:
        if lf.read() == before:
            ok("serve: the cancelled write wrote nothing, the lock once free")
        else:
            fail("serve: the cancelled write reached the log")

    # serve killed while a write waits for the held log: its worker (which
    # catches SIGTERM, as a cancel) does not outlive it, and once the
    # lock is free nothing was written.
    srv5 = Server([WARDEN, "--config", CONFIG, "serve"], "serve")
    with open(logs[0], "rb") as lf:
        before = lf.read()
        fcntl.flock(lf, fcntl.LOCK_EX)
        srv5.send("mode.set", {"mode": "danger-full-access", "session": held})
        t0 = time.monotonic()
        while len(subtree(srv5.proc.pid)) < 2 and time.monotonic() - t0 < 20:
            time.sleep(0.01)
        workers = subtree(srv5.proc.pid)[1:]
        srv5.proc.kill()
        srv5.proc.wait()
        t0 = time.monotonic()
        while any(alive(k) for k in workers) and time.monotonic() - t0 < 20:
            time.sleep(0.01)
        left = [k for k in workers if alive(k)]
        fcntl.flock(lf, fcntl.LOCK_UN)
    with open(logs[0], "rb") as lf:
        after = lf.read()
    if workers and not left and after == before:
        ok("serve killed while a write waits for the log: no worker outlives it, nothing written")
    else:
        fail("serve killed mid-write: workers %r, left %r, log %s" %
             (workers, left, "unchanged" if after == before else "changed"))

    # A run whose output comes as notifications.
    before = len(srv.notes)
    m = srv.call("run", {"argv": ["sh", "-c", "echo out; echo err >&2"],
                         "session": session})
    kinds = {n["method"] for n in srv.notes[before:]}
    if m.get("result", {}).get("class") == "ok" and "run.output" in kinds:
        ok("serve: a run answers its result after run.output")
    else:
        fail("serve: run: %s, notifications %s" % (json.dumps(m)[:300], kinds))

    # Output past output_limit: run.left_out.  An escalation the client
    # allows: approval.ask, then run.notice.
    m = srv.call("run", {"command": "head -c 400000 /dev/zero", "session": session})
    if m.get("result", {}).get("class") != "ok":
        fail("serve: a run of 400000 bytes: %s" % json.dumps(m)[:300])

    def allow(req):
        srv.line(json.dumps({"jsonrpc": "2.0", "id": req["id"], "result": {
            "decision": "allowed-once", "message": "protocol test"}}))
    m = srv.call("run", {"command": "true", "session": session,
                         "escalate": "danger-full-access",
                         "justification": "the protocol test"}, on_request=allow)
    if m.get("result", {}).get("class") != "ok":
        fail("serve: an allowed escalation: %s" % json.dumps(m)[:300])

    # A worker that dies before it reports: 70.
    id = srv.send("run", {"command": "sleep 60 # protocol-worker-%d" % os.getpid(),
                          "session": session})
    mark = ("protocol-worker-%d" % os.getpid()).encode()
    killed = None
    for _ in range(100):
        for w in children(srv.proc.pid):
            if any(mark in cmdline(q) for q in subtree(w)):
                killed = w
                break
        if killed:
            break
        time.sleep(0.1)
    if killed is None:
        fail("serve: the run's worker was not found")
    else:
        rest = subtree(killed)[1:]
        os.kill(killed, 9)
        for q in rest:
            try:
                os.kill(q, 9)
            except OSError:
                pass
        expect_code(srv.reply(id, "run, its worker killed"), 70,
                    "serve: a run whose worker died")

    # No descriptor left for a worker: 71, for a run and for a call.
    limit = resource.prlimit(srv.proc.pid, resource.RLIMIT_NOFILE)
    resource.prlimit(srv.proc.pid, resource.RLIMIT_NOFILE, (3, limit[1]))
    try:
        expect_code(srv.call("run", {"command": "true", "session": session}), 71,
                    "serve: run without descriptors")
        expect_code(srv.call("plugins"), 71, "serve: plugins without descriptors")
    finally:
        resource.prlimit(srv.proc.pid, resource.RLIMIT_NOFILE, limit)

    # A bad config: 78 (config.check reads the file again; every other
    # call uses the config the server started with).
    with open(CONFIG) as f:
        good = f.read()
    with open(live, "w") as f:
        f.write("[warden]\nno_such_key = 1\n")
    expect_code(srv.call("config.check"), 78, "serve: a bad config")
    with open(live, "w") as f:
        f.write(good)
finally:
    srv.close()

def variant(name, edit):
    """A config like CONFIG as edit(its text) makes it: its path."""
    path = os.path.join(DIR, name)
    with open(CONFIG) as f:
        text = edit(f.read())
    with open(path, "w") as f:
        f.write(text)
    return path


# A state directory that is not one: 74.
notdir = os.path.join(DIR, "statedir-is-a-file.ini")
variant("statedir-is-a-file.ini", lambda t: re.sub(r"(?m)^state_dir = .*$", "state_dir = " + notdir, t))
srv3 = Server([WARDEN, "--config", notdir, "serve"], "serve")
try:
    m = srv3.call("session.new", {"cwd": os.path.join(DIR, "ws")})
    expect_code(m, 74, "serve: a state directory that is a file")
    for c_, what in srv3.seen.items():
        srv.seen.setdefault(c_, what)
finally:
    srv3.close()

# plugins cancelled while a plugin's open() never returns (tests/zoo
# open_hang.c): 77 naming the plugin, and the child that inspected it is
# gone, not left behind catching SIGTERM.
hang_ini = variant("open-hang.ini", lambda t: t + "\n[answerer hang]\nplugin = %s/zoo_open_hang.so\n"
                   "isolation = process\n" % os.environ["ZOO"])
srv4 = Server([WARDEN, "--config", hang_ini, "serve"], "serve")
try:
    def opened_hang():
        """The descendants of serve that have the hanging plugin loaded."""
        out = []
        for k in subtree(srv4.proc.pid)[1:]:
            try:
                with open("/proc/%d/maps" % k) as f:
                    if "zoo_open_hang" in f.read():
                        out.append(k)
            except OSError:
                pass
        return out
    pid = srv4.send("plugins")
    t0 = time.monotonic()
    while not opened_hang() and time.monotonic() - t0 < 20:
        time.sleep(0.01)      # until the child inspecting it hangs in open()
    inspecting = opened_hang()
    srv4.send("cancel", {"id": pid})
    m = srv4.reply(pid, "plugins, cancelled while a plugin hangs in open()")
    expect_code(m, 77, "serve: plugins cancelled while a plugin hangs in open()")
    if "cancelled while hang was inspected" not in json.dumps(m):
        fail("serve: the cancelled plugins names the plugin: %s" % json.dumps(m))
    t0 = time.monotonic()
    while any(alive(k) for k in inspecting) and time.monotonic() - t0 < 20:
        time.sleep(0.01)
    left = [k for k in inspecting if alive(k)]
    if inspecting and not left:
        ok("serve: the inspecting child is gone after the cancel")
    else:
        fail("serve: the inspecting child: seen %r, left %r" % (inspecting, left))
finally:
    srv4.close()
if srv4.proc.returncode == 0:
    ok("serve: ends with its input after a cancelled plugins")
else:
    fail("serve: after a cancelled plugins: status %r" % srv4.proc.returncode)

# No backend: 69.
srv2 = Server([WARDEN, "--config", MISSING, "serve"], "serve")
try:
    expect_code(srv2.call("confine", {"argv": ["true"]}), 69,
                "serve: confine without a usable backend")
finally:
    srv2.close()
for code_, what in srv2.seen.items():
    srv.seen.setdefault(code_, what)

# Both ways.
for c, what in sorted(srv.seen.items()):
    if c not in serve_codes:
        fail("serve: error code %d (from %s) is not in the reference" % (c, what))
for c in sorted(serve_codes):
    if c in srv.seen:
        ok("serve: documented code %d came (%s)" % (c, srv.seen[c]))
    elif ("serve", c) in UNREACHABLE:
        print("note: serve: code %d is not brought about here: %s"
              % (c, UNREACHABLE[("serve", c)]))
    else:
        fail("serve: documented code %d came from no request" % c)
# Every notification and request the server sent is documented, with
# exactly its fields; and each documented one came.
sent = {n: {p for p, _ in params_of(b)}
        for sub in ("serve: notifications", "serve: requests to the client")
        for n, b in ref.get(sub, [])}
came = set()
for m in srv.notes + srv.requests:
    name, keys = m["method"], set(m.get("params", {}))
    if name in came:
        continue
    came.add(name)
    if name not in sent:
        fail("serve: %s is not in the reference" % name)
    elif keys != sent[name]:
        fail("serve: %s has the fields %s, the reference says %s"
             % (name, sorted(keys), sorted(sent[name])))
for name in sorted(sent):
    if name in came:
        ok("serve: %s came, with its documented fields" % name)
    else:
        fail("serve: %s is documented but never came" % name)

# -------------------------------------------------------------------- mcp

mcp = Server([WARDEN, "--config", CONFIG, "mcp", "--cwd", os.path.join(DIR, "ws")], "mcp")
try:
    expect_code(mcp.call("tools/call", {"name": "session_state"}), -32600,
                "mcp: tools/call before initialize")
    m = mcp.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "protocol", "version": "1"}})
    if "result" not in m:
        fail("mcp: initialize: %s" % json.dumps(m)[:300])
    for name in sorted(mcp_methods):
        if name.startswith("notifications/"):
            # A notification sent with an id: a method the server has
            # answers nothing or a result; one it has not, -32601.  The
            # ping after it shows that the server read it.
            id = mcp.send(name, {"requestId": "none"})
            pid = mcp.send("ping")
            m = {}
            while True:
                r = mcp.read()
                if r is None or r.get("id") == pid:
                    break
                if r.get("id") == id and "method" not in r:
                    m = r
        else:
            m = mcp.call(name, {"name": "session_state"} if name == "tools/call" else {})
        if code(m) == -32601:
            fail("mcp: documented method %s: method not found" % name)
        else:
            ok("mcp: method %s exists" % name)
    # tools/list gives the tools the reference names, and no other.
    body = dict(ref.get("mcp: methods", [])).get("tools/list", [])
    named = set(re.findall(r"\\fB(\w+)\\fR", "\n".join(body)))
    m = mcp.call("tools/list", {})
    tools = {t.get("name") for t in m.get("result", {}).get("tools", [])}
    if tools and tools == named:
        ok("mcp: tools/list gives %s, as documented" % sorted(tools))
    else:
        fail("mcp: tools/list gives %s; the reference %s" % (sorted(tools), sorted(named)))
    for name in ("tools/nope", "resources/list", "prompts/list"):
        expect_code(mcp.call(name, {}), -32601, "mcp: undocumented method %s" % name)
    expect_code(mcp.raw("{not json", "bad JSON"), -32700, "mcp: bad JSON")
    expect_code(mcp.call("tools/call", {}), -32602, "mcp: tools/call without a name")
    expect_code(mcp.call("tools/call", {"name": "no_such_tool"}), -32602,
                "mcp: an unknown tool")
    m = mcp.call("tools/call", {"name": "run", "arguments": {"command": "echo hi"}})
    if m.get("result", {}).get("isError") is False:
        ok("mcp: the run tool runs")
    else:
        fail("mcp: the run tool: %s" % json.dumps(m)[:300])
finally:
    mcp.close()
for c, what in sorted(mcp.seen.items()):
    if c not in mcp_codes:
        fail("mcp: error code %d (from %s) is not in the reference" % (c, what))
for c in sorted(mcp_codes):
    if c in mcp.seen:
        ok("mcp: documented code %d came (%s)" % (c, mcp.seen[c]))
    elif ("mcp", c) in UNREACHABLE:
        print("note: mcp: code %d is not brought about here: %s"
              % (c, UNREACHABLE[("mcp", c)]))
    else:
        fail("mcp: documented code %d came from no request" % c)

if failures:
    print("%d failure(s)" % failures)
    sys.exit(1)

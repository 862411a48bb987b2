#!/usr/bin/python3
"""client.py -- a harness's client of `warden serve`, Python stdlib only.

Used by tests/serve/*.sh: speaks JSON-RPC 2.0, one object per line, to a
`warden serve` on stdio (a child process) or on a unix socket, collects a
run's output from its run.output notifications (base64) and answers the
server's approval.ask requests with a handler the test chooses, and
keeps the approval.withdrawn notifications that void them.
"""
import base64
import json
import os
import queue
import socket
import subprocess
import threading
import time


class RpcError(Exception):
    def __init__(self, error):
        super().__init__(error.get("message"))
        self.code = error.get("code")
        self.message = error.get("message")
        self.data = error.get("data")


class Client:
    def __init__(self, reader, writer, closer):
        self._reader = reader
        self._writer = writer
        self._closer = closer
        self._lock = threading.Lock()
        self._next = 0
        self._waiting = {}          # id -> queue of the response
        self.output = {}            # id -> {"stdout": bytearray, "stderr": ...}
        self.chunks = {}            # id -> [(seq, stream, bytes)], as they came
        self.left_out = {}          # id -> the run.left_out params
        self.notices = {}           # id -> [line]
        self.asked = []             # the approval.ask params, in order
        self.ask_ids = []           # their JSON-RPC ids, in order
        self.withdrawn = []         # the approval.withdrawn params, in order
        self.unknown = []           # anything else that came
        self.on_ask = None          # fn(params) -> result dict, or None: no reply
        self.eof = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    # -- construction
    @classmethod
    def stdio(cls, argv, stderr=None):
        p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=stderr, bufsize=0)

        def close():
            try:
                p.stdin.close()
            except OSError:
                pass
            return p.wait(timeout=30)
        c = cls(p.stdout, p.stdin, close)
        c.proc = p
        return c

    @classmethod
    def unix(cls, path):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        f = s.makefile("rwb", buffering=0)

        def close():
            try:
                s.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            return None
        c = cls(f, f, close)
        c.sock = s
        return c

    # -- wire
    def send(self, obj):
        data = (json.dumps(obj) + "\n").encode()
        with self._lock:
            self._writer.write(data)
            if hasattr(self._writer, "flush"):
                self._writer.flush()

    def send_raw(self, data):
        with self._lock:
            self._writer.write(data)

    def _read(self):
        buf = b""
        while True:
            try:
                chunk = self._reader.read(65536) if not hasattr(self._reader, "read1") \
                    else self._reader.read1(65536)
            except (OSError, ValueError):
                chunk = b""
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                self._handle(json.loads(line))
        self.eof.set()
        with self._lock:
            for q in self._waiting.values():
                q.put(None)

    def _handle(self, m):
        assert m.get("jsonrpc") == "2.0", m
        if "method" in m and "id" in m:
            if m["method"] == "approval.ask":
                self.asked.append(m["params"])
                self.ask_id = m["id"]
                self.ask_ids.append(m["id"])
                reply = self.on_ask(m["params"]) if self.on_ask else None
                if reply is not None:
                    reply = dict(reply)
                    reply.setdefault("jsonrpc", "2.0")
                    reply["id"] = m["id"]
                    threading.Thread(target=self.send, args=(reply,)).start()
            else:
                self.unknown.append(m)
            return
        if "method" in m:
            p = m["params"]
            if m["method"] == "run.output":
                o = self.output.setdefault(json.dumps(p["id"]),
                                           {"stdout": bytearray(), "stderr": bytearray()})
                data = base64.b64decode(p["data"], validate=True)
                o[p["stream"]] += data
                self.chunks.setdefault(json.dumps(p["id"]), []).append(
                    (p["seq"], p["stream"], data))
            elif m["method"] == "run.left_out":
                self.left_out[json.dumps(p["id"])] = p
                self.chunks.setdefault(json.dumps(p["id"]), []).append(
                    (p["seq"], "left_out", p))
            elif m["method"] == "run.notice":
                self.notices.setdefault(json.dumps(p["id"]), []).append(p["line"])
            elif m["method"] == "approval.withdrawn":
                self.withdrawn.append(p)
            else:
                self.unknown.append(m)
            return
        with self._lock:
            q = self._waiting.get(json.dumps(m.get("id")))
        if q is None:
            self.unknown.append(m)
        else:
            q.put(m)

    # -- calls
    def start(self, method, params=None, id=None):
        with self._lock:
            if id is None:
                self._next += 1
                id = self._next
            q = self._waiting[json.dumps(id)] = queue.Queue()
        msg = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return id, q

    def wait(self, id, q, timeout=60):
        m = q.get(timeout=timeout)
        with self._lock:
            del self._waiting[json.dumps(id)]
        if m is None:
            raise EOFError("the server closed the connection")
        if "error" in m:
            raise RpcError(m["error"])
        return m["result"]

    def call(self, method, params=None, timeout=60):
        id, q = self.start(method, params)
        return self.wait(id, q, timeout)

    def run(self, params, timeout=120):
        """A run: (result, stdout bytes, stderr bytes)."""
        id, q = self.start("run", params)
        res = self.wait(id, q, timeout)
        o = self.output.get(json.dumps(id), {"stdout": b"", "stderr": b""})
        return res, bytes(o["stdout"]), bytes(o["stderr"])

    def merged(self, id):
        """A run's output in the order it came (sorted by seq): both
        streams as one bytes, a left-out marker where bytes were left out."""
        out = b""
        for seq, stream, data in sorted(self.chunks.get(json.dumps(id), []),
                                        key=lambda c: c[0]):
            if stream == "left_out":
                out += b"\n[... %d bytes left out ...]\n" % data["bytes"]
            else:
                out += data
        return out

    def close(self):
        r = self._closer()
        self.eof.wait(30)
        return r


def wait_for(pred, timeout=20, step=0.05):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(step)
    return pred()


def pids_with(tag):
    """The pids whose command line holds tag."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                if tag.encode() in f.read():
                    out.append(int(d))
        except OSError:
            pass
    return out

#!/usr/bin/python3
# net-client.py ADDRESSES TARGET... — run inside a sandbox by
# tests/run/network.sh: tries each TARGET and prints one line
# "TARGET: reached" or "TARGET: refused: WHY".  ADDRESSES is the file
# net-servers.py wrote.  Targets: the server names (tcp4, tcp6, udp4, unix,
# unixdgram, abstract, allowed), "pairdgram" (a datagram socketpair
# pointed at the unixdgram server with sendto), and what the command's own
# tree does: "pipe" and "pair" (a pipe and a stream socketpair), "owntcp"
# (a loopback TCP server of its own), "ownlisten" (a TCP server of its own
# that listens without bind: the kernel binds an ephemeral port on every
# address; a refused listen() says "listen: "), "ownunix" (a unix socket
# server of its own, in the current directory), "ownshm" (the same in
# /dev/shm), "ownabstract" and "ownseq" (on an abstract name, stream and
# seqpacket).  Exit status 0 whatever happened.
import os
import socket
import sys
import threading

addr = {}
with open(sys.argv[1]) as f:
    for line in f:
        name, a = line.split()[:2]
        addr[name] = a


def stream(family, address, kind=socket.SOCK_STREAM):
    s = socket.socket(family, kind)
    s.settimeout(3)
    s.connect(address)
    if s.recv(2) != b"ok":
        raise OSError("no answer")


def dgram(family, address, pair=False):
    if pair:
        s, _ = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    else:
        s = socket.socket(family, socket.SOCK_DGRAM)
    s.settimeout(3)
    s.sendto(b"hello", address)
    if family != socket.AF_UNIX and s.recv(2) != b"ok":
        raise OSError("no answer")


def own_server(family, address, kind=socket.SOCK_STREAM):
    srv = socket.socket(family, kind)
    srv.bind(address)
    srv.listen(1)

    def serve():
        c, _ = srv.accept()
        c.sendall(b"ok")
        c.close()
    threading.Thread(target=serve, daemon=True).start()
    stream(family, srv.getsockname() if family != socket.AF_UNIX else address,
           kind)


def own_listen():
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        srv.listen(1)
    except OSError as e:
        raise OSError(e.errno, "listen: " + e.strerror)

    def serve():
        c, _ = srv.accept()
        c.sendall(b"ok")
        c.close()
    threading.Thread(target=serve, daemon=True).start()
    stream(socket.AF_INET, ("127.0.0.1", srv.getsockname()[1]))


def pipe():
    r, w = os.pipe()
    os.write(w, b"ok")
    if os.read(r, 2) != b"ok":
        raise OSError("pipe lost the bytes")


def pair():
    a, b = socket.socketpair()
    a.sendall(b"ok")
    if b.recv(2) != b"ok":
        raise OSError("socketpair lost the bytes")


def run(target):
    if target in addr and addr[target] == "-":
        return "skipped: the host has no such listener"
    if target == "tcp4":
        stream(socket.AF_INET, ("127.0.0.1", int(addr["tcp4"])))
    elif target == "tcp6":
        stream(socket.AF_INET6, ("::1", int(addr["tcp6"])))
    elif target == "udp4":
        dgram(socket.AF_INET, ("127.0.0.1", int(addr["udp4"])))
    elif target in ("unix", "allowed"):
        stream(socket.AF_UNIX, addr[target])
    elif target == "abstract":
        stream(socket.AF_UNIX, "\0" + addr["abstract"])
    elif target == "unixdgram":
        dgram(socket.AF_UNIX, addr["unixdgram"])
    elif target == "pairdgram":
        dgram(socket.AF_UNIX, addr["unixdgram"], pair=True)
    elif target == "pipe":
        pipe()
    elif target == "pair":
        pair()
    elif target == "owntcp":
        own_server(socket.AF_INET, ("127.0.0.1", 0))
    elif target == "ownlisten":
        own_listen()
    elif target == "ownunix":
        own_server(socket.AF_UNIX, "own-%s.sock" % os.urandom(6).hex())
    elif target == "ownshm":
        own_server(socket.AF_UNIX, "/dev/shm/own-%s.sock" % os.urandom(6).hex())
    elif target == "ownabstract":
        own_server(socket.AF_UNIX, "\0warden-own-%d" % os.getpid())
    elif target == "ownseq":
        own_server(socket.AF_UNIX, "\0warden-seq-%d" % os.getpid(),
                   socket.SOCK_SEQPACKET)
    else:
        raise SystemExit("net-client.py: unknown target " + target)
    return "reached"


for t in sys.argv[2:]:
    try:
        print("%s: %s" % (t, run(t)), flush=True)
    except OSError as e:
        print("%s: refused: %s" % (t, e), flush=True)

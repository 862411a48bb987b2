#!/usr/bin/python3
# net-servers.py DIR SOCKDIR — the host's servers for tests/run/network.sh.
# Each listens outside any sandbox and, when contacted, first writes the
# marker file DIR/markers/NAME, then answers "ok" where it can.  When every
# listener is bound, DIR/addresses holds one "NAME ADDRESS" line each
# (ADDRESS "-" when the host cannot have that listener, e.g. no ::1).
# Runs until killed.
import os
import selectors
import socket
import sys

out, sockdir = sys.argv[1], sys.argv[2]
markers = os.path.join(out, "markers")
os.makedirs(markers, exist_ok=True)
sel = selectors.DefaultSelector()
addresses = []


def mark(name):
    with open(os.path.join(markers, name), "w") as f:
        f.write("contacted\n")


def listen(name, family, kind, address, shown):
    try:
        s = socket.socket(family, kind)
        if family != socket.AF_UNIX:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(address)
    except OSError as e:
        addresses.append((name, "-", str(e)))
        return
    if kind == socket.SOCK_STREAM:
        s.listen(16)
    sel.register(s, selectors.EVENT_READ, (name, kind))
    addresses.append((name, shown(s), ""))


port = lambda s: str(s.getsockname()[1])
listen("tcp4", socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", 0), port)
listen("tcp6", socket.AF_INET6, socket.SOCK_STREAM, ("::1", 0), port)
listen("udp4", socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.1", 0), port)
path = os.path.join(sockdir, "stream.sock")
listen("unix", socket.AF_UNIX, socket.SOCK_STREAM, path, lambda s: path)
dpath = os.path.join(sockdir, "dgram.sock")
listen("unixdgram", socket.AF_UNIX, socket.SOCK_DGRAM, dpath, lambda s: dpath)
abstract = "warden-net-test-%d" % os.getpid()
listen("abstract", socket.AF_UNIX, socket.SOCK_STREAM, "\0" + abstract,
       lambda s: abstract)
allowed = os.path.join(sockdir, "allowed.sock")
listen("allowed", socket.AF_UNIX, socket.SOCK_STREAM, allowed, lambda s: allowed)

tmp = os.path.join(out, "addresses.tmp")
with open(tmp, "w") as f:
    for name, addr, why in addresses:
        f.write("%s %s%s\n" % (name, addr, " " + why if why else ""))
os.rename(tmp, os.path.join(out, "addresses"))

while True:
    for key, _ in sel.select():
        name, kind = key.data
        s = key.fileobj
        try:
            if kind == socket.SOCK_STREAM:
                c, _ = s.accept()
                mark(name)
                c.sendall(b"ok")
                c.close()
            else:
                data, peer = s.recvfrom(512)
                mark(name)
                if peer:
                    s.sendto(b"ok", peer)
        except OSError:
            pass

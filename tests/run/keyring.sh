#!/bin/sh
# keyring.sh — the kernel's keyrings stay the caller's.  They are not
# namespaced by the sandbox's mounts: a command that added a key to its
# caller's user or session keyring, or cleared it, would change what the
# caller's later programs (a Kerberos cache, an ssh agent's keys) see,
# after the run.  The test gives itself a session keyring holding one key,
# then on both backends and in both modes runs a command that adds a key
# to the session and the user keyring and clears the session keyring; on
# the host afterwards the test's key is still there and neither new key
# exists.  (Landlock refuses the keyring calls; bwrap's launcher gives the
# command an empty session keyring of its own, and its user keyrings are
# its user namespace's.)
. "${top_srcdir:?run by make check}/tests/run/lib.sh"

for b in bwrap landlock; do
	for mode in read-only workspace-write; do
		config "kr-$b-$mode" "$mode" "$b"
	done
done

WARDEN=$WARDEN T=$T TAG=$TAG "$PY" - <<'PYEOF' || failures=$((failures + 1))
import ctypes, os, subprocess, sys

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
ADD_KEY, KEYCTL = 248, 250
JOIN, CLEAR, SEARCH, REVOKE, UNLINK = 1, 7, 10, 3, 9
SESSION, USER = -3, -4
T, TAG, WARDEN = os.environ["T"], os.environ["TAG"], os.environ["WARDEN"]
bad = 0

def keyctl(*a):
    return libc.syscall(KEYCTL, *[ctypes.c_long(x) if isinstance(x, int) else x for x in a])

def search(ring, desc):
    return keyctl(SEARCH, ring, b"user", desc.encode(), 0)

if keyctl(JOIN, ("warden-kr-%s" % TAG).encode()) < 0:
    print("FAIL: the test cannot make a session keyring of its own: errno %d" % ctypes.get_errno())
    sys.exit(1)
keep = libc.syscall(ADD_KEY, b"user", ("warden-kr-keep-%s" % TAG).encode(), b"k", ctypes.c_size_t(1),
                    ctypes.c_long(SESSION))
if keep < 0:
    print("FAIL: premise: add_key in the test's session keyring: errno %d" % ctypes.get_errno())
    sys.exit(1)
inner = ("import ctypes; l = ctypes.CDLL(None, use_errno=True); l.syscall.restype = ctypes.c_long\n"
         "for ring, name in ((-3, 's'), (-4, 'u')):\n"
         "    r = l.syscall(248, b'user', ('warden-kr-planted-%s-%s' % (name, '" + TAG + "')).encode(),"
         " b'x', ctypes.c_size_t(1), ctypes.c_long(ring))\n"
         "    print('add', name, r, ctypes.get_errno())\n"
         "print('clear', l.syscall(250, ctypes.c_long(7), ctypes.c_long(-3)), ctypes.get_errno())\n")
for b in ("bwrap", "landlock"):
    for mode in ("read-only", "workspace-write"):
        w = "%s %s" % (b, mode)
        p = subprocess.run([WARDEN, "--config", "%s/kr-%s-%s.ini" % (T, b, mode), "run", "--",
                            "/usr/bin/python3", "-c", inner], cwd=T + "/ws",
                           capture_output=True, stdin=subprocess.DEVNULL)
        if b"add s" not in p.stdout:
            print("FAIL: %s: the command did not run: exit %d, %r" % (w, p.returncode, p.stderr[-300:]))
            bad += 1
            continue
        ok = True
        if search(SESSION, "warden-kr-keep-%s" % TAG) != keep:
            print("FAIL: %s: the caller's session keyring lost its key (cleared from inside)" % w)
            ok = False
            keep = libc.syscall(ADD_KEY, b"user", ("warden-kr-keep-%s" % TAG).encode(), b"k",
                                ctypes.c_size_t(1), ctypes.c_long(SESSION))
        for ring, rname, name in ((SESSION, "session", "s"), (USER, "user", "u")):
            k = search(ring, "warden-kr-planted-%s-%s" % (name, TAG))
            if k >= 0:
                print("FAIL: %s: a key planted from inside is in the caller's %s keyring" % (w, rname))
                keyctl(REVOKE, k)
                keyctl(UNLINK, k, ring)
                ok = False
        if ok:
            print("ok: %s: the caller's keyrings are as they were (%s)"
                  % (w, " ".join(p.stdout.decode().split())))
        else:
            bad += 1
sys.exit(1 if bad else 0)
PYEOF
finish

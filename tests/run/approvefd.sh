#!/bin/sh
# approvefd.sh — `warden run --approve-fd N`: the caller answers its own
# run's approvals over one end of a socket pair, in serve's approval.ask
# messages, with no answerer of its own in the config:
#   - a config without a client answerer gets the caller after its chain;
#     the default config's client slot asks the caller;
#   - allowed-once runs the command; rejected, a malformed reply, an error
#     reply and a closed socket do not (nothing ran);
#   - allowed-for-session with a scope gives a grant, and the next run it
#     covers asks nobody (no approval.ask on the socket);
#   - the command never holds the descriptor;
#   - a descriptor that is not open or not a socket is a usage error.
. "$top_srcdir/tests/run/lib.sh"
grantable_tree

mkdir "$T/bin"
cat >"$T/bin/prog" <<EOF
#!/bin/sh
echo "ran \$*" >>"$T/outside/ran"
if [ -e /proc/self/fd/5 ]; then echo "fd5 held" >>"$T/outside/ran"; fi
EOF
chmod 755 "$T/bin/prog"

# No answerer at all: only the caller can decide.
cat >"$T/none.ini" <<EOF
[warden]
state_dir = $T/state
durability = none
EOF
# The client slot first, then an answerer that rejects: the caller decides.
cat >"$T/client.ini" <<EOF
[warden]
state_dir = $T/state
durability = none
plugin_dir = $top_builddir/tests/zoo/.libs

[answerer client]
plugin = client
timeout_ms = 20000

[answerer no]
plugin = zoo_answerer
decision = rejected
EOF
chmod 600 "$T"/*.ini
S=$("$WARDEN" --config "$T/none.ini" session new --cwd "$T/ws" | tail -n 1)

# drive CONFIG REPLY ARGS...: runs warden run --approve-fd 5 ARGS with the
# socket's other end answering each approval.ask with REPLY (a Python
# expression over the request `q`; None: close the socket); prints
# "STATUS ASKED" and leaves the run's JSON in $T/out.
drive() {
	"$PY" - "$WARDEN" "$T/$1" "$S" "$2" "$T" "$@" <<'PY'
import json, os, socket, subprocess, sys, threading
warden, conf, sid, reply, t = sys.argv[1:6]
args = sys.argv[8:]
a, b = socket.socketpair()
# Descriptor 5 for the run; the pair may have been given 5 itself (with
# make's descriptors open, say), and then it is kept, not closed.
if b.fileno() != 5:
    os.dup2(b.fileno(), 5)
    b.close()
else:
    b.detach()
os.set_inheritable(5, True)
asked = []
def answer():
    f = a.makefile("rb")
    for line in f:
        m = json.loads(line)
        asked.append(m)
        assert m["jsonrpc"] == "2.0" and m["method"] == "approval.ask", m
        q = m["params"]["request"]
        r = eval(reply)
        if r is None:
            a.shutdown(socket.SHUT_RDWR)
            return
        if isinstance(r, bytes):
            a.sendall(r)
            continue
        a.sendall((json.dumps(dict(jsonrpc="2.0", id=m["id"], **r)) + "\n").encode())
th = threading.Thread(target=answer, daemon=True)
th.start()
env = dict(os.environ, PATH=t + "/bin:/usr/bin:/bin")
p = subprocess.run([warden, "--config", conf, "--session", sid, "run", "--json",
                    "--approve-fd", "5", "--escalate", "danger-full-access",
                    "--justification", "test", *args],
                   pass_fds=(5,), capture_output=True, env=env, cwd=t + "/ws")
os.close(5)
open(t + "/out", "wb").write(p.stdout.splitlines()[-1] if p.stdout else b"{}")
open(t + "/asked", "w").write(json.dumps(asked))
print(p.returncode, len(asked))
PY
}
js() { "$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$T/out" "$1"; }
ran() { grep -c "^ran $1\$" "$T/outside/ran" 2>/dev/null || true; }

echo "---- allowed-once by the caller, no answerer configured"
got=$(drive none.ini '{"result": {"decision": "allowed-once", "message": "ok by the harness"}}' -- prog one)
[ "$got" = "0 1" ] && [ "$(ran one)" = 1 ] && [ "$(js 'r["escalation"]["answerer"], r["escalation"]["reason"]')" = "('caller', 'ok by the harness')" ] ||
	fail "allowed-once: $got $(cat "$T/out")"
"$PY" - "$T/asked" <<'PY' && ok "approval.ask carried the request; the answerer is 'caller'" || fail "the request the caller saw"
import json, sys
m = json.load(open(sys.argv[1]))[0]
q = m["params"]["request"]
assert m["params"]["id"] is None and q["argv"] == ["prog", "one"] and q["requested_mode"] == "danger-full-access", q
assert [s["name"] for s in q["grant_scopes"]] == ["exact", "prefix:1"], q
PY
grep -q "fd5 held" "$T/outside/ran" && fail "the command held the approval descriptor"

echo "---- refusals: rejected, malformed, an error reply, a closed socket"
got=$(drive none.ini '{"result": {"decision": "rejected"}}' -- prog two)
[ "$got" = "77 1" ] && [ "$(ran two)" = 0 ] && [ "$(js 'r["escalation"]["outcome"]')" = rejected ] || fail "rejected: $got"
got=$(drive none.ini '{"result": {"decision": "yes"}}' -- prog two)
[ "$got" = "77 1" ] && [ "$(ran two)" = 0 ] && [ "$(js 'r["escalation"]["outcome"]')" = unavailable ] || fail "malformed: $got"
got=$(drive none.ini '{"error": {"code": 1, "message": "no"}}' -- prog two)
[ "$got" = "77 1" ] && [ "$(ran two)" = 0 ] || fail "an error reply: $got"
got=$(drive none.ini 'b"{\"jsonrpc\": \"2.0\", \"id\": 99, \"result\": {\"decision\": \"allowed-once\"}}\n"' -- prog two)
[ "$got" = "77 1" ] && [ "$(ran two)" = 0 ] || fail "a reply to another id: $got"
got=$(drive none.ini 'None' -- prog two)
[ "$got" = "77 1" ] && [ "$(ran two)" = 0 ] && js 'r["escalation"]["reason"]' | grep -q 'closed --approve-fd' ||
	fail "a closed socket: $got $(cat "$T/out")"
ok "rejected, malformed, error, another id, closed: nothing ran"

echo "---- the client slot asks the caller first"
got=$(drive client.ini '{"result": {"decision": "allowed-once"}}' -- prog three)
[ "$got" = "0 1" ] && [ "$(ran three)" = 1 ] && [ "$(js 'r["escalation"]["answerer"]')" = client ] ||
	fail "the client slot: $got $(cat "$T/out")"
ok "the config's client answerer asks the caller"

echo "---- a grant from the caller, then a run it covers asks nobody"
got=$(drive none.ini '{"result": {"decision": "allowed-for-session", "scope": "prefix:1"}}' -- prog four a)
[ "$got" = "0 1" ] && [ "$(js 'r["escalation"]["grant"]["scope"]')" = prefix:1 ] || fail "a grant: $got $(cat "$T/out")"
got=$(drive none.ini '{"result": {"decision": "rejected"}}' -- prog four b)
[ "$got" = "0 0" ] && [ "$(ran 'four b')" = 1 ] || fail "the covered run: $got $(cat "$T/out")"
ok "allowed-for-session over the socket, and a covered run unasked"

echo "---- bad descriptors"
(cd "$T/ws" && "$WARDEN" --config "$T/none.ini" --session "$S" run --approve-fd 9 -- true) >"$T/o" 2>"$T/e"
[ $? -eq 64 ] && grep -q 'descriptor 9 is not open' "$T/e" || fail "an fd not open: $(cat "$T/e")"
(cd "$T/ws" && "$WARDEN" --config "$T/none.ini" --session "$S" run --approve-fd 7 -- true 7<"$T/none.ini") >"$T/o" 2>"$T/e"
[ $? -eq 64 ] && grep -q 'not a stream socket' "$T/e" || fail "a file as --approve-fd: $(cat "$T/e")"
ok "an fd not open, or not a socket: usage errors"

finish

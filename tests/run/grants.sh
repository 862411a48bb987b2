#!/bin/sh
# grants.sh — session grants (DESIGN §3 "Grants") through real `warden
# run --escalate` and `warden approve`, with the exec answerer counting
# how often it is asked (a line per question in $T/count):
#   - allowed-for-session runs the command and records approval/grant; the
#     second identical run is not asked and names the grant;
#   - not covered, so asked again: another argv, another directory, the
#     program replaced (same path, another file), another session, the
#     grant revoked;
#   - a prefix grant (prefix:2 for `git status ...`) covers `git status -s`
#     and not `git push`, nor `bash -c 'git status; rm -rf x'`; a bash -c
#     request offers no prefix, and its exact grant does not cover another
#     -c string;
#   - a program under a writable root is offered nothing, and an answer of
#     allowed-for-session there is unavailable (nothing runs);
#   - policy never refuses a covered request; grant list, revoke and
#     session state (text and --json); the grant survives session show;
#   - a damaged grant event (its scope changed, a revoke of a grant not in
#     force, a grant id twice) is refused by replay, naming the line;
#   - a plugin built against ABI 1.0 that returns 5 is unavailable, in a
#     worker and in-process: no grant.
. "$top_srcdir/tests/run/lib.sh"

EXEC_SO=$top_builddir/plugins/exec/.libs/exec.so
FIVE_SO=$top_builddir/tests/abi-1.0/.libs/abi10_five.so
ZOO_SO=$top_builddir/tests/zoo/.libs/zoo_answerer.so
for f in "$EXEC_SO" "$FIVE_SO" "$ZOO_SO"; do
	[ -e "$f" ] || { echo "FAIL: $f was not built"; exit 1; }
done
grantable_tree
WS=$(cd "$T/ws" && pwd -P)
mkdir "$T/bin" "$T/ws/sub" "$T/plugins"
cp "$FIVE_SO" "$ZOO_SO" "$T/plugins/"
chmod -R go-w "$T/plugins"

# The answerer: records its request, counts the question, answers what
# $T/reply says.
cat >"$T/answer" <<EOF
#!/bin/sh
cat >"$T/seen"
echo asked >>"$T/count"
cat "$T/reply"
EOF
chmod 755 "$T/answer"
reply() { printf '%s\n' "$1" >"$T/reply"; }
asked() { if [ -f "$T/count" ]; then wc -l <"$T/count" | tr -d ' '; else echo 0; fi; }

# Programs outside every writable root: prog (leaves its argv in a
# marker), and a `git` that does the same.
cat >"$T/bin/prog" <<EOF
#!/bin/sh
echo "ran \$*" >>"$T/outside/ran"
EOF
cp "$T/bin/prog" "$T/bin/git"
chmod 755 "$T/bin/prog" "$T/bin/git"

cat >"$T/w.ini" <<EOF
[warden]
state_dir = $T/state
durability = none
default_mode = read-only

[answerer ex]
plugin = $EXEC_SO
command = $T/answer
EOF
cat >"$T/five.ini" <<EOF
[warden]
state_dir = $T/state
durability = none
plugin_dir = $T/plugins

[answerer five]
plugin = abi10_five
EOF
sed 's/^plugin = abi10_five$/plugin = abi10_five\nisolation = inproc/' "$T/five.ini" >"$T/five-inproc.ini"
cat >"$T/zoo.ini" <<EOF
[warden]
state_dir = $T/state
durability = none
plugin_dir = $T/plugins

[answerer z]
plugin = zoo_answerer
isolation = inproc
decision = allowed-for-session
EOF
chmod 600 "$T"/*.ini

new_session() { "$WARDEN" --config "$T/w.ini" session new --cwd "$T/ws" | tail -n 1; }
S1=$(new_session)
S2=$(new_session)
LOG1=$T/state/$S1.jsonl

# w SESSION ARGS...: warden in $T/ws with PATH=$T/bin first; $rc, $T/out, $T/err.
w() {
	s=$1
	shift
	(cd "$T/ws" && PATH="$T/bin:/usr/bin:/bin" "$WARDEN" --config "$T/w.ini" --session "$s" "$@") \
		>"$T/out" 2>"$T/err" </dev/null
	rc=$?
}
# esc SESSION ARGS...: an escalated run, --json.
esc() {
	s=$1
	shift
	w "$s" run --json --escalate danger-full-access --justification test "$@"
}
# js EXPR: a Python expression over the run's JSON object `r`.
js() { "$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$T/out" "$1"; }
# offered: the scope names the last request offered the answerer.
offered() { "$PY" -c 'import json, sys; print(" ".join(s["name"] for s in json.load(open(sys.argv[1]))["grant_scopes"]))' "$T/seen"; }

echo "---- a grant for the exact request"
reply allowed-for-session
esc "$S1" -- prog a b
[ "$rc" -eq 0 ] && [ "$(asked)" = 1 ] && grep -qx 'ran a b' "$T/outside/ran" ||
	fail "allowed-for-session: exit $rc, asked $(asked): $(cat "$T/err")"
[ "$(offered)" = "exact prefix:2 prefix:1" ] || fail "offered scopes: $(offered)"
G1=$(js 'r["escalation"]["grant"]["id"]')
[ "$(js 'r["escalation"]["outcome"], r["escalation"]["grant"]["scope"], r["escalation"]["grant"]["new"]')" = "('allowed-for-session', 'exact', True)" ] ||
	fail "the report of the granting run: $(cat "$T/out")"
"$PY" - "$LOG1" "$G1" <<'PY' && ok "approval/grant with its scope, then approval/decided naming it" || fail "the grant events"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
g = [e for e in ev if e["type"] == "approval/grant"]
assert len(g) == 1 and g[0]["grant"] == sys.argv[2] and g[0]["name"] == "exact", g
sc = g[0]["scope"]
assert sc["kind"] == "exact" and sc["argv"] == ["prog", "a", "b"] and sc["mode"] == "danger-full-access", sc
assert sc["program"]["path"].endswith("/bin/prog") and sc["program"]["ino"] > 0, sc
d = ev[ev.index(g[0]) + 1]
assert d["type"] == "approval/decided" and d["grant"] == sys.argv[2] and d["outcome"] == "allowed-for-session", d
assert {"id": sys.argv[2], "key": g[0]["key"]} in d["knobs"]["grants"], d["knobs"]
a = [e for e in ev if e["type"] == "approval/asked"][-1]
assert a["grant_scopes"] == ["exact", "prefix:2", "prefix:1"], a
PY

echo "---- the same request again: not asked, the grant named"
esc "$S1" -- prog a b
[ "$rc" -eq 0 ] && [ "$(asked)" = 1 ] || fail "the covered run: exit $rc, asked $(asked)"
[ "$(js 'r["escalation"]["grant"]["id"], r["escalation"]["grant"]["new"], r["escalation"]["answerer"]')" = "('$G1', False, None)" ] ||
	fail "the covered run's report: $(cat "$T/out")"
"$PY" - "$LOG1" "$G1" <<'PY' && ok "covered: approval/decided and sandbox/run name the grant, no answerer" || fail "the covered run's events"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
d = [e for e in ev if e["type"] == "approval/decided"][-1]
assert d["grant"] == sys.argv[2] and "answerer" not in d and d["reason"].startswith("covered by grant"), d
r = [e for e in ev if e["type"] == "sandbox/run"][-1]
assert r["escalation"]["grant"] == {"id": sys.argv[2], "scope": "exact", "new": False}, r
PY

echo "---- not covered: another argv, another directory, another session"
reply rejected
esc "$S1" -- prog a c
[ "$rc" -eq 77 ] && [ "$(asked)" = 2 ] || fail "another argv: exit $rc, asked $(asked)"
esc "$S1" --cwd sub -- prog a b
[ "$rc" -eq 77 ] && [ "$(asked)" = 3 ] || fail "another directory: exit $rc, asked $(asked)"
esc "$S2" -- prog a b
[ "$rc" -eq 77 ] && [ "$(asked)" = 4 ] || fail "another session: exit $rc, asked $(asked)"
ok "another argv, directory or session is asked"

echo "---- the program replaced: same path, another file"
cp "$T/bin/prog" "$T/prog.new"
mv "$T/prog.new" "$T/bin/prog"
esc "$S1" -- prog a b
[ "$rc" -eq 77 ] && [ "$(asked)" = 5 ] || fail "a replaced program: exit $rc, asked $(asked)"
# Rewritten in place, same bytes: its ctime moved.
reply allowed-for-session
esc "$S1" -- prog a b
[ "$rc" -eq 0 ] && [ "$(asked)" = 6 ] || fail "regrant: exit $rc, asked $(asked)"
G2=$(js 'r["escalation"]["grant"]["id"]')
sleep 0.01
cat "$T/bin/prog" >"$T/prog.copy" && cat "$T/prog.copy" >"$T/bin/prog"
reply rejected
esc "$S1" -- prog a b
[ "$rc" -eq 77 ] && [ "$(asked)" = 7 ] || fail "a program rewritten in place: exit $rc, asked $(asked)"
ok "a replaced or rewritten program is asked"

echo "---- grant list, session state, revoke"
w "$S1" grant list --json
"$PY" - "$T/out" "$G1" "$G2" <<'PY' && ok "grant list --json: both grants with scope and text" || fail "grant list --json: $(cat "$T/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert [g["id"] for g in d["grants"]] == sys.argv[2:], d
g = d["grants"][1]
assert g["name"] == "exact" and g["answerer"] == "ex" and "prog a b" in g["text"], g
PY
w "$S1" grant list
grep -q "^$G2  exact: exactly \`prog a b\` in $WS, program " "$T/out" || fail "grant list text: $(cat "$T/out")"
w "$S1" session state "$S1" --json
[ "$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["grants"]))' "$T/out")" = 2 ] ||
	fail "session state --json grants: $(cat "$T/out")"
w "$S1" session state "$S1"
grep -q "^grant: $G2 exact: " "$T/out" || fail "session state text: $(cat "$T/out")"
w "$S1" grant revoke "$G2"
[ "$rc" -eq 0 ] || fail "revoke: $rc $(cat "$T/err")"
w "$S1" grant revoke "$G2"
[ "$rc" -eq 64 ] && grep -q "no grant $G2 is in force" "$T/err" || fail "a second revoke: $rc $(cat "$T/err")"
w "$S1" grant revoke nonsense
[ "$rc" -eq 64 ] && grep -q "not a grant id" "$T/err" || fail "revoke of a bad id: $rc $(cat "$T/err")"
w "$S1" grant list --json
[ "$("$PY" -c 'import json,sys; print([g["id"] for g in json.load(open(sys.argv[1]))["grants"]])' "$T/out")" = "['$G1']" ] ||
	fail "after revoke: $(cat "$T/out")"
ok "list, state and revoke"

echo "---- revoked: asked again"
reply allowed-for-session
esc "$S1" -- prog a b
[ "$rc" -eq 0 ] && [ "$(asked)" = 8 ] || fail "a revoked grant: exit $rc, asked $(asked)"
G3=$(js 'r["escalation"]["grant"]["id"]')
w "$S1" session show "$S1" --json
[ "$rc" -eq 0 ] || fail "session show: $rc $(cat "$T/err")"
esc "$S1" -- prog a b
[ "$rc" -eq 0 ] && [ "$(asked)" = 8 ] && [ "$(js 'r["escalation"]["grant"]["id"]')" = "$G3" ] ||
	fail "after session show: exit $rc, asked $(asked)"
ok "revoked is asked; a new grant survives session show"

echo "---- prefix grants and shell strings"
reply 'allowed-for-session prefix:2'
esc "$S1" -- git status
[ "$rc" -eq 77 ] && [ "$(asked)" = 9 ] || fail "prefix:2 of a two-word argv is not offered: exit $rc, asked $(asked)"
grep -q "does not offer" "$T/out" || fail "the refusal says the scope was not offered: $(cat "$T/out")"
esc "$S1" -- git status --porcelain
[ "$rc" -eq 0 ] && [ "$(asked)" = 10 ] && [ "$(js 'r["escalation"]["grant"]["scope"]')" = prefix:2 ] ||
	fail "a prefix grant: exit $rc, asked $(asked): $(cat "$T/out")"
esc "$S1" -- git status -s
[ "$rc" -eq 0 ] && [ "$(asked)" = 10 ] || fail "git status -s under prefix:2: exit $rc, asked $(asked)"
esc "$S1" --cwd sub -- git status
[ "$rc" -eq 0 ] && [ "$(asked)" = 10 ] || fail "git status in another directory under prefix:2: exit $rc, asked $(asked)"
reply rejected
esc "$S1" -- git push
[ "$rc" -eq 77 ] && [ "$(asked)" = 11 ] || fail "git push under prefix:2: exit $rc, asked $(asked)"
esc "$S1" -c 'git status; rm -rf x'
[ "$rc" -eq 77 ] && [ "$(asked)" = 12 ] || fail "bash -c 'git status; rm -rf x' under prefix:2: exit $rc, asked $(asked)"
[ "$(offered)" = exact ] || fail "a bash -c request offers only exact: $(offered)"
reply allowed-for-session
esc "$S1" -c 'git status'
[ "$rc" -eq 0 ] && [ "$(asked)" = 13 ] || fail "bash -c 'git status' granted: exit $rc, asked $(asked)"
reply rejected
esc "$S1" -c 'git status; rm -rf x'
[ "$rc" -eq 77 ] && [ "$(asked)" = 14 ] || fail "bash -c 'git status; rm -rf x' under the exact bash -c grant: exit $rc, asked $(asked)"
esc "$S1" -c 'git status'
[ "$rc" -eq 0 ] && [ "$(asked)" = 14 ] || fail "bash -c 'git status' again: exit $rc, asked $(asked)"
ok "prefix:2 covers git status -s, not git push nor a shell string; an exact bash -c grant covers only its string"

echo "---- a program under a writable root"
cp "$T/bin/prog" "$T/ws/tool"
reply allowed-for-session
esc "$S1" -- ./tool w
[ "$rc" -eq 77 ] && [ "$(asked)" = 15 ] && ! grep -qx 'ran w' "$T/outside/ran" ||
	fail "a writable program: exit $rc, asked $(asked)"
[ -z "$(offered)" ] || fail "a writable program was offered: $(offered)"
grep -q "no grant was offered\|offers no grant scope" "$T/out" || fail "the refusal says no grant was offered: $(cat "$T/out")"
ok "a program under the root: nothing offered, allowed-for-session unavailable, nothing ran"

echo "---- policy never refuses a covered request"
w "$S1" policy set never
esc "$S1" -- prog a b
[ "$rc" -eq 77 ] && [ "$(asked)" = 15 ] && [ "$(js 'r["escalation"]["outcome"]')" = rejected ] ||
	fail "policy never with a grant: exit $rc, asked $(asked)"
w "$S1" policy set ask
ok "never rejects a covered request"

echo "---- warden approve with a destination and with the zoo answerer in-process"
S3=$(new_session)
(cd "$T/ws" && "$WARDEN" --config "$T/zoo.ini" --session "$S3" approve --json --tool network --subject Example.org:443) >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 0 ] && [ "$(js 'r["outcome"], r["grant"]["scope"], r["grant"]["new"]')" = "('allowed-for-session', 'destination', True)" ] ||
	fail "a destination grant: $rc $(cat "$T/out" "$T/err")"
(cd "$T/ws" && "$WARDEN" --config "$T/five.ini" --session "$S3" approve --json --tool network --subject example.org:443) >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 0 ] && [ "$(js 'r["grant"]["new"], r["answerer"]')" = "(False, None)" ] ||
	fail "the destination grant covers example.org:443 (case), nobody asked: $rc $(cat "$T/out" "$T/err")"
ok "destination grants: given, and covering without asking"

echo "---- a 1.0 answerer that returns 5 is unavailable"
S4=$(new_session)
for c in five five-inproc; do
	(cd "$T/ws" && PATH="$T/bin:/usr/bin:/bin" "$WARDEN" --config "$T/$c.ini" --session "$S4" approve --json -- prog x) >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" -eq 3 ] && js 'r["reason"]' | grep -q "returned 5, which ABI 1.0 (the plugin's) does not define" ||
		fail "$c: exit $rc $(cat "$T/out" "$T/err")"
done
grep -q '"approval/grant"' "$T/state/$S4.jsonl" && fail "a 1.0 answerer's 5 wrote a grant"
ok "ABI 1.0 returning 5: unavailable in a worker and in-process, no grant"

echo "---- damaged grant events are refused by replay"
# damage NAME PYTHON: a copy of S1's log as session NAME, edited by PYTHON
# (over `ev`, the list of events; knobs are left as they were).
damage() {
	"$PY" - "$LOG1" "$T/state/$1.jsonl" "$2" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
exec(sys.argv[3])
with open(sys.argv[2], "w") as f:
    for e in ev:
        f.write(json.dumps(e, separators=(",", ":")) + "\n")
PY
	chmod 600 "$T/state/$1.jsonl"
}
damage d-scope 'g = [e for e in ev if e["type"] == "approval/grant"][0]; g["scope"]["argv"] = ["prog", "x"]'
w d-scope session show d-scope
[ "$rc" -eq 65 ] && grep -q 'is not the key of its scope' "$T/err" || fail "a changed scope: $rc $(cat "$T/err")"
damage d-revoke 'r = [e for e in ev if e["type"] == "approval/revoke"][0]; r["grant"] = "grant-0000000000000000"'
w d-revoke session show d-revoke
[ "$rc" -eq 65 ] && grep -q 'revoke of a grant that is not in force' "$T/err" || fail "a revoke of nothing: $rc $(cat "$T/err")"
damage d-twice 'g = [e for e in ev if e["type"] == "approval/grant"]; g[1]["grant"] = g[0]["grant"]'
w d-twice session show d-twice
[ "$rc" -eq 65 ] && grep -q 'line' "$T/err" || fail "a grant id twice: $rc $(cat "$T/err")"
damage d-knobs 'e = ev[-1]; e["knobs"]["grants"][0]["key"] = "0" * 64'
w d-knobs session show d-knobs
[ "$rc" -eq 65 ] || fail "a grant key changed in the knobs: $rc $(cat "$T/err")"
esc d-knobs -- prog a b
[ "$rc" -eq 65 ] && [ "$(asked)" = 15 ] || fail "a run in a session with damaged grant knobs: exit $rc, asked $(asked)"
ok "a changed scope, a revoke of nothing, an id twice, changed knobs: refused"

finish

#!/bin/sh
# fallback.sh — a backend passed over is visible (a stderr line, --json's
# `skipped`, the sandbox/run event), `required = yes` makes its failure
# SANDBOX_UNAVAILABLE instead of a fallback, a denial says what it refused
# (outside the root, a read-only path inside it, read-only mode), and a
# run whose runner failed before exec says started false.  The real bwrap
# and the real Landlock runner.
. "$top_srcdir/tests/run/lib.sh"

# A team's bwrap that cannot start: its binary is missing.
broken="[backend team]
plugin = $BWRAP_SO
path = $T/no-such-bwrap"
config fb read-only "$broken" landlock
config fb-req read-only "$broken
required = yes" landlock
config fb-ok workspace-write bwrap landlock

echo "---- a skipped backend is named: stderr, --json, the event"
id=$("$WARDEN" --config "$T/fb.ini" session new --cwd "$T/ws" | tail -n 1)
wr fb --session "$id" run --json -c 'echo ran'
expect "landlock confines after the team's backend" 0 class=ok backend=landlock
err_has "one line names the skipped backend and why" \
	"^warden: run: backend team was skipped: .*no-such-bwrap.*; landlock confines the command$"
[ "$(grep -c '^warden: run: backend' "$T/err")" = 1 ] || fail "more than one skip line"
"$PY" - "$T/out" <<'PY' || fail "--json skipped"
import json, sys
o = json.loads(open(sys.argv[1]).read().splitlines()[-1])
s = o["skipped"]
assert len(s) == 1 and s[0]["backend"] == "team" and "no-such-bwrap" in s[0]["reason"], s
print("ok: --json skipped:", s)
PY
"$WARDEN" --config "$T/fb.ini" session show "$id" --json >"$T/events" ||
	fail "session show"
"$PY" - "$T/events" <<'PY' || fail "the sandbox/run event's skipped"
import json, sys
data = json.load(open(sys.argv[1]))
events = data["events"] if isinstance(data, dict) else data
runs = [e for e in events if e["type"] == "sandbox/run" and e.get("class") == "ok"]
assert runs and runs[-1]["skipped"][0]["backend"] == "team", runs
print("ok: the event names the skipped backend")
PY

echo "---- required = yes: no fallback"
rm -f "$T/ws/marker"
wr fb-req run --json -c "touch '$T/ws/marker'"
expect "a required backend that fails is SANDBOX_UNAVAILABLE" 69 class=None started=False refused=unavailable
err_has "the refusal names the required backend" \
	"SANDBOX_UNAVAILABLE: backend team is required \(required = yes\)"
[ ! -e "$T/ws/marker" ] || fail "the command ran under another backend"
wr fb-req config check
expect "required is a valid key" 0
printf '[warden]\nstate_dir = %s\n[backend team]\nplugin = bwrap\nrequired = maybe\n' "$T/state" >"$T/badreq.ini"
chmod 644 "$T/badreq.ini"
(cd "$T/ws" && "$WARDEN" --config "$T/badreq.ini" config check) >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 78 ] && grep -q "badreq.ini:5.*required = maybe: allowed: true, false" "$T/err" &&
	ok "a bad required value is a config error naming file and line" ||
	{ fail "bad required: exit $rc"; cat "$T/err"; }

echo "---- nothing skipped: an empty list, no line"
wr fb-ok run --json -c 'true'
expect "bwrap first" 0 class=ok backend=bwrap
[ "$(field skipped)" = "[]" ] || fail "skipped is $(field skipped), want []"
grep -q 'skipped' "$T/err" && fail "a skip line without a skip"

echo "---- denial texts say what was refused"
mkdir -p "$T/ws/.git/hooks"
for b in bwrap landlock; do
	config d-$b workspace-write $b
	wr d-$b run --json -c "echo x >'$T/outside/file'"
	expect "$b: outside denied" 1 class=denied
	err_has "$b: the line names the path outside the root" \
		"^warden: denied by the workspace-write sandbox \($b\): a write to $T/outside/file, outside the workspace root $T/ws, was refused"
	[ "$(field denied_path)" = "$T/outside/file" ] || fail "$b: denied_path is $(field denied_path)"
	config dro-$b read-only $b
	wr dro-$b run --json -c "echo x >'$T/ws/new'"
	err_has "$b: read-only names the path and the mode" \
		"^warden: denied by the read-only sandbox \($b\): a write to $T/ws/new was refused \(read-only allows none\)"
done
wr d-bwrap run --json -c "echo x >'$T/ws/.git/hooks/post-checkout'"
expect "a protected path is denied" 1 class=denied
err_has "a protected path is not called outside the root" \
	"^warden: denied by the workspace-write sandbox \(bwrap\): a write to $T/ws/.git/hooks/post-checkout was refused: a read-only path inside the workspace root"
grep -q "outside the workspace root" "$T/err" && fail "a write inside the root reported as outside"
[ ! -e "$T/ws/.git/hooks/post-checkout" ] || fail "the protected path was written"

echo "---- a runner that failed before exec: started false"
cat >"$T/fake-bwrap" <<'SH'
#!/bin/sh
for a in "$@"; do last=$a; done
[ "$last" = --version ] && exec /usr/bin/bwrap "$@"
echo "bwrap: Can't mount proc on /newroot/proc: Operation not permitted" >&2
exit 1
SH
chmod 755 "$T/fake-bwrap"
config se read-only "[backend bwrap]
plugin = $BWRAP_SO
path = $T/fake-bwrap"
wr se run --json -c 'true'
expect "sandbox-error says the command never started" 125 class=sandbox-error started=False

finish

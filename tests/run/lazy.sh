#!/bin/sh
# lazy.sh — a backend is loaded (dlopen, its constructors, open()) only
# when a run reaches it in the config's order: a run that the first
# backend confines never loads the next one, and one that falls back
# loads each backend it tries, skipped with its reason as before.
# `warden plugins` still loads every one.  The second backend is
# mark.so (tests/sandbox/mark.c), not a plugin: its constructor appends a
# line to $WARDEN_MARK_OUTSIDE when it is loaded, then the loader refuses
# it (no descriptor), like any malformed backend.
. "$top_srcdir/tests/run/lib.sh"

MARK=$top_builddir/tests/sandbox/.libs/mark.so
[ -e "$MARK" ] || { echo "FAIL: $MARK was not built"; exit 1; }
marked="[backend marked]
plugin = $MARK"
WARDEN_MARK_OUTSIDE=$T/loaded
export WARDEN_MARK_OUTSIDE

echo "---- bwrap confines: the next backend is never loaded"
config first workspace-write bwrap "$marked"
rm -f "$T/loaded"
wr first run --json -c 'echo ran >marker'
expect "bwrap confines the run" 0 class=ok backend=bwrap
[ "$(cat "$T/ws/marker" 2>/dev/null)" = ran ] || fail "the command did not run"
[ -e "$T/loaded" ] && fail "the second backend was loaded: $(cat "$T/loaded")" ||
	ok "mark.so was not loaded"
rm -f "$T/ws/marker"

echo "---- warden confine: the same"
wr first confine -- /bin/true
[ "$rc" = 0 ] && head -n 1 "$T/out" | grep -q 'warden-bwrap-exec$' &&
	ok "warden confine prints bwrap's argv" || fail "warden confine: exit $rc: $(cat "$T/out" "$T/err")"
[ -e "$T/loaded" ] && fail "warden confine loaded the second backend" ||
	ok "mark.so was not loaded by warden confine"

echo "---- warden plugins loads every backend"
wr first plugins
[ -s "$T/loaded" ] && ok "warden plugins loaded mark.so" || fail "warden plugins did not load mark.so"
grep -q marked "$T/out" && ok "warden plugins names it" || fail "warden plugins: $(cat "$T/out")"

echo "---- bwrap unusable: each backend tried is loaded and skipped, in order"
config fall workspace-write "[backend bwrap]
plugin = $BWRAP_SO
path = $T/no-such-bwrap" "$marked" landlock
rm -f "$T/loaded"
wr fall run --json -c 'echo ran >marker'
expect "landlock confines after two skips" 0 class=ok backend=landlock
[ "$(cat "$T/ws/marker" 2>/dev/null)" = ran ] || fail "the command did not run"
[ "$(wc -l <"$T/loaded" 2>/dev/null)" = 1 ] && ok "mark.so was loaded once" ||
	fail "mark.so was loaded $(wc -l <"$T/loaded" 2>/dev/null) times"
"$PY" - "$T/out" <<'PY' || fail "--json skipped: $(tail -n 1 "$T/out")"
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
names = [s["backend"] for s in r["skipped"]]
assert names == ["bwrap", "marked"], names
assert "no-such-bwrap" in r["skipped"][0]["reason"], r["skipped"][0]
assert "malformed" in r["skipped"][1]["reason"], r["skipped"][1]
PY
ok "both skips are reported, in order, with their reasons"

echo "---- nothing usable: SANDBOX_UNAVAILABLE names every backend"
config none workspace-write "[backend bwrap]
plugin = $BWRAP_SO
path = $T/no-such-bwrap" "$marked"
rm -f "$T/loaded" "$T/ws/marker"
wr none run -c 'echo ran >marker'
[ "$rc" != 0 ] || fail "an unconfinable run exited 0"
[ -e "$T/ws/marker" ] && fail "the command ran unconfined"
err_has "SANDBOX_UNAVAILABLE with both reasons" "SANDBOX_UNAVAILABLE.*bwrap: .*no-such-bwrap.*marked: malformed"

finish

#!/bin/sh
# test_cli.sh — `warden plugins` and `warden config check` on real configs
# and the real zoo plugins: exact statuses, exit codes, file:line:key errors.
set -eu
: "${WARDEN:?run by make check}" "${top_builddir:?run by make check}"

zoo="$top_builddir/tests/zoo/.libs"
# In the build tree, not /tmp: a world-writable directory is refused.
dir=$(mktemp -d "$top_builddir/tests/zoo/cli-XXXXXX")
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
unset WARDEN_CONFIG
export XDG_CONFIG_HOME="$dir/xdg"

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_line() { # expect_line FILE TEXT
	grep -qxF -- "$2" "$1" || { cat "$1" >&2; fail "missing line: $2"; }
}

cat >"$dir/zoo.ini" <<INI
[warden]
plugin_dir = $zoo
[backend zb]
plugin = zoo_backend
[answerer good]
plugin = zoo_answerer
isolation = process
decision = rejected
[answerer major]
plugin = zoo_abi_major
[answerer gone]
plugin = zoo_gone
[answerer openerr]
plugin = zoo_open_error
[answerer crash]
plugin = zoo_open_crash
INI
chmod 644 "$dir/zoo.ini"
real_zoo=$(cd "$zoo" && pwd -P)

# --- warden plugins: every plugin listed, the crash contained -----------
"$WARDEN" --config "$dir/zoo.ini" plugins >"$dir/out" 2>"$dir/err" ||
	fail "plugins exited $?"
expect_line "$dir/out" "config: $dir/zoo.ini"
expect_line "$dir/out" "[backend zb] loaded; zoo-backend 1.0, abi 1.4; $real_zoo/zoo_backend.so"
expect_line "$dir/out" "[answerer good] loaded; zoo-answerer 1.0, abi 1.4, isolation process; $real_zoo/zoo_answerer.so"
expect_line "$dir/out" "[answerer major] malformed: abi 2.0, host speaks 1.x, isolation process; $real_zoo/zoo_abi_major.so"
expect_line "$dir/out" "[answerer gone] missing: no such file: $zoo/zoo_gone.so, isolation process; $zoo/zoo_gone.so"
expect_line "$dir/out" "[answerer openerr] failed: cannot reach the policy service of openerr; open-error 1.0, abi 1.4, isolation process; $real_zoo/zoo_open_error.so"
grep -q '^\[answerer crash\] failed: crashed while loading or opening: Segmentation fault' "$dir/out" ||
	{ cat "$dir/out" >&2; fail "crash not reported"; }

"$WARDEN" --config "$dir/zoo.ini" plugins --json >"$dir/json"
python3 - "$dir/json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
st = {(p["section"], p["instance"]): p for p in d["plugins"]}
assert [p["instance"] for p in d["plugins"]] == ["zb", "good", "major", "gone", "openerr", "crash"], d
assert st["backend", "zb"]["status"] == "loaded" and st["backend", "zb"]["reason"] is None
assert st["answerer", "good"]["abi"] == "1.4" and st["answerer", "good"]["isolation"] == "process"
assert st["answerer", "major"]["status"] == "malformed"
assert st["answerer", "major"]["reason"] == "abi 2.0, host speaks 1.x"
assert st["answerer", "gone"]["status"] == "missing" and st["answerer", "gone"]["abi"] is None
assert st["answerer", "openerr"]["status"] == "failed"
assert st["answerer", "crash"]["status"] == "failed"
PY

# --- warden config check -------------------------------------------------
"$WARDEN" --config "$dir/zoo.ini" config check >"$dir/out"
expect_line "$dir/out" "config: $dir/zoo.ini: ok"
expect_line "$dir/out" "backends (1): zb (plugin zoo_backend)"
expect_line "$dir/out" "presets (2, built-in): workspace-write (workspace-write, ask), danger-full-access (danger-full-access, never)"

printf '[warden]\ndefault_mode = read-only\n\n[answerer a]\nplugin = x\nisolation = threads\n' >"$dir/bad.ini"
chmod 644 "$dir/bad.ini"
status=0
"$WARDEN" --config "$dir/bad.ini" config check >"$dir/out" 2>"$dir/err" || status=$?
[ "$status" -eq 78 ] || fail "config check on a bad config exited $status, not 78"
expect_line "$dir/err" "warden: $dir/bad.ini:6: [answerer a] isolation = threads: allowed: inproc, process"
status=0
"$WARDEN" --config "$dir/bad.ini" config check --json >"$dir/out" 2>/dev/null || status=$?
[ "$status" -eq 78 ] || fail "config check --json exited $status"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["ok"] is False and ":6:" in d["error"] and d["exit"] == 78' "$dir/out"

# Every command refuses a bad config the same way.
status=0
"$WARDEN" --config "$dir/bad.ini" plugins >/dev/null 2>&1 || status=$?
[ "$status" -eq 78 ] || fail "plugins on a bad config exited $status"

# A plugin named by a relative path with a slash is no status of the
# listing (warden-plugin(7)): it is a config error that stops it, file:line.
printf '[warden]\n[answerer good]\nplugin = zoo_answerer\n[answerer rel]\nplugin = sub/x.so\n' >"$dir/rel.ini"
chmod 644 "$dir/rel.ini"
status=0
"$WARDEN" --config "$dir/rel.ini" plugins >"$dir/out" 2>"$dir/err" || status=$?
[ "$status" -eq 78 ] || fail "plugins with a relative plugin path exited $status, not 78"
[ ! -s "$dir/out" ] || fail "plugins listed something despite the config error: $(cat "$dir/out")"
expect_line "$dir/err" "warden: $dir/rel.ini:5: [answerer rel] plugin = sub/x.so: allowed: a plugin name (A-Z a-z 0-9 _ - ., found as NAME.so in plugin_dir) or an absolute path"

# A config anyone may write is refused.
chmod 666 "$dir/bad.ini"
status=0
"$WARDEN" --config "$dir/bad.ini" config check 2>"$dir/err" || status=$?
[ "$status" -eq 78 ] || fail "group/other-writable config exited $status"
grep -q "refused, writable by others" "$dir/err" || fail "no refusal reason"

# $WARDEN_CONFIG is used when --config is not given.
WARDEN_CONFIG="$dir/zoo.ini" "$WARDEN" config check >"$dir/out"
expect_line "$dir/out" "config: $dir/zoo.ini: ok"

# --- usage and help ----------------------------------------------------
"$WARDEN" plugins --help | grep -q '^usage: warden plugins' || fail "plugins --help"
"$WARDEN" config check --help | grep -q '^usage: warden config check' || fail "config check --help"
"$WARDEN" config --help | grep -q '^usage: warden config check' || fail "config --help"
for args in "config" "config frob" "plugins --frob" "plugins extra"; do
	status=0
	# shellcheck disable=SC2086
	"$WARDEN" $args >/dev/null 2>&1 || status=$?
	[ "$status" -eq 64 ] || fail "warden $args exited $status, not 64"
done
echo "ok"

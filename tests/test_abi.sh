#!/bin/sh
# test_abi.sh — the plugin ABI across minors (plugin.h: Versioning,
# Growing, Meeting an older host), with real dlopen and real processes.
#
#   1. Plugins built from the frozen 1.0 header (tests/abi-1.0: the
#      allowtool answerer and the robwrap backend as they were written
#      against it) load on this host as abi 1.0 and work unchanged: the
#      answerer decides through `warden approve` in a worker and in-process,
#      the backend confines `warden run` (a write outside is refused and
#      the file stays as it was).
#   2. Plugins built from the current header meet a host that knows only
#      1.0 (host10, built from the frozen header, every struct it hands
#      over ending at an inaccessible page): each loads and keeps to the
#      1.0 structs, and what the header says degrades does (a backend with
#      probe2 and no probe is refused, "required op probe is NULL").
#   3. This host calls probe2 when a backend has it (the network facts
#      reach `warden plugins --json`), and refuses a runner_rule_size
#      smaller than a 1.0 rule.
set -eu
: "${WARDEN:?run by make check}" "${top_builddir:?}" "${top_srcdir:?}"
PY=/usr/bin/python3

dir=$(mktemp -d "$top_builddir/tests/abi-XXXXXX")
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
unset WARDEN_SESSION WARDEN_CONFIG
export XDG_CONFIG_HOME="$dir/xdg" XDG_STATE_HOME="$dir/xdg-state"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

command -v bwrap >/dev/null 2>&1 ||
	{ echo "FAIL: bubblewrap is not installed (apt-get install bubblewrap; ./quickstart installs it)"; exit 1; }
ABI10=$top_builddir/tests/abi-1.0
HOST10=$ABI10/host10
ZOO=$top_builddir/tests/zoo/.libs
for f in "$ABI10/.libs/abi10_allowtool.so" "$ABI10/.libs/abi10_robwrap.so" "$HOST10" \
         "$ZOO/zoo_probe2_only.so" "$ZOO/zoo_rule_size.so" "$ZOO/zoo_unchecked_out.so"; do
	[ -e "$f" ] || { echo "FAIL: $f was not built"; exit 1; }
done

# The plugins, copied into one trusted plugin directory.
mkdir "$dir/plugins" "$dir/ws" "$dir/outside" "$dir/state"
chmod 700 "$dir/state"
cp "$ABI10/.libs/abi10_allowtool.so" "$ABI10/.libs/abi10_robwrap.so" \
   "$ZOO/zoo_probe2_only.so" "$ZOO/zoo_rule_size.so" "$dir/plugins/"
chmod -R go-w "$dir/plugins"
echo original >"$dir/outside/file"

echo "---- 1. plugins of the frozen 1.0 header on this host"
grep -q '^#define WARDEN_PLUGIN_ABI_MINOR 0$' "$top_srcdir/tests/abi-1.0/warden/plugin.h" ||
	fail "tests/abi-1.0/warden/plugin.h is not the 1.0 header"
ini() { # NAME ISOLATION
	cat >"$dir/$1.ini" <<EOF
[warden]
plugin_dir = $dir/plugins
state_dir = $dir/state
workspace_root = $dir/ws
default_mode = read-only

[backend robwrap]
plugin = abi10_robwrap

[answerer allowtool]
plugin = abi10_allowtool
isolation = $2
tool = grep
EOF
	chmod 600 "$dir/$1.ini"
}
ini process process
ini inproc inproc

"$WARDEN" --config "$dir/process.ini" plugins --json >"$dir/plugins.json" 2>"$dir/err" ||
	fail "warden plugins: $(cat "$dir/err")"
"$PY" - "$dir/plugins.json" <<'PY' && ok "both load as abi 1.0; robwrap probes full in read-only" || fail "warden plugins on the 1.0 plugins"
import json, sys
d = {p["instance"]: p for p in json.load(open(sys.argv[1]))["plugins"]}
for n in ("robwrap", "allowtool"):
    assert d[n]["status"] == "loaded" and d[n]["abi"] == "1.0", d[n]
ro = d["robwrap"]["probes"]["read-only"]
assert ro["usable"] and ro["enforcement"] == "full" and ro["privilege_dropped"], ro
assert ro["network"] is None, ro
PY

for iso in process inproc; do
	sid=$("$WARDEN" --config "$dir/$iso.ini" session new --cwd "$dir/ws" | tail -n 1)
	st=0
	"$WARDEN" --config "$dir/$iso.ini" --session "$sid" approve --tool grep --subject 'grep -r x .' --json >"$dir/out" 2>"$dir/err" || st=$?
	if [ "$st" -eq 0 ] && "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["outcome"] == "allowed-once" and d["answerer"] == "allowtool", d
assert d["reason"] is None, d      # a 1.0 answerer gives no reason
' "$dir/out"; then
		ok "$iso: the 1.0 answerer allowed its tool"
	else
		fail "$iso: the 1.0 answerer: exit $st: $(cat "$dir/out" "$dir/err")"
	fi
	st=0
	"$WARDEN" --config "$dir/$iso.ini" --session "$sid" approve --tool write --subject f >/dev/null 2>&1 || st=$?
	[ "$st" -eq 3 ] && ok "$iso: the 1.0 answerer delegated another tool to the end of the chain" ||
		fail "$iso: the 1.0 answerer on another tool: exit $st, not 3"
done

st=0
(cd "$dir/ws" && "$WARDEN" --config "$dir/process.ini" run --json -c "echo confined-ok; echo x >'$dir/outside/file'") \
	>"$dir/out" 2>"$dir/err" || st=$?
if "$PY" - "$dir/out" <<'PY'; then
import json, sys
lines = open(sys.argv[1]).read().splitlines()
d = json.loads(lines[-1])
assert "confined-ok" in lines, lines
assert d["class"] == "denied" and d["backend"] == "robwrap", d
# A 1.0 backend never sees deny_read (the state directory is in it by
# default): the host counts the confinement partial and says why.
assert d["enforcement"] == "partial" and "deny_read is not held" in d["detail"], d
assert d["mode"] == "read-only", d
PY
	ok "warden run under the 1.0 backend: the command ran, its write outside was denied, partial for deny_read"
else
	fail "warden run under the 1.0 backend (exit $st): $(cat "$dir/out" "$dir/err")"
fi
[ "$(cat "$dir/outside/file")" = original ] && ok "the file outside is unchanged" ||
	fail "a write under the 1.0 backend went through"

echo "---- 2. plugins of this header on a host that knows only 1.0"
# h10 NAME WANT-EXIT ARGS...: runs host10; its output in $dir/h10.NAME.
h10() {
	name=$1 want=$2
	shift 2
	st=0
	(cd "$dir/ws" && exec setsid "$HOST10" "$@") >"$dir/h10.$name" 2>&1 </dev/null || st=$?
	if [ "$st" -ne "$want" ]; then
		fail "host10 $name: exit $st, want $want: $(cat "$dir/h10.$name")"
		return 1
	fi
	return 0
}
has() { # NAME PATTERN
	grep -q -- "$2" "$dir/h10.$1" || { fail "host10 $1: no line matching '$2': $(cat "$dir/h10.$1")"; return 1; }
}
P=$top_builddir/plugins
if h10 rules 0 "$P/rules/.libs/rules.so" answerer grep 'grep x' 'allow=grep:*' &&
   has rules '^loaded: rules .*, abi 1\.[1-9]' && has rules "^decide: 1 " && has rules '^closed$'; then
	ok "rules on a 1.0 host: allowed-once"
fi
if h10 zoo 0 "$ZOO/zoo_answerer.so" answerer bash ls 'decision=rejected' &&
   has zoo '^decide: 2 ' && has zoo '^closed$'; then
	ok "the zoo answerer on a 1.0 host: rejected"
fi
if h10 exec 0 "$P/exec/.libs/exec.so" answerer read f \
	"command=$top_srcdir/plugin-api/examples/answer-by-tool.sh" &&
   has exec '^decide: ' && has exec '^closed$'; then
	ok "exec on a 1.0 host (no timeout_ms in its open args): decided"
fi
if h10 tty 0 "$P/tty/.libs/tty.so" answerer bash ls &&
   has tty '^decide: 4 ' && has tty '^closed$'; then
	ok "tty on a 1.0 host without a terminal: delegated"
fi
if h10 bwrap 0 "$P/bwrap/.libs/bwrap.so" backend "launcher=$P/bwrap/warden-bwrap-exec" &&
   has bwrap '^probe read-only: rc 0 usable 1 enforcement 1 privilege_dropped 1' &&
   has bwrap '^confine: rc 0 ' && has bwrap '^confined$' && has bwrap '^run: exit 0$'; then
	ok "bwrap on a 1.0 host: probed, confined, ran"
fi
if h10 landlock 0 "$P/landlock/.libs/landlock.so" backend "runner=$P/landlock/warden-landlock-run" &&
   has landlock '^probe read-only: rc 0 usable 1 ' && has landlock '^confine: rc 0 ' &&
   has landlock '^confined$' && has landlock '^run: exit 0$'; then
	ok "landlock on a 1.0 host: probed, confined, ran"
fi
# The harness is not blind: a write past the 1.0 confine_out kills it.
st=0
(cd "$dir/ws" && exec "$HOST10" "$ZOO/zoo_unchecked_out.so" backend) >"$dir/h10.unchecked" 2>&1 </dev/null || st=$?
[ "$st" -eq 139 ] && ok "host10 catches a plugin that writes a 1.1 field of a 1.0 confine_out (SIGSEGV)" ||
	fail "host10 did not catch the unchecked write (exit $st): $(cat "$dir/h10.unchecked")"
if h10 probe2 1 "$ZOO/zoo_probe2_only.so" backend &&
   has probe2 '^refused: required op probe is NULL$'; then
	ok "a backend with probe2 and no probe is refused by a 1.0 host, as documented"
fi

echo "---- 3. this host and the 1.1 descriptor"
cat >"$dir/v11.ini" <<EOF
[warden]
plugin_dir = $dir/plugins
state_dir = $dir/state

[backend p2]
plugin = zoo_probe2_only

[backend rs]
plugin = zoo_rule_size
EOF
chmod 600 "$dir/v11.ini"
"$WARDEN" --config "$dir/v11.ini" plugins --json >"$dir/v11.json" 2>"$dir/err" ||
	fail "warden plugins: $(cat "$dir/err")"
"$PY" - "$dir/v11.json" <<'PY' && ok "probe2 is called (its network facts are shown); a short runner_rule_size is malformed" || fail "the 1.1 descriptor fields"
import json, sys
d = {p["instance"]: p for p in json.load(open(sys.argv[1]))["plugins"]}
p2 = d["p2"]
assert p2["status"] == "loaded" and p2["abi"] == "1.4", p2
ro, ww = p2["probes"]["read-only"], p2["probes"]["workspace-write"]
assert ro["usable"] and ro["enforcement"] == "full", ro
assert ro["network"] == "partial" and ro["network_detail"] == "probe2-only lets loopback through", ro
assert not ww["usable"] and ww["detail"] == "probe2-only confines read-only only" and ww["network"] is None, ww
rs = d["rs"]
assert rs["status"] == "malformed", rs
assert rs["reason"] == "runner_rule_size 8 is smaller than abi 1.0's 48", rs
PY

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "PASS: plugins of 1.0 work on this host; plugins of this header keep to 1.0 on a 1.0 host"

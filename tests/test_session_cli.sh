#!/bin/sh
# test_session_cli.sh — `warden session`, `mode set`, `policy set`,
# `network` and `preset`: output, exit codes, and that every error is one line on stderr
# that leaves the state directory byte for byte as it was.
set -eu
: "${WARDEN:?run by make check}" "${top_builddir:?run by make check}"

dir=$(mktemp -d "$top_builddir/tests/session-cli-XXXXXX")
trap 'rm -rf "$dir"' EXIT
chmod 700 "$dir"
unset WARDEN_SESSION
export XDG_CONFIG_HOME="$dir/xdg"
mkdir -p "$dir/ws"

cat >"$dir/w.ini" <<INI
[warden]
default_mode = workspace-write
approval_policy = ask
state_dir = $dir/state
durability = none

[preset review]
sandbox = read-only
approval = ask
label = Review
[preset build]
sandbox = workspace-write
approval = ask
[preset edit]
sandbox = workspace-write
approval = ask
[preset yolo]
sandbox = danger-full-access
approval = never
INI
chmod 600 "$dir/w.ini"
export WARDEN_CONFIG="$dir/w.ini"

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_line() { # expect_line FILE TEXT
	grep -qxF -- "$2" "$1" || { cat "$1" >&2; fail "missing line: $2"; }
}
snapshot() { # the state directory's names, modes and bytes
	(cd "$dir" && find state -print0 2>/dev/null | sort -z |
		xargs -0 -r stat -c '%n %a %s' && find state -type f -print0 2>/dev/null |
		sort -z | xargs -0 -r cat) >"$1" 2>/dev/null || true
}
# expect_error CODE ARGS... — exit CODE, one "warden: " line on stderr,
# nothing on disk changed.
expect_error() {
	want=$1; shift
	snapshot "$dir/before"
	set +e
	"$WARDEN" "$@" >"$dir/out" 2>"$dir/err"
	got=$?
	set -e
	[ "$got" -eq "$want" ] || { cat "$dir/err" >&2; fail "$*: exit $got, want $want"; }
	[ "$(wc -l <"$dir/err")" -eq 1 ] || { cat "$dir/err" >&2; fail "$*: not one line on stderr"; }
	grep -q '^warden: ' "$dir/err" || fail "$*: stderr does not start with 'warden: '"
	snapshot "$dir/after"
	cmp -s "$dir/before" "$dir/after" || fail "$*: changed the state directory"
}

# --- session new: the id is the last line; dirs 0700, log 0600 --------
"$WARDEN" session new --cwd "$dir/ws" >"$dir/out"
id=$(tail -n 1 "$dir/out")
echo "$id" | grep -Eq '^[A-Za-z0-9._-]{1,128}$' || fail "bad id: $id"
[ "$(stat -c %a "$dir/state")" = 700 ] || fail "state dir not 0700"
[ "$(stat -c %a "$dir/state/$id.jsonl")" = 600 ] || fail "log not 0600"
ws=$(cd "$dir/ws" && pwd -P)

"$WARDEN" session state "$id" >"$dir/out"
expect_line "$dir/out" "session: $id"
expect_line "$dir/out" "mode: workspace-write (config)"
expect_line "$dir/out" "network: restricted (config)"
expect_line "$dir/out" "policy: ask (config)"
expect_line "$dir/out" "preset: build (derived)"
expect_line "$dir/out" "root: $ws (session)"

# --- knobs through --session and $WARDEN_SESSION -------------------------
"$WARDEN" --session "$id" mode set read-only >"$dir/out"
expect_line "$dir/out" "mode: read-only"
WARDEN_SESSION=$id "$WARDEN" mode set read-only >"$dir/out"
expect_line "$dir/out" "mode: read-only (already recorded; nothing written)"
WARDEN_SESSION=$id "$WARDEN" preset current >"$dir/out"
expect_line "$dir/out" "review"
WARDEN_SESSION=$id "$WARDEN" policy set never >"$dir/out"
expect_line "$dir/out" "policy: never"
WARDEN_SESSION=$id "$WARDEN" preset current >"$dir/out"
expect_line "$dir/out" "custom"

# --- presets: the tie rule through the CLI -------------------------------
export WARDEN_SESSION="$id"
"$WARDEN" preset select edit >"$dir/out"
expect_line "$dir/out" "preset: edit"
"$WARDEN" preset current >"$dir/out"
expect_line "$dir/out" "edit"
"$WARDEN" preset select edit >"$dir/out"
expect_line "$dir/out" "preset: edit (already current; nothing written)"
"$WARDEN" preset list >"$dir/out"
grep -q '^\* edit ' "$dir/out" || fail "edit not marked current"
"$WARDEN" preset list --json >"$dir/out"
python3 - "$dir/out" <<'PY'
import json, sys
presets = json.load(open(sys.argv[1]))
assert [p["name"] for p in presets] == ["review", "build", "edit", "yolo"], presets
assert [p["current"] for p in presets] == [False, False, True, False], presets
assert presets[0]["label"] == "Review"
assert [p["network"] for p in presets] == [None, None, None, None], presets
PY
"$WARDEN" preset current --json >"$dir/out"
python3 - "$dir/out" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
assert o == {"preset": "edit", "source": "session", "sandbox": "workspace-write",
             "approval": "ask", "network": "restricted"}, o
PY

# --- session show: every event, text and JSON ----------------------------
"$WARDEN" session show "$id" >"$dir/out"
[ "$(wc -l <"$dir/out")" -eq 6 ] || { cat "$dir/out"; fail "show: want 6 events"; }
grep -q '^1 [0-9T:.Z-]* session/start {"cwd":"' "$dir/out" || fail "show: no session/start"
"$WARDEN" session show --json "$id" >"$dir/out"
python3 - "$dir/out" "$id" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
assert o["session"] == sys.argv[2]
ev = o["events"]
assert [e["seq"] for e in ev] == list(range(1, 7)), ev
assert [e["type"] for e in ev] == ["session/start", "sandbox/mode", "approval/policy",
    "permission/preset", "sandbox/mode", "approval/policy"], ev
assert ev[-1]["knobs"] == {"mode": "workspace-write", "policy": "ask", "preset": "edit"}
PY
"$WARDEN" session state --json "$id" >"$dir/out"
python3 - "$dir/out" "$ws" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
assert o["mode"] == {"value": "workspace-write", "source": "session"}, o
assert o["preset"] == {"value": "edit", "source": "session"}, o
assert o["root"] == {"value": sys.argv[2], "source": "session"}, o
assert o["network"] == {"value": "restricted", "source": "config"}, o
PY

# --- the network knob: show, set, and where it comes from ---------------
"$WARDEN" network >"$dir/out"
expect_line "$dir/out" "network: restricted (config)"
"$WARDEN" network set enabled >"$dir/out"
expect_line "$dir/out" "network: enabled"
"$WARDEN" network set enabled >"$dir/out"
expect_line "$dir/out" "network: enabled (already recorded; nothing written)"
"$WARDEN" network --json >"$dir/out"
python3 - "$dir/out" "$id" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
assert o == {"session": sys.argv[2], "network": "enabled", "source": "session",
             "mode": "workspace-write"}, o
PY
"$WARDEN" session state "$id" >"$dir/out"
expect_line "$dir/out" "network: enabled (session)"
# No preset here names a network: the selection still describes the knobs.
"$WARDEN" preset current >"$dir/out"
expect_line "$dir/out" "edit"
# danger-full-access confines nothing: its network is always enabled.
"$WARDEN" network set restricted >"$dir/out"
"$WARDEN" mode set danger-full-access >"$dir/out"
"$WARDEN" network >"$dir/out"
expect_line "$dir/out" "network: enabled (mode)"
"$WARDEN" mode set workspace-write >"$dir/out"
"$WARDEN" network >"$dir/out"
expect_line "$dir/out" "network: restricted (session)"
"$WARDEN" session show --json "$id" >"$dir/out"
python3 - "$dir/out" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["events"]
assert [e["type"] for e in ev[6:]] == ["sandbox/network", "sandbox/network",
    "sandbox/mode", "sandbox/mode"], ev
assert ev[6]["network"] == "enabled" and ev[6]["knobs"]["network"] == "enabled", ev[6]
assert ev[-1]["knobs"] == {"mode": "workspace-write", "policy": "ask", "preset": "edit",
    "network": "restricted"}, ev[-1]
PY
# Without a session, `network` shows what a call without one gets.
env -u WARDEN_SESSION "$WARDEN" network >"$dir/out"
expect_line "$dir/out" "network: restricted (config)"

# --- every error: one line, exit code, nothing changed on disk -----------
expect_error 64 mode set bogus
expect_error 64 mode set
expect_error 64 mode set read-only extra
expect_error 64 mode
expect_error 64 network set open
expect_error 64 network set
expect_error 64 network set enabled extra
expect_error 64 network set --json enabled
expect_error 64 network bogus
expect_error 64 network --bogus
expect_error 64 policy set maybe
expect_error 64 preset select nope
expect_error 64 preset select custom
expect_error 64 preset select
expect_error 64 preset frobnicate
expect_error 64 preset list --bogus
expect_error 64 session
expect_error 64 session delete "$id"
expect_error 64 session new --cwd "$dir/missing"
expect_error 64 session new --cwd "$dir/w.ini"
expect_error 64 session new extra
expect_error 64 session show nope
expect_error 64 session show "$id" extra
long=$(printf 'a%.0s' $(seq 1 129))
for bad in ../x a/b . .. "$long" "$(printf 'a\001b')" "$(printf '\303\251t\303\251')" \
	"$(printf 'x\033[31m')" "a b" ""; do
	expect_error 64 session show "$bad"
	expect_error 64 session state "$bad"
	expect_error 64 --session "$bad" mode set read-only
	expect_error 64 --session "$bad" network set enabled
	expect_error 64 --session "$bad" network
	expect_error 64 --session "$bad" preset select yolo
	if grep -q "$(printf '\033')" "$dir/err"; then fail "an escape from the id reached stderr"; fi
done
if [ -e "$dir/x.jsonl" ]; then fail "../x escaped the state directory"; fi
unset WARDEN_SESSION
expect_error 64 session show
expect_error 64 session state
expect_error 64 mode set read-only
expect_error 64 network set restricted
expect_error 64 policy set ask
expect_error 64 preset select yolo
expect_error 64 preset current

# --- a damaged log: every command refuses, naming the line ---------------
"$WARDEN" session new --cwd "$dir/ws" >"$dir/out"
bad=$(tail -n 1 "$dir/out")
WARDEN_SESSION=$bad "$WARDEN" mode set read-only >/dev/null
WARDEN_SESSION=$bad "$WARDEN" policy set never >/dev/null
sed -i '2s/"mode":"read-only"}/"mode":"read-write"}/' "$dir/state/$bad.jsonl"
expect_error 65 session show "$bad"
grep -q 'at line 2' "$dir/err" || fail "show does not name line 2: $(cat "$dir/err")"
expect_error 65 session state "$bad"
expect_error 65 --session "$bad" mode set workspace-write
expect_error 65 --session "$bad" policy set ask
expect_error 65 --session "$bad" network set enabled
expect_error 65 --session "$bad" network
expect_error 65 --session "$bad" preset select yolo
expect_error 65 --session "$bad" preset current

# A damaged sandbox/network event: refused like any other damage.
"$WARDEN" session new --cwd "$dir/ws" >"$dir/out"
badnet=$(tail -n 1 "$dir/out")
WARDEN_SESSION=$badnet "$WARDEN" network set enabled >/dev/null
sed -i '2s|"type":"sandbox/network","network":"enabled"|"type":"sandbox/network","network":"open"|' "$dir/state/$badnet.jsonl"
grep -q '"network":"open"' "$dir/state/$badnet.jsonl" || fail "the damage was not written"
expect_error 65 session show "$badnet"
grep -q 'at line 2' "$dir/err" || fail "show does not name line 2: $(cat "$dir/err")"
expect_error 65 session state "$badnet"
expect_error 65 --session "$badnet" network
expect_error 65 --session "$badnet" network set restricted

# --- presets with a network key: selecting one writes sandbox/network -----
cat >"$dir/n.ini" <<INI
[warden]
default_mode = workspace-write
state_dir = $dir/state
durability = none
[preset online]
sandbox = workspace-write
approval = ask
network = enabled
[preset offline]
sandbox = workspace-write
approval = ask
network = restricted
[preset any]
sandbox = read-only
approval = ask
INI
chmod 600 "$dir/n.ini"
"$WARDEN" --config "$dir/n.ini" session new --cwd "$dir/ws" >"$dir/out"
nid=$(tail -n 1 "$dir/out")
"$WARDEN" --config "$dir/n.ini" --session "$nid" preset current >"$dir/out"
expect_line "$dir/out" "offline"
"$WARDEN" --config "$dir/n.ini" --session "$nid" preset select online >"$dir/out"
"$WARDEN" --config "$dir/n.ini" --session "$nid" network >"$dir/out"
expect_line "$dir/out" "network: enabled (session)"
"$WARDEN" --config "$dir/n.ini" --session "$nid" preset select any >"$dir/out"
# "any" has no network key: the knob stays where "online" put it.
"$WARDEN" --config "$dir/n.ini" --session "$nid" network >"$dir/out"
expect_line "$dir/out" "network: enabled (session)"
"$WARDEN" --config "$dir/n.ini" --session "$nid" mode set workspace-write >"$dir/out"
"$WARDEN" --config "$dir/n.ini" --session "$nid" preset current >"$dir/out"
expect_line "$dir/out" "online"
"$WARDEN" --config "$dir/n.ini" --session "$nid" network set restricted >"$dir/out"
"$WARDEN" --config "$dir/n.ini" --session "$nid" preset current >"$dir/out"
expect_line "$dir/out" "offline"
"$WARDEN" --config "$dir/n.ini" preset list --json >"$dir/out"
python3 - "$dir/out" <<'PY'
import json, sys
presets = json.load(open(sys.argv[1]))
assert [p["network"] for p in presets] == ["enabled", "restricted", None], presets
PY
"$WARDEN" --config "$dir/n.ini" session show --json "$nid" >"$dir/out"
python3 - "$dir/out" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["events"]
assert [e["type"] for e in ev] == ["session/start", "permission/preset", "sandbox/network",
    "permission/preset", "sandbox/mode", "sandbox/mode", "sandbox/network"], ev
PY
# A config whose network is broken: nothing starts.
printf '[warden]\nstate_dir = %s/state\ndefault_network = open\n' "$dir" >"$dir/bad.ini"
chmod 600 "$dir/bad.ini"
expect_error 78 --config "$dir/bad.ini" network
grep -q 'default_network = open' "$dir/err" || fail "the config error does not name the key"

# A torn final line is only a warning, and the next write cuts it off.
"$WARDEN" session new --cwd "$dir/ws" >"$dir/out"
torn=$(tail -n 1 "$dir/out")
printf '{"seq":2,"time":"2026-' >>"$dir/state/$torn.jsonl"
"$WARDEN" session state "$torn" >"$dir/out" 2>"$dir/err"
grep -q 'warning: .*torn final line' "$dir/err" || fail "no torn-line warning"
WARDEN_SESSION=$torn "$WARDEN" mode set read-only >"$dir/out" 2>"$dir/err"
"$WARDEN" session show "$torn" >"$dir/out" 2>"$dir/err"
[ ! -s "$dir/err" ] || fail "torn tail survived the next append: $(cat "$dir/err")"
[ "$(wc -l <"$dir/out")" -eq 2 ] || fail "want 2 events after the cut"

# --- --help for each command ---------------------------------------------
for cmd in "session --help" "session new --help" "session show --help" \
	"mode --help" "mode set --help" "policy --help" "policy set --help" \
	"network --help" "network set --help" \
	"preset --help" "preset list --help"; do
	# shellcheck disable=SC2086
	"$WARDEN" $cmd >"$dir/out" || fail "$cmd exited $?"
	grep -q '^usage: warden' "$dir/out" || fail "$cmd: no usage"
done
echo "ok"

#!/bin/sh
# hostile_input.sh — hostile input through the real command line: session
# ids that try to be paths, plugin names that try to leave plugin_dir, a
# plugin swapped for a symlink, world-writable plugin dirs and configs,
# oversized lines and values, NUL and invalid UTF-8.  Each is refused with
# a clear message and exit code, and changes nothing: the session logs and
# the state directory are byte-for-byte what they were.
set -eu
: "${WARDEN:?run by make check}" "${top_builddir:?run by make check}"

zoo="$top_builddir/tests/zoo/.libs"
dir=$(mktemp -d "$top_builddir/tests/security/hostile-XXXXXX")
trap 'chmod -R u+w "$dir" 2>/dev/null; rm -rf "$dir"' EXIT
chmod 755 "$dir"
unset WARDEN_CONFIG WARDEN_SESSION
export XDG_CONFIG_HOME="$dir/xdg" XDG_STATE_HOME="$dir/state"
PY=/usr/bin/python3

fail() { echo "FAIL: $*" >&2; exit 1; }
# expect CODE PATTERN CMD...: exit status CODE, stderr matching PATTERN
expect() {
	code=$1 pat=$2; shift 2
	st=0; "$@" >"$dir/out" 2>"$dir/err" || st=$?
	[ "$st" -eq "$code" ] || { cat "$dir/out" "$dir/err" >&2; fail "exit $st, not $code: $*"; }
	grep -qE -- "$pat" "$dir/err" || { cat "$dir/err" >&2; fail "stderr lacks /$pat/: $*"; }
	[ "$(wc -l <"$dir/err")" -le 3 ] || { cat "$dir/err" >&2; fail "more than 3 error lines: $*"; }
}
snapshot() { (cd "$dir" && find state -type f -exec sha256sum {} + 2>/dev/null | sort; \
	find state 2>/dev/null | sort) >"$dir/$1"; }
unchanged() { snapshot after; cmp -s "$dir/before" "$dir/after" ||
	{ diff "$dir/before" "$dir/after" >&2; fail "state changed: $1"; }; }

mkdir -p "$dir/ws"
id=$("$WARDEN" session new --cwd "$dir/ws" | tail -n 1)
"$WARDEN" --session "$id" mode set read-only >/dev/null
snapshot before

# --- session ids that try to be paths -----------------------------------
for bad in "../$id" "a/b" "/etc/passwd" ".." "." "" "$(printf 'a\nb')" \
           "$(printf 'x%.0s' $(seq 1 129))" "id with space" "-rf"; do
	expect 64 "session" "$WARDEN" --session "$bad" mode set workspace-write
	expect 64 "session" "$WARDEN" session show "$bad"
done
# The environment is as hostile as the option.
WARDEN_SESSION="../../etc" expect 64 "session id" "$WARDEN" policy set never
expect 64 "session id" "$WARDEN" --session "$($PY -c 'import sys; sys.stdout.buffer.write(b"\xff\xfe")')" mode set read-only
unchanged "bad session ids"

# A damaged log is refused by every caller, and the damage stays as it was.
log=$(find "$dir/state" -name "$id.jsonl")
cp "$log" "$dir/log.orig"
{ head -n 1 "$dir/log.orig"; printf '{"seq":2,"time":"x","type":"sandbox/mode"}\n'; \
  tail -n +3 "$dir/log.orig"; } >"$log"
snapshot before
expect 65 "line 2" "$WARDEN" --session "$id" mode set workspace-write
expect 65 "line 2" "$WARDEN" session state "$id"
unchanged "damaged log"
cp "$dir/log.orig" "$log"
snapshot before

# --- plugins that try to leave plugin_dir -------------------------------
mkdir -p "$dir/plugins" "$dir/evil"
cp "$zoo/zoo_answerer.so" "$dir/plugins/good.so"
cp "$zoo/zoo_answerer.so" "$dir/evil/evil.so"
chmod 755 "$dir/plugins" "$dir/evil"
conf() { printf '[warden]\nplugin_dir = %s\n[answerer a]\nplugin = %s\n' "$dir/plugins" "$1" >"$dir/c.ini"; chmod 644 "$dir/c.ini"; }
for bad in "../evil/evil" "../../tmp/evil" "evil/../good" "./good" "relative/path"; do
	conf "$bad"
	expect 78 "c.ini:4.*plugin" "$WARDEN" --config "$dir/c.ini" config check
done

# A plugin swapped for a symlink: the file the link resolves to is what is
# checked, so a link into a world-writable directory, or to a file someone
# else owns, is refused; a link to a trusted file loads, and the listing
# names the real file.
ln -s "$dir/evil/evil.so" "$dir/plugins/swapped.so"
conf swapped
chmod 777 "$dir/evil"
"$WARDEN" --config "$dir/c.ini" plugins >"$dir/out" 2>&1 || true
grep -qE '^\[answerer a\] malformed: .*writable by others' "$dir/out" ||
	{ cat "$dir/out" >&2; fail "a symlink into a world-writable dir was not refused"; }
chmod 755 "$dir/evil"; chown nobody "$dir/evil/evil.so"
"$WARDEN" --config "$dir/c.ini" plugins >"$dir/out" 2>&1 || true
grep -qE '^\[answerer a\] malformed: .*owned by uid' "$dir/out" ||
	{ cat "$dir/out" >&2; fail "a symlink to a stranger's file was not refused"; }
chown 0 "$dir/evil/evil.so"
"$WARDEN" --config "$dir/c.ini" plugins >"$dir/out" 2>&1 || true
grep -qF "[answerer a] loaded; zoo-answerer 1.0, abi 1.4, isolation process; $(cd "$dir/evil" && pwd -P)/evil.so" "$dir/out" ||
	{ cat "$dir/out" >&2; fail "a trusted symlinked plugin is not listed by its real file"; }

# A world-writable or group-writable plugin dir, and plugin file.
conf good
chmod 777 "$dir/plugins"
"$WARDEN" --config "$dir/c.ini" plugins >"$dir/out" 2>&1 || true
grep -qE '^\[answerer a\] malformed: .*writable by others' "$dir/out" ||
	{ cat "$dir/out" >&2; fail "a world-writable plugin dir was not refused"; }
chmod 755 "$dir/plugins"; chmod 666 "$dir/plugins/good.so"
"$WARDEN" --config "$dir/c.ini" plugins >"$dir/out" 2>&1 || true
grep -qE '^\[answerer a\] malformed: .*writable by' "$dir/out" ||
	{ cat "$dir/out" >&2; fail "a world-writable plugin file was not refused"; }
chmod 644 "$dir/plugins/good.so"
"$WARDEN" --config "$dir/c.ini" plugins >"$dir/out" 2>&1 ||
	{ cat "$dir/out" >&2; fail "the good plugin does not load"; }
grep -q '^\[answerer a\] loaded' "$dir/out" || { cat "$dir/out" >&2; fail "good plugin not loaded"; }

# --- hostile configs ------------------------------------------------------
chmod 666 "$dir/c.ini"
expect 78 "c.ini.*writable by others" "$WARDEN" --config "$dir/c.ini" config check
expect 78 "c.ini.*writable by others" "$WARDEN" --config "$dir/c.ini" --session "$id" mode set workspace-write
chmod 620 "$dir/c.ini"
expect 78 "c.ini.*writable by its group" "$WARDEN" --config "$dir/c.ini" config check
chmod 644 "$dir/c.ini"

bad_conf() { # bad_conf PATTERN: the config in $dir/h.ini is refused
	chmod 644 "$dir/h.ini"
	expect 78 "$1" "$WARDEN" --config "$dir/h.ini" config check
	expect 78 "$1" "$WARDEN" --config "$dir/h.ini" --session "$id" mode set workspace-write
}
$PY -c 'print("[warden]\ndefault_mode = " + "r" * 100000)' >"$dir/h.ini"
bad_conf "h.ini:2"
$PY -c 'print("[warden]\n; " + "x" * 10000000)' >"$dir/h.ini"
bad_conf "h.ini.*too large"
printf '[warden]\ndefault_mode = read-only\0workspace-write\n' >"$dir/h.ini"
bad_conf "h.ini:2"
printf '[warden]\ndefault_mode = read-\377only\n' >"$dir/h.ini"
bad_conf "h.ini:2"
printf '[answerer \033[2Jx]\nplugin = good\n' >"$dir/h.ini"
chmod 644 "$dir/h.ini"
st=0; "$WARDEN" --config "$dir/h.ini" config check >"$dir/out" 2>"$dir/err" || st=$?
if grep -q "$(printf '\033')" "$dir/out" "$dir/err"; then
	fail "an escape sequence from the config reached the terminal raw"
fi
unchanged "hostile configs"

# --- workspace roots that would make the machine writable ----------------
# workspace-write refuses '/', the caller's home directory and every
# ancestor of it; read-only may read them; a project below home is fine.
mkdir -p "$dir/home/proj"
printf '[backend bwrap]\nplugin = %s/plugins/bwrap/.libs/bwrap.so\n' "$top_builddir" >"$dir/sbx.ini"
chmod 644 "$dir/sbx.ini"
export WARDEN_CONFIG="$dir/sbx.ini"
for root in / "$dir/home" "$dir"; do
	HOME="$dir/home" expect 64 "workspace root" "$WARDEN" confine --mode workspace-write --root "$root" -- /bin/true
done
HOME="$dir/home" "$WARDEN" confine --mode read-only --root "$dir/home" -- /bin/true >/dev/null ||
	fail "read-only refused a home directory root"
HOME="$dir/home" "$WARDEN" confine --mode workspace-write --root "$dir/home/proj" -- /bin/true >/dev/null ||
	fail "workspace-write refused a project below home"
unset WARDEN_CONFIG

# --- invalid UTF-8 in subjects and argv ----------------------------------
# The bytes reach the answerer and the command exactly; the log and the
# JSON output stay valid UTF-8 (each invalid byte shows as '?'), and the
# log still replays.  (A NUL cannot be passed: argv strings end at it.)
printf '[warden]\nstate_dir = %s/state/warden/sessions\n[answerer r]\nplugin = %s/plugins/rules/.libs/rules.so\nallow = bash:ls *\n[backend bwrap]\nplugin = %s/plugins/bwrap/.libs/bwrap.so\nlauncher = %s/plugins/bwrap/warden-bwrap-exec\n' \
	"$dir" "$top_builddir" "$top_builddir" "$top_builddir" >"$dir/u.ini"
chmod 644 "$dir/u.ini"
"$WARDEN" --config "$dir/u.ini" --session "$id" mode set workspace-write >/dev/null
bad=$(printf 'ls \377\376')
st=0; "$WARDEN" --config "$dir/u.ini" --session "$id" approve --tool bash --subject "$bad" --json >"$dir/out" 2>"$dir/err" || st=$?
[ "$st" -eq 0 ] || { cat "$dir/err" >&2; fail "approve with a non-UTF-8 subject: exit $st"; }
$PY -c 'import json,sys; json.load(open(sys.argv[1]))' "$dir/out" || fail "approve --json output is not valid JSON"
bad=$(printf 'x\377y')
st=0; "$WARDEN" --config "$dir/u.ini" --session "$id" run --json -- /bin/echo "$bad" >"$dir/out" 2>"$dir/err" || st=$?
[ "$st" -eq 0 ] || { cat "$dir/err" >&2; fail "run with a non-UTF-8 argument: exit $st"; }
[ "$(head -n 1 "$dir/out")" = "$bad" ] || fail "the command did not get its argument byte for byte"
tail -n 1 "$dir/out" | $PY -c 'import json,sys; json.loads(sys.stdin.read())' || fail "run --json output is not valid JSON"
"$WARDEN" session show "$id" --json >"$dir/out" || fail "the log does not replay after non-UTF-8 input"
$PY - "$dir/out" <<'PY' || fail "the audit and run events are not as expected"
import json, sys
ev = json.load(open(sys.argv[1]))["events"]
asked = [e for e in ev if e["type"] == "approval/asked"][-1]
run = [e for e in ev if e["type"] == "sandbox/run"][-1]
assert asked["subject"] == "ls ??", asked
assert run["argv"] == ["/bin/echo", "x?y"], run
PY

echo "ok: hostile input refused, nothing changed"

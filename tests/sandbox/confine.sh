#!/bin/sh
# confine.sh — `warden confine`: policy resolution (--mode, --session,
# config), the backend order of the config, exact argv in every output
# form, and one-line errors with their exit codes (danger-full-access,
# SANDBOX_UNAVAILABLE with each backend's reason, bad roots and options).
. "$top_srcdir/tests/sandbox/lib.sh"

# expect_error WHAT CODE TEXT ARGS...: exit CODE, one stderr line holding
# TEXT, nothing on stdout.
expect_error() {
	what=$1 code=$2 text=$3
	shift 3
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -ne "$code" ]; then
		fail "$what: exit $rc, want $code: $(cat "$T/err")"
	elif [ "$(wc -l <"$T/err")" -ne 1 ]; then
		fail "$what: want one stderr line: $(cat "$T/err")"
	elif ! grep -qF -- "$text" "$T/err"; then
		fail "$what: stderr lacks '$text': $(cat "$T/err")"
	elif [ -s "$T/out" ]; then
		fail "$what: printed an argv: $(cat "$T/out")"
	else
		ok "$what: $(cat "$T/err")"
	fi
}

echo "---- backend order and text output"
if w confine --root "$WS" -- echo hi >"$T/out"; then
	first=$(head -n 4 "$T/out" | tr '\n' ' ')
	tail3=$(tail -n 3 "$T/out" | tr '\n' ' ')
	# The network is restricted by default: the launcher starts bwrap,
	# and inside it answers for the command's connect() (--gate netns).
	tail7=$(tail -n 7 "$T/out" | tr '\n' ' ')
	if [ "$(head -n 2 "$T/out" | tr '\n' ' ')" = "$LAUNCHER /usr/bin/bwrap " ] &&
		[ "$tail7" = "-- $LAUNCHER --gate netns -- echo hi " ]; then
		ok "bwrap, the first section, confines through its launcher; the command ends the argv"
	else
		fail "text output: $(cat "$T/out")"
	fi
else
	fail "confine with the default backends failed"
fi
if w confine --backend landlock --root "$WS" -- echo hi >"$T/out" &&
	[ "$(head -n 1 "$T/out")" = "$RUNNER" ]; then
	ok "--backend landlock uses the runner"
else
	fail "--backend landlock: $(cat "$T/out")"
fi

echo "---- the network: --network, the argv, the facts"
for b in bwrap landlock; do
	for n in restricted enabled; do
		if w confine --backend "$b" --network "$n" --root "$WS" --json -- true >"$T/n.json"; then
			argv=$(json_get "$T/n.json" argv | tr '\n' ' ')
			case $b/$n in
			bwrap/restricted) want="$LAUNCHER /usr/bin/bwrap "
				has="--unshare-net" ;;
			bwrap/enabled) want="$LAUNCHER /usr/bin/bwrap " has= ;;
			landlock/*) want="$RUNNER " has="--network $n" ;;
			esac
			case $argv in
			"$want"*) ok "$b $n: the argv starts '$want'" ;;
			*) fail "$b $n: argv $argv" ;;
			esac
			if [ -n "$has" ]; then
				case $argv in
				*" $has "*) ok "$b $n: carries $has" ;;
				*) fail "$b $n: no $has in $argv" ;;
				esac
			elif [ "$b" = bwrap ]; then
				case $argv in
				*--unshare-net*|*--netguard*|*--gate*) fail "$b enabled: $argv" ;;
				*) ok "$b enabled: no network namespace, no guard" ;;
				esac
			fi
			[ "$(json_get "$T/n.json" network)" = "$n" ] &&
				[ "$(json_get "$T/n.json" network_source)" = explicit ] &&
				[ "$(json_get "$T/n.json" network_enforcement)" = full ] &&
				ok "$b $n: network facts" ||
				fail "$b $n: network facts $(cat "$T/n.json")"
		else
			fail "$b $n: confine failed: $(cat "$T/n.json")"
		fi
	done
done
w confine --root "$WS" --json -- true >"$T/n.json" &&
	[ "$(json_get "$T/n.json" network)" = restricted ] &&
	[ "$(json_get "$T/n.json" network_source)" = config ] &&
	ok "without --network: restricted, from the config's default" ||
	fail "default network: $(cat "$T/n.json")"
w confine --network open --root "$WS" -- true >"$T/out" 2>"$T/err"
[ $? -eq 64 ] && grep -q "restricted or enabled" "$T/err" && [ ! -s "$T/out" ] &&
	ok "--network open is a usage error" || fail "--network open: $(cat "$T/err")"

echo "---- exact argv: -0 and --json"
nl='
'
set -- "a b" "it's \"q\"" "two${nl}lines" "--rw" "-x" "" '$HOME' '*'
for b in bwrap landlock; do
	w confine --backend "$b" --root "$WS" -0 -- printf '%s|' "$@" >"$T/nul" ||
		fail "$b: confine -0 failed"
	got=$("$PY" -c 'import sys; print(repr(open(sys.argv[1],"rb").read().split(b"\0")[:-1][-10:]))' "$T/nul")
	want=$("$PY" -c 'import sys; print(repr([a.encode() for a in sys.argv[1:]]))' printf '%s|' "$@")
	if [ "$got" = "$want" ]; then
		ok "$b: -0 ends with the exact argv"
	else
		fail "$b: -0 argv: got $got want $want"
	fi
	w confine --backend "$b" --root "$WS" --json -- printf '%s|' "$@" >"$T/j" ||
		fail "$b: confine --json failed"
	got=$("$PY" -c 'import json,sys; print(repr([a.encode() for a in json.load(open(sys.argv[1]))["argv"][-10:]]))' "$T/j")
	if [ "$got" = "$want" ]; then
		ok "$b: --json ends with the exact argv"
	else
		fail "$b: --json argv: got $got want $want"
	fi
	# And the command really receives it.
	out=$("$PY" -c '
import json, os, sys
a = json.load(open(sys.argv[1]))["argv"]
os.execv(a[0], a)' "$T/j")
	if [ "$out" = "a b|it's \"q\"|two${nl}lines|--rw|-x||\$HOME|*|" ]; then
		ok "$b: the confined command prints its exact arguments"
	else
		fail "$b: the confined command printed: $out"
	fi
done

echo "---- --json facts"
for b in bwrap landlock; do
	for m in read-only workspace-write; do
		w confine --backend "$b" --mode "$m" --root "$WS" --status-fd 7 --json -- true >"$T/j" ||
			{ fail "$b $m: confine --json failed"; continue; }
		facts="$(json_get "$T/j" backend) $(json_get "$T/j" mode) $(json_get "$T/j" mode_source) $(json_get "$T/j" root_source) $(json_get "$T/j" privilege_dropped) $(json_get "$T/j" status_fd)"
		want="$b $m explicit explicit true 7"
		[ "$facts" = "$want" ] && ok "$b $m: $facts" || fail "$b $m: facts '$facts', want '$want'"
		enf=$(json_get "$T/j" enforcement)
		case $b/$m in
		landlock/workspace-write) want_enf=partial ;;
		*) want_enf=full ;;
		esac
		[ "$enf" = "$want_enf" ] && ok "$b $m: enforcement $enf" ||
			fail "$b $m: enforcement $enf, want $want_enf"
		case $b in
		bwrap) ev=bwrap-json-status sig="Read-only file system" ;;
		landlock) ev=exec-pipe sig="Permission denied" ;;
		esac
		[ "$(json_get "$T/j" evidence)" = "$ev" ] || fail "$b $m: evidence $(json_get "$T/j" evidence)"
		[ "$(json_get "$T/j" denial_signatures)" = "$sig" ] || fail "$b $m: denial signatures $(json_get "$T/j" denial_signatures)"
		"$PY" - "$T/j" <<'PY' || fail "$b $m: runner_failure_rules malformed"
import json, sys
r = json.load(open(sys.argv[1]))["runner_failure_rules"]
assert len(r) >= 1 and all(set(x) == {"exit_codes", "fatal_signatures", "informational_lines"} for x in r)
assert all(x["fatal_signatures"] for x in r)
PY
		roots=$(json_get "$T/j" writable_roots | tr '\n' ' ')
		case $b/$m in
		*/read-only) want_roots="" ;;
		# No session, no temp area: the root alone.
		*/workspace-write) want_roots="$WS " ;;
		esac
		[ "$roots" = "$want_roots" ] && ok "$b $m: writable roots '$roots'" ||
			fail "$b $m: writable roots '$roots', want '$want_roots'"
	done
done

echo "---- policy resolution"
# From inside the workspace: the build directory holds the runners, and a
# root that contains its own runner is refused.
(cd "$WS" && w confine --json -- true) >"$T/j" || fail "confine with config defaults failed"
[ "$(json_get "$T/j" mode) $(json_get "$T/j" mode_source)" = "read-only config" ] ||
	fail "config default mode: $(json_get "$T/j" mode) $(json_get "$T/j" mode_source)"
[ "$(json_get "$T/j" root_source)" = cwd ] || fail "root source without session: $(json_get "$T/j" root_source)"
mkdir "$T/sess-cwd"
id=$(w session new --cwd "$T/sess-cwd" | tail -n 1)
w --session "$id" mode set workspace-write >/dev/null || fail "mode set failed"
w --session "$id" confine --json -- true >"$T/j" || fail "confine --session failed"
got="$(json_get "$T/j" mode) $(json_get "$T/j" mode_source) $(json_get "$T/j" root) $(json_get "$T/j" root_source) $(json_get "$T/j" session)"
want="workspace-write session $T/sess-cwd session $id"
[ "$got" = "$want" ] && ok "--session: $got" || fail "--session: '$got', want '$want'"
WARDEN_SESSION=$id w confine --json -- true >"$T/j" || fail "confine \$WARDEN_SESSION failed"
[ "$(json_get "$T/j" mode_source)" = session ] && ok "\$WARDEN_SESSION resolves the session" ||
	fail "\$WARDEN_SESSION: $(json_get "$T/j" mode_source)"
w --session "$id" confine --mode read-only --json -- true >"$T/j" || fail "confine --mode over a session failed"
[ "$(json_get "$T/j" mode) $(json_get "$T/j" mode_source)" = "read-only explicit" ] &&
	ok "--mode outranks the session" || fail "--mode over session: $(json_get "$T/j" mode)"
w --session "$id" mode set danger-full-access >/dev/null || fail "mode set danger-full-access failed"
expect_error "session in danger-full-access" 77 "danger-full-access (from the session)" \
	w --session "$id" confine -- true
expect_error "unknown session" 64 "no session 0123456789abcdef" w --session 0123456789abcdef confine -- true

echo "---- errors"
expect_error "--mode danger-full-access" 64 "never confined" w confine --mode danger-full-access --root "$WS" -- true
expect_error "--mode bogus" 64 "use read-only or workspace-write" w confine --mode bogus -- true
expect_error "no --" 64 "give the command after '--'" w confine true
expect_error "nothing after --" 64 "give the command after '--'" w confine --
expect_error "empty program" 64 "empty" w confine -- ''
expect_error "relative --root" 64 "is relative" w confine --root ws -- true
expect_error "missing --root" 64 "--root" w confine --root "$T/nope" -- true
expect_error "workspace-write on /" 64 "is '/'" w confine --mode workspace-write --root / -- true
expect_error "unknown backend" 64 "no backend named 'nope'" w confine --backend nope --root "$WS" -- true
expect_error "--status-fd 2" 64 "--status-fd" w confine --status-fd 2 --root "$WS" -- true
expect_error "--status-fd x" 64 "--status-fd" w confine --status-fd x --root "$WS" -- true
expect_error "--json with -0" 64 "exclude" w confine --json -0 --root "$WS" -- true

cat >"$T/broken.ini" <<INI
[warden]
plugin_dir = $top_builddir/plugins/bwrap/.libs
[backend bwrap]
plugin = bwrap
path = $T/no-bwrap
[backend landlock]
plugin = $top_builddir/plugins/landlock/.libs/landlock.so
runner = $T/no-runner
[backend gone]
plugin = no_such_plugin
INI
chmod 644 "$T/broken.ini"
for m in read-only workspace-write; do
	"$WARDEN" --config "$T/broken.ini" confine --mode $m --root "$WS" -- true >"$T/out" 2>"$T/err"
	rc=$?
	msg=$(cat "$T/err")
	case $rc/$msg in
	"69/warden: SANDBOX_UNAVAILABLE: no backend can enforce $m (bwrap: $T/no-bwrap: No such file or directory"*"; landlock: "*"no-runner"*"; gone: missing: "*)
		ok "$m: SANDBOX_UNAVAILABLE names each backend's reason" ;;
	*) fail "$m: want exit 69 SANDBOX_UNAVAILABLE with every reason: $rc $msg" ;;
	esac
	[ -s "$T/out" ] && fail "$m: an argv was printed without a backend"
done
printf '[warden]\n' >"$T/none.ini"
chmod 644 "$T/none.ini"
expect_error "no backend configured" 69 "no sandbox backend is configured" \
	"$WARDEN" --config "$T/none.ini" confine --root "$WS" -- true

echo "---- bwrap without its launcher: partial, and says why"
sed '/^launcher = /d' "$CONF" >"$T/nolauncher.ini"
chmod 644 "$T/nolauncher.ini"
"$WARDEN" --config "$T/nolauncher.ini" confine --backend bwrap --root "$WS" --json -- true >"$T/j" ||
	fail "confine without a launcher failed"
case $(json_get "$T/j" enforcement)/$(json_get "$T/j" detail)/$(head -c 20 "$T/j") in
"partial/no launcher: LD_PRELOAD and kin in the spawner's environment run code in bwrap/"*)
	[ "$(json_get "$T/j" argv | head -n 1)" = /usr/bin/bwrap ] &&
		ok "no launcher: bwrap runs directly, reported partial" ||
		fail "no launcher: argv starts with $(json_get "$T/j" argv | head -n 1)" ;;
*) fail "no launcher: $(json_get "$T/j" enforcement): $(json_get "$T/j" detail)" ;;
esac
sed "s|^launcher = .*|launcher = $T/no-launcher|" "$CONF" >"$T/badlauncher.ini"
chmod 644 "$T/badlauncher.ini"
expect_error "a configured launcher that is missing" 69 "bwrap: launcher $T/no-launcher: No such file or directory" \
	"$WARDEN" --config "$T/badlauncher.ini" confine --backend bwrap --root "$WS" -- true

echo "---- warden plugins: privilege per backend and mode"
w plugins >"$T/out" || fail "warden plugins failed"
for line in "    read-only: full, privilege dropped; all capabilities dropped, user namespaces disabled inside" \
	"    workspace-write: full, privilege dropped; all capabilities dropped, user namespaces disabled inside"; do
	grep -qxF -- "$line" "$T/out" && ok "plugins: '$line'" || fail "plugins lacks '$line': $(cat "$T/out")"
done
w plugins --json >"$T/j" || fail "warden plugins --json failed"
"$PY" - "$T/j" <<'PY' && ok "plugins --json: probes per mode with privilege_dropped" || fail "plugins --json probes: $(cat "$T/j")"
import json, sys
p = {x["instance"]: x for x in json.load(open(sys.argv[1]))["plugins"]}
for b in ("bwrap", "landlock"):
    for m in ("read-only", "workspace-write"):
        pr = p[b]["probes"][m]
        assert pr["usable"] is True and pr["privilege_dropped"] is True, (b, m, pr)
assert p["landlock"]["probes"]["workspace-write"]["enforcement"] == "partial"
assert p["landlock"]["probes"]["read-only"]["enforcement"] == "full"
assert p["bwrap"]["probes"]["workspace-write"]["enforcement"] == "full"
PY
"$WARDEN" --config "$T/broken.ini" plugins --json >"$T/j" || fail "plugins on the broken config failed"
"$PY" - "$T/j" <<'PY' && ok "plugins --json: an unusable backend says why per mode" || fail "broken plugins --json: $(cat "$T/j")"
import json, sys
p = {x["instance"]: x for x in json.load(open(sys.argv[1]))["plugins"]}
for m in ("read-only", "workspace-write"):
    pr = p["bwrap"]["probes"][m]
    assert pr["usable"] is False and pr["privilege_dropped"] is False and "no-bwrap" in pr["detail"], pr
assert p["gone"]["probes"] is None
PY

finish

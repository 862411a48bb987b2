#!/bin/sh
# denyread.sh — secrets kept unread, through a real `warden run` with
# bwrap and with Landlock, both confining modes, as root and as a
# throwaway unprivileged user: the default list (~/.ssh, ~/.netrc, ...,
# the state directory) and a glob under the root (**/.env) are refused
# (a real refusal, never an empty answer), the run is `denied` with the
# path and the pattern named; the secrets are unchanged on the host
# afterwards, and nothing of them reached a file the command could
# write.  Landlock cannot hide a path under a readable tree: it says
# `partial` and names what stays readable.  `warden config check` lists
# what the list matches today; a bad pattern is an error naming it.
. "$top_srcdir/tests/run/lib.sh"

H=$T/home
mkdir -p "$H/.ssh" "$H/.aws" "$H/.config/gh" "$H/.config/ok" "$T/ws/sub"
chmod 755 "$H"
echo "ssh-secret" >"$H/.ssh/id_test"
echo "aws-secret" >"$H/.aws/credentials"
echo "machine x password netrc-secret" >"$H/.netrc"
echo "gh-secret" >"$H/.config/gh/hosts.yml"
echo "not a secret" >"$H/.config/ok/file"
echo "TOKEN=env-secret" >"$T/ws/.env"
echo "TOKEN=sub-secret" >"$T/ws/sub/.env"
echo "readable" >"$T/ws/notes"
sums() { cat "$H/.ssh/id_test" "$H/.aws/credentials" "$H/.netrc" "$H/.config/gh/hosts.yml" "$T/ws/.env" "$T/ws/sub/.env" | cksum; }
before=$(sums)

EXTRA='deny_read = **/.env'
export HOME="$H"

for b in bwrap landlock; do
	for mode in read-only workspace-write; do
		c=dr-$b-$mode
		config "$c" "$mode" "$b"
		who="$b $mode"

		wr "$c" run --json -c 'cat notes ~/.config/ok/file'
		expect "$who: what is not listed is read" 0 class=ok &&
			{ [ "$(head -n 2 "$T/out")" = "readable
not a secret" ] && ok "$who: the root and the rest of home are read" ||
			fail "$who: output $(head -n 2 "$T/out")"; }

		if [ $b = landlock ]; then
			# Landlock: partial, and the detail names the list.
			wr "$c" run --json -c 'true'
			case $(field enforcement)/$(field detail) in
			partial/*"deny_read is not held: "*) ok "$who: partial, naming deny_read" ;;
			*) fail "$who: enforcement $(field enforcement), detail $(field detail)" ;;
			esac
			continue
		fi
		[ "$(field enforcement)" = full ] && ok "$who: the confinement stays full" ||
			fail "$who: enforcement $(field enforcement), detail $(field detail)"

		for f in "$H/.ssh/id_test" "$H/.aws/credentials" "$H/.netrc" \
			"$H/.config/gh/hosts.yml" "$T/ws/.env" "$T/ws/sub/.env"; do
			wr "$c" run --json -c "cat '$f'"
			expect "$who: reading $f" 1 class=denied denied_path="$f" \
				escalate_to=danger-full-access || continue
			grep -q secret "$T/out" && fail "$who: $f was read: $(cat "$T/out")"
			case $(field denial) in
			*"deny_read = "*"$T/$c.ini"*) ok "$who: $f refused, the pattern and config named" ;;
			*) fail "$who: denial $(field denial)" ;;
			esac
		done

		# A directory: listing it is refused too, and so is a copy.
		wr "$c" run --json -c "ls '$H/.ssh'"
		expect "$who: listing ~/.ssh" 2 class=denied denied_path="$H/.ssh"
		wr "$c" run -c "cp '$T/ws/.env' '$T/ws/copy' 2>/dev/null; cat '$H/.ssh/id_test' >'$T/ws/leak' 2>/dev/null; true"
		if [ -s "$T/ws/copy" ] || grep -q secret "$T/ws/leak" 2>/dev/null; then
			fail "$who: a secret reached the workspace"
		else
			ok "$who: nothing of a secret reached the workspace"
		fi
		rm -f "$T/ws/copy" "$T/ws/leak"

		# The state directory: every session's log.
		id=$("$WARDEN" --config "$T/$c.ini" session new --cwd "$T/ws" | tail -n 1)
		wr "$c" run --json -c "cat '$T/state/$id.jsonl'"
		expect "$who: reading a session's log" 1 class=denied denied_path="$T/state/$id.jsonl"

		if [ $mode = workspace-write ]; then
			# Replacing the hidden file is refused: the mount point
			# can be neither removed nor renamed.
			wr "$c" run --json -c 'rm -f .env; mv sub/.env sub/x; echo new >.env'
			[ "$rc" != 0 ] && ok "$who: .env can be neither removed nor replaced (exit $rc)" ||
				fail "$who: rm/mv of .env exited 0"
		fi
		[ "$(sums)" = "$before" ] && ok "$who: every secret unchanged on the host" ||
			fail "$who: a secret changed on the host"
	done
done

# A working directory inside a hidden path: refused before anything runs.
config cwd workspace-write bwrap
wr cwd run --json --cwd "$H/.aws" -c 'touch ran'
[ "$rc" != 0 ] && [ ! -e "$H/.aws/ran" ] && grep -q "deny_read" "$T/err" &&
	ok "a working directory in ~/.aws is refused, naming deny_read" ||
	fail "cwd in ~/.aws: exit $rc, $(cat "$T/err")"

# deny_read_defaults = false: only the config's own list.
EXTRA='deny_read_defaults = false
deny_read = ~/.netrc'
config nodef workspace-write bwrap
wr nodef run --json -c "cat '$H/.ssh/id_test'"
expect "deny_read_defaults = false: ~/.ssh is read" 0 class=ok
wr nodef run --json -c "cat '$H/.netrc'"
expect "deny_read_defaults = false: ~/.netrc, listed, stays unread" 1 class=denied

# config check lists what the list matches today.
EXTRA='deny_read = **/.env'
config chk workspace-write bwrap
wr chk config check --json
"$PY" - "$T/out" "$H" "$T" <<'PY' && ok "config check --json lists the matches" || fail "config check: $(cat "$T/out")"
import json, sys
o = json.load(open(sys.argv[1]))
d = o["deny_read"]
m = {e["pattern"]: e["matches"] for e in d}
H, T = sys.argv[2], sys.argv[3]
assert m["~/.ssh"] == [H + "/.ssh"], m
assert m["~/.kube"] == [], m
assert sorted(m["**/.env"]) == sorted([T + "/ws/.env", T + "/ws/sub/.env"]), m
PY
wr chk config check
grep -q "deny_read = \*\*/.env: $T/ws/.env" "$T/out" &&
	ok "config check names each match" || fail "config check text: $(cat "$T/out")"


# warden plugins says what each backend holds of the list: bwrap hides it,
# Landlock cannot, so its probe is partial while the list has patterns
# and full in read-only once the list is empty.
EXTRA='deny_read = **/.env'
config plg read-only bwrap landlock
wr plg plugins --json
"$PY" - "$T/out" <<'PY' && ok "plugins: bwrap holds deny_read, Landlock is partial and says why" || fail "plugins: $(cat "$T/out")"
import json, sys
o = {p["instance"]: p for p in json.load(open(sys.argv[1]))["plugins"]}
for m in ("read-only", "workspace-write"):
    b, l = o["bwrap"]["probes"][m], o["landlock"]["probes"][m]
    assert b["deny_read_held"] is True and b["enforcement"] == "full", b
    assert l["deny_read_held"] is False and l["enforcement"] == "partial", l
    assert l["detail"].startswith("deny_read is not held"), l
PY
EXTRA='deny_read_defaults = false'
config plg0 read-only landlock
wr plg0 plugins --json
"$PY" - "$T/out" <<'PY' && ok "plugins: with no deny_read list, Landlock read-only is full again" || fail "plugins: $(cat "$T/out")"
import json, sys
l = json.load(open(sys.argv[1]))["plugins"][0]["probes"]["read-only"]
assert l["enforcement"] == "full" and "deny_read" not in (l["detail"] or ""), l
PY
# Bad patterns: an error naming the line, and nothing runs.
for bad in '~' '../x' 'a//b' '**x/y' '~other/x' '/'; do
	EXTRA="deny_read = $bad"
	config bad workspace-write bwrap
	wr bad run -c 'touch ran'
	[ "$rc" = 78 ] && [ ! -e "$T/ws/ran" ] && grep -q "deny_read = " "$T/err" &&
		ok "deny_read = $bad is refused: $(head -c 120 "$T/err")" ||
		fail "deny_read = $bad: exit $rc, $(cat "$T/err")"
done

# As an unprivileged user: the same refusal of their own secrets.
far=$(unreachable_by_others)
if ! command -v useradd >/dev/null 2>&1; then
	echo "SKIP-REASON: useradd is missing: the unprivileged checks cannot run"
	fail "no useradd"
elif [ -n "$far" ]; then
	echo "note: SKIP (unprivileged part): other users cannot search $far, above the build tree; tests/unpriv.sh runs warden as a user from a copy"
else
	U=wdr$TAG
	UH=$T/uhome
	userdel "$U" >/dev/null 2>&1
	useradd -M -d "$UH" -s /bin/sh "$U" || fail "useradd $U"
	trap 'userdel "$U" >/dev/null 2>&1; rm -rf "$T"' EXIT
	mkdir -p "$UH/.ssh" "$T/uws" "$T/ustate"
	echo "user-ssh-secret" >"$UH/.ssh/id_user"
	echo "user notes" >"$T/uws/notes"
	chown -R "$U:$U" "$UH" "$T/uws" "$T/ustate"
	chmod 700 "$T/ustate"
	chmod 755 "$T" "$top_builddir/tests/run"
	EXTRA=
	printf '[warden]\ndefault_mode = workspace-write\nstate_dir = %s\nworkspace_root = %s\n[backend bwrap]\nplugin = %s\nlauncher = %s\n' \
		"$T/ustate" "$T/uws" "$BWRAP_SO" "$top_builddir/plugins/bwrap/warden-bwrap-exec" >"$T/u.ini"
	chmod 644 "$T/u.ini"
	uid=$(id -u "$U")
	(cd "$T/uws" && setpriv --reuid="$uid" --regid="$uid" --clear-groups \
		env HOME="$UH" "$WARDEN" --config "$T/u.ini" run --json -c "cat notes; cat '$UH/.ssh/id_user'") \
		>"$T/out" 2>"$T/err" </dev/null
	rc=$?
	expect "as $U: reading its own ~/.ssh" 1 class=denied denied_path="$UH/.ssh/id_user" &&
		{ grep -q "user notes" "$T/out" && ! grep -q user-ssh-secret "$T/out" &&
		ok "as $U: notes read, the key refused" || fail "as $U: $(cat "$T/out")"; }
	[ "$(cat "$UH/.ssh/id_user")" = user-ssh-secret ] && ok "as $U: the key unchanged" ||
		fail "as $U: the key changed"
	rm -rf "/tmp/warden-$uid"
	userdel "$U" >/dev/null 2>&1
fi

finish

#!/bin/sh
# approvedenv.sh — an approved command reads no configuration the
# sandboxed command could have planted.  A confined run writes, inside the
# workspace root, a home and an XDG configuration directory full of traps
# (a ~/.gitconfig with core.fsmonitor, an alias and a hook path, a
# git/config, an .npmrc with a script-shell, a Python user site with a
# .pth file, a pip.conf, an ~/.ssh/config with Match exec); then each real
# program is escalated to danger-full-access with HOME or XDG_CONFIG_HOME
# pointing there, and approved.  Each case asserts that the planted program
# never ran (a marker outside the root) and what the answerer (an exec
# answerer recording its request) was shown: the names removed
# (env_removed) and where configuration is read from (env_config), HOME
# being the user's own from /etc/passwd.
. "$top_srcdir/tests/run/lib.sh"

EXEC_SO=$top_builddir/plugins/exec/.libs/exec.so
[ -e "$EXEC_SO" ] || { echo "FAIL: $EXEC_SO was not built"; exit 1; }
for p in git npm ssh; do
	command -v $p >/dev/null 2>&1 ||
		{ echo "FAIL: $p is not installed (the cases run the real $p)"; exit 1; }
done
"$PY" -m pip --version >/dev/null 2>&1 ||
	{ echo "FAIL: $PY has no pip (apt-get install python3-pip)"; exit 1; }
WS=$(cd "$T/ws" && pwd -P)
OUT=$(cd "$T/outside" && pwd -P)
HOME_PW=$(awk -F: -v u="$(id -u)" '$3 == u { print $6; exit }' /etc/passwd)
[ -n "$HOME_PW" ] || { echo "FAIL: no /etc/passwd entry for uid $(id -u)"; exit 1; }
PYVER=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')

cat >"$T/answer" <<EOF
#!/bin/sh
cat >"$T/seen"
echo allowed-once
EOF
chmod 755 "$T/answer"

seen() {
	"$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print(json.dumps(v) if isinstance(v, (list, dict, bool)) or v is None else v)' "$T/seen" "$1" 2>&1
}

seen_is() {
	got=$(seen "$2")
	[ "$got" = "$3" ] && ok "$1: $2 = $3" || fail "$1: $2 is '$got', want '$3'"
}

absent() {
	[ ! -e "$2" ] && ok "$1" || { fail "$1: $2 exists"; rm -f "$2"; }
}

# esc CONFIG 'NAME=VALUE ...' COMMAND: escalates sh -c COMMAND to
# danger-full-access from the root with these variables set.
esc() {
	rm -f "$T/seen"
	# shellcheck disable=SC2086
	(cd "$T/ws" && exec env $2 "$WARDEN" --config "$T/$1.ini" run --json \
		--escalate danger-full-access --justification x -c "$3") \
		>"$T/out" 2>"$T/err" </dev/null
	rc=$?
}

for iso in inproc process; do
	config "rec-$iso" workspace-write bwrap "[answerer rec]
plugin = $EXEC_SO
isolation = $iso
command = $T/answer"
done
WARDEN_SESSION=$("$WARDEN" --config "$T/rec-process.ini" session new --cwd "$T/ws" | tail -n 1)
export WARDEN_SESSION
[ -n "$WARDEN_SESSION" ] || { echo "FAIL: session new"; exit 1; }

git init -q "$T/ws/repo"
mkdir -p "$T/ws/pkg"
echo '{"name":"p","version":"1.0.0","scripts":{"x":"true"}}' >"$T/ws/pkg/package.json"

echo "---- a confined run plants the traps in the root"
wr rec-process run -- sh -c "
set -e
mkdir -p h/.ssh h/.local/lib/python$PYVER/site-packages x/git x/pip hooks
printf '#!/bin/sh\necho \"\$0 \$*\" >>$OUT/ran-\$1\nexit 1\n' >evil; chmod 755 evil
printf '[core]\n\tfsmonitor = \"$WS/evil fsmonitor\"\n\thooksPath = $WS/hooks\n[alias]\n\tst = !$WS/evil alias\n' >h/.gitconfig
printf '[core]\n\tfsmonitor = \"$WS/evil xdg\"\n' >x/git/config
printf '#!/bin/sh\nexec $WS/evil hook\n' >hooks/pre-commit; chmod 755 hooks/pre-commit
printf 'script-shell=$WS/evil\n' >h/.npmrc
printf 'import os; os.system(\"$WS/evil pth\")\n' >h/.local/lib/python$PYVER/site-packages/evil.pth
printf '[global]\nindex-url = http://planted.invalid/simple\n' >x/pip/pip.conf
cp x/pip/pip.conf h/pip.conf
printf 'Match exec \"$WS/evil ssh\"\n  User planted\n' >h/.ssh/config
"
expect "the confined run wrote the traps" 0 || { cat "$T/err"; finish; }

echo "---- the premises: each trap runs when a program reads it"
(cd "$T/ws/repo" && HOME=$WS/h git status >/dev/null 2>&1)
[ -e "$OUT/ran-fsmonitor" ] && ok "premise: HOME's core.fsmonitor runs" || fail "premise: HOME's core.fsmonitor did not run"
(cd "$T/ws/repo" && XDG_CONFIG_HOME=$WS/x git status >/dev/null 2>&1)
[ -e "$OUT/ran-xdg" ] && ok "premise: XDG_CONFIG_HOME's git/config runs" || fail "premise: git/config did not run"
(cd "$T/ws/repo" && HOME=$WS/h git st >/dev/null 2>&1)
[ -e "$OUT/ran-alias" ] && ok "premise: the alias runs" || fail "premise: the alias did not run"
(cd "$T/ws/repo" && HOME=$WS/h git -c user.name=a -c user.email=a@b commit -q --allow-empty -m x >/dev/null 2>&1)
[ -e "$OUT/ran-hook" ] && ok "premise: the hook path runs" || fail "premise: the hook did not run"
(cd "$T/ws/pkg" && HOME=$WS/h npm run x >/dev/null 2>&1)
# npm runs its script-shell as SHELL -c SCRIPT: the trap writes ran--c.
[ -e "$OUT/ran--c" ] &&
	ok "premise: ~/.npmrc's script-shell runs" || fail "premise: npm did not run the script-shell"
HOME=$WS/h "$PY" -c pass
[ -e "$OUT/ran-pth" ] && ok "premise: the user site's .pth runs" || fail "premise: the .pth did not run"
XDG_CONFIG_HOME=$WS/x "$PY" -m pip config list 2>/dev/null | grep -q planted &&
	ok "premise: pip reads XDG_CONFIG_HOME/pip/pip.conf" || fail "premise: pip did not read the planted pip.conf"
ssh -F "$WS/h/.ssh/config" -G example.invalid >/dev/null 2>&1 </dev/null
[ -e "$OUT/ran-ssh" ] && ok "premise: the ssh config's Match exec runs when read" || fail "premise: Match exec did not run"
rm -f "$OUT"/*

for iso in inproc process; do
	c=rec-$iso
	echo "==== answerer isolation = $iso"

	echo "---- git: HOME's core.fsmonitor, alias and hook path"
	esc $c "HOME=$WS/h" "cd '$WS/repo' && git status >/dev/null 2>&1; git st >/dev/null 2>&1; git -c user.name=a -c user.email=a@b commit -q --allow-empty -m y >/dev/null 2>&1; echo \"\$HOME\" >'$OUT/home'"
	expect "$iso: git under a planted HOME: it ran" 0 class=ok mode=danger-full-access
	[ "$(cat "$OUT/home" 2>/dev/null)" = "$HOME_PW" ] && ok "$iso: HOME was the user's own ($HOME_PW)" ||
		fail "$iso: HOME was '$(cat "$OUT/home" 2>/dev/null)', want $HOME_PW"
	absent "$iso: the planted core.fsmonitor did not run" "$OUT/ran-fsmonitor"
	absent "$iso: the planted alias did not run" "$OUT/ran-alias"
	absent "$iso: the planted hook did not run" "$OUT/ran-hook"
	seen_is "$iso HOME" '"HOME" in r["env_removed"]' true
	seen_is "$iso HOME" 'r["env_config"][0]' "HOME=$HOME_PW"
	[ "$(field escalation | grep -c env_config)" != 0 ] && ok "$iso: the report has env_config" ||
		fail "$iso: the --json report has no env_config"
	rm -f "$OUT"/*
done

c=rec-process
echo "---- git: XDG_CONFIG_HOME's git/config"
esc $c "XDG_CONFIG_HOME=$WS/x" "cd '$WS/repo' && git status >/dev/null 2>&1; echo \"\${XDG_CONFIG_HOME-unset}\" >'$OUT/xdg'"
expect "XDG_CONFIG_HOME: it ran" 0 class=ok
[ "$(cat "$OUT/xdg" 2>/dev/null)" = unset ] && ok "XDG_CONFIG_HOME was removed" ||
	fail "XDG_CONFIG_HOME was '$(cat "$OUT/xdg" 2>/dev/null)'"
absent "XDG_CONFIG_HOME: the planted git/config did not run" "$OUT/ran-xdg"
seen_is "XDG_CONFIG_HOME" '"XDG_CONFIG_HOME" in r["env_removed"]' true
seen_is "XDG_CONFIG_HOME" '[e for e in r["env_config"] if e.startswith("XDG_")]' '[]'

echo "---- npm: ~/.npmrc's script-shell"
esc $c "HOME=$WS/h" "cd '$WS/pkg' && npm run x >/dev/null 2>&1; echo ran >'$OUT/npm'"
expect "npm under a planted HOME: it ran" 0 class=ok
[ -e "$OUT/npm" ] && ok "npm: the command ran" || fail "npm: the command did not run"
absent "npm: the planted script-shell did not run" "$OUT/ran--c"
seen_is "npm" '"HOME" in r["env_removed"]' true

echo "---- python and pip: the user site's .pth, pip.conf"
esc $c "HOME=$WS/h XDG_CONFIG_HOME=$WS/x PIP_CONFIG_FILE=$WS/h/pip.conf" "'$PY' -c pass; '$PY' -m pip config list >'$OUT/pip' 2>&1; echo ran >'$OUT/py'"
expect "python under a planted HOME: it ran" 0 class=ok
[ -e "$OUT/py" ] && ok "python: the command ran" || fail "python: the command did not run"
absent "python: the planted .pth did not run" "$OUT/ran-pth"
grep -q planted "$OUT/pip" && fail "pip read the planted pip.conf: $(cat "$OUT/pip")" ||
	ok "pip read no planted pip.conf"
seen_is "pip" 'sorted(n for n in r["env_removed"] if n in ("HOME", "XDG_CONFIG_HOME", "PIP_CONFIG_FILE"))' \
	'["HOME", "PIP_CONFIG_FILE", "XDG_CONFIG_HOME"]'

echo "---- ssh: ~/.ssh/config's Match exec"
# ssh reads ~/.ssh/config from the password database's home, not HOME:
# this holds with or without warden, and is kept true here.
esc $c "HOME=$WS/h" "ssh -G example.invalid >'$OUT/ssh' 2>&1 </dev/null; echo ran >'$OUT/sshran'"
expect "ssh under a planted HOME: it ran" 0 class=ok
[ -e "$OUT/sshran" ] && ok "ssh: the command ran" || fail "ssh: the command did not run"
absent "ssh: the planted Match exec did not run" "$OUT/ran-ssh"
grep -q '^user planted' "$OUT/ssh" && fail "ssh read the planted config" || ok "ssh read no planted config"

echo "---- a location outside every writable root is kept, and shown"
mkdir -p "$OUT/cfg"
esc $c "XDG_CONFIG_HOME=$OUT/cfg CARGO_HOME=relative/cargo" "echo \"\$XDG_CONFIG_HOME \${CARGO_HOME-unset}\" >'$OUT/kept'"
expect "a kept location: it ran" 0 class=ok
[ "$(cat "$OUT/kept" 2>/dev/null)" = "$OUT/cfg unset" ] && ok "XDG_CONFIG_HOME outside kept, a relative CARGO_HOME removed" ||
	fail "the command saw '$(cat "$OUT/kept" 2>/dev/null)'"
seen_is "kept" '[e for e in r["env_config"] if e.startswith("XDG_")]' "[\"XDG_CONFIG_HOME=$OUT/cfg\"]"
seen_is "kept" '"CARGO_HOME" in r["env_removed"]' true

echo "---- the temp areas are writable roots too"
TMPAREA=$(cd /tmp && pwd -P)/warden-$(id -u)
esc $c "XDG_DATA_DIRS=/usr/share:$TMPAREA/x PATH=$TMPAREA/bin:$PATH" "true"
expect "a temp-area location: it ran" 0 class=ok
seen_is "temp area" '"XDG_DATA_DIRS" in r["env_removed"]' true
seen_is "temp area" '"'"$TMPAREA"'/bin" in r["path_dropped"]' true

echo "---- a confined run is untouched: HOME is the caller's"
# (A HOME inside the root is refused for workspace-write altogether.)
(cd "$T/ws" && HOME=$OUT/cfg "$WARDEN" --config "$T/$c.ini" run -- sh -c 'echo "$HOME"') >"$T/out" 2>"$T/err" </dev/null
[ "$(cat "$T/out")" = "$OUT/cfg" ] && ok "confined: HOME as given" || fail "confined: HOME is '$(cat "$T/out")' ($(cat "$T/err"))"

finish

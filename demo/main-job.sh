#!/bin/sh
# main-job.sh BUILD — the main job on the built-in default config.
#
# BUILD is a configured build tree (./quickstart configures it with its
# prefix inside _build/).  The built-in default names installed paths
# (plugin_dir, the Landlock runner), so the build is installed into its
# prefix first; the installed copy of warden.ini is the same text as the
# built-in default and is removed, so that nothing but the compiled-in
# default is read.  Then, as an agent harness would: a session in a fresh
# workspace, a write inside it that works, a write outside it that the
# sandbox denies (classified, shown as --json), and an escalation that
# nobody grants (no terminal, no answerer: nothing runs).
set -eu
build=$(cd "$1" && pwd)
prefix=$(sed -n 's/^prefix = //p' "$build/Makefile")
[ -n "$prefix" ] || { echo "main-job: no prefix in $build/Makefile" >&2; exit 1; }

make -s -C "$build" install >"$build/demo-install.log" 2>&1 ||
	{ tail -20 "$build/demo-install.log" >&2; exit 1; }
rm -f "$prefix/etc/warden/warden.ini"
W=$prefix/bin/warden

unset WARDEN_CONFIG WARDEN_SESSION
# No user config, and session logs inside the demo's own directory.  Not
# under /tmp: bwrap gives the command a private /tmp, so the "outside"
# file must live elsewhere to be visible (and refused) inside.
demo=$(mktemp -d "$build/demo.XXXXXX")
chmod 755 "$demo"
export XDG_CONFIG_HOME="$demo/config"
export XDG_STATE_HOME="$demo/state"
ws=$demo/workspace
outside=$demo/outside.txt
# A checkout under /tmp puts $demo there too: the outside file then goes
# to /var/tmp, which the command sees as it is.
case $demo/ in
/tmp/*)
	odir=$(mktemp -d /var/tmp/warden-demo.XXXXXX)
	trap 'rm -rf "$odir"' EXIT
	outside=$odir/outside.txt ;;
esac
mkdir "$ws"
echo "the original" >"$outside"

step() { printf '\n== %s\n' "$*"; }
die() { echo "main-job: FAILED: $*" >&2; exit 1; }

step "warden --version"
"$W" --version

step "warden config check   (no file anywhere: the built-in default)"
"$W" config check

step "warden plugins"
"$W" plugins

step "warden session new --cwd $ws"
id=$("$W" session new --cwd "$ws" | tail -n 1)
echo "$id"
export WARDEN_SESSION="$id"
"$W" session state

cd "$ws"
step "warden run -c 'echo hello >hello.txt && cat hello.txt'   (a write inside the workspace)"
rc=0
"$W" run -c 'echo hello >hello.txt && cat hello.txt' || rc=$?
[ "$rc" -eq 0 ] || die "the write inside the workspace exited $rc"
[ "$(cat "$ws/hello.txt")" = hello ] || die "hello.txt was not written"
echo "exit $rc; $ws/hello.txt: $(cat "$ws/hello.txt")"

step "warden run --json -c 'echo changed >$outside'   (a write outside)"
rc=0
"$W" run --json -c "echo changed >'$outside'" >"$demo/out.json" || rc=$?
cat "$demo/out.json"
class=$(tail -n 1 "$demo/out.json" | sed -n 's/.*"class":"\([a-z-]*\)".*/\1/p')
[ "$class" = denied ] || die "the write outside was classified '$class', not denied"
[ "$rc" -ne 0 ] || die "the denied run exited 0"
[ "$(cat "$outside")" = "the original" ] || die "the outside file changed"
echo "exit $rc; class $class; $outside still says: $(cat "$outside")"

step "warden run --escalate danger-full-access --justification ... -c 'echo escalated >$outside'"
rc=0
"$W" run --escalate danger-full-access \
	--justification "the demo wants to write outside the workspace" \
	-c "echo escalated >'$outside'" </dev/null || rc=$?
[ "$rc" -eq 77 ] || die "the escalation exited $rc, not 77 (refused)"
[ "$(cat "$outside")" = "the original" ] || die "the refused escalation ran the command"
echo "exit $rc (refused); $outside still says: $(cat "$outside")"

step "warden session show $id"
"$W" session show "$id"

printf '\nmain job: ok (session log: %s/warden/sessions/%s.jsonl)\n' "$XDG_STATE_HOME" "$id"

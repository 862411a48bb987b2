#!/bin/sh
# process.sh — the process side of `warden run`: --timeout and forwarded
# signals kill the command's whole group and leave nothing behind, the
# command gets only descriptors 0-2 and a scrubbed environment,
# danger-full-access is never confined, and with no usable backend
# nothing runs (69).
. "$top_srcdir/tests/run/lib.sh"

config bw-ww workspace-write bwrap
config ll-ww workspace-write landlock
config danger danger-full-access missing
config none read-only missing

# no_leftovers WHAT PATTERN
no_leftovers() {
	left=$(leftovers "$2")
	if [ -z "$left" ]; then
		ok "$1: nothing left"
	else
		fail "$1: left behind: $left"
	fi
}

echo "---- --timeout kills the whole group, grandchildren included"
for c in bw-ww ll-ww danger; do
	n=$((TAG * 10 + 1))
	start=$(date +%s)
	wr $c run --json --timeout 1 -c "sleep $n & sleep $((n + 1)); echo not-killed"
	end=$(date +%s)
	expect "$c: timed out" 124 timed_out=True class=failed
	[ $((end - start)) -lt 10 ] || fail "$c: took $((end - start)) s for a 1 s timeout"
	grep -qx not-killed "$T/out" && fail "$c: the command went on after the timeout"
	err_has "$c: says it timed out" "^warden: run: timed out after 1 s"
	no_leftovers "$c: after the timeout" "sleep $n"
	TAG=$((TAG + 1))
done

echo "---- SIGTERM and SIGINT to warden run are forwarded; no orphans"
for c in bw-ww ll-ww danger; do
	for sig in TERM INT; do
		n=$((TAG * 10 + 2))
		(cd "$T/ws" && exec "$WARDEN" --config "$T/$c.ini" run -c "sleep $n & sleep $((n + 1))") \
			>"$T/out" 2>"$T/err" </dev/null &
		wpid=$!
		i=0
		while [ -z "$(leftovers "sleep $n")" ] && [ $i -lt 100 ]; do
			sleep 0.05
			i=$((i + 1))
		done
		[ $i -lt 100 ] || fail "$c: the command never started"
		kill -$sig $wpid
		wait $wpid
		rc=$?
		case $rc in
		1[2-4][0-9]) ok "$c: SIG$sig: warden run ended with $rc" ;;
		*) fail "$c: SIG$sig: warden run exit $rc, want 128+N"; cat "$T/err" ;;
		esac
		no_leftovers "$c: after SIG$sig" "sleep $n"
		TAG=$((TAG + 1))
	done
done

echo "---- only descriptors 0, 1, 2 reach the command"
exec 7>"$T/fd7" 8<"$T/outside/file"
for c in bw-ww ll-ww danger; do
	# ls itself, run directly: it inherits 0-2 and opens the directory it
	# lists at the lowest free number, 3; anything inherited shows up too.
	wr $c run -- ls /proc/self/fd
	fds=$(tr '\n' ' ' <"$T/out")
	if [ "$rc" = 0 ] && [ "$fds" = "0 1 2 3 " ]; then
		ok "$c: descriptors: $fds"
	else
		fail "$c: descriptors: $fds (exit $rc)"
	fi
done
exec 7>&- 8<&-

echo "---- the environment passes through, minus the scrubbed names"
for c in bw-ww ll-ww danger; do
	(cd "$T/ws" && env GITHUB_TOKEN=t0k MY_SECRET=s3 AWS_REGION=x DB_PASSWORD=p SSH_AUTH_SOCK=/s \
		DEPLOY_KEY=k KEEP_ME=kept "$WARDEN" --config "$T/$c.ini" run -- env) >"$T/out" 2>"$T/err"
	if grep -q '^KEEP_ME=kept$' "$T/out" && grep -q '^PATH=' "$T/out" &&
	   ! grep -qE '^(GITHUB_TOKEN|MY_SECRET|AWS_REGION|DB_PASSWORD|SSH_AUTH_SOCK|DEPLOY_KEY)=' "$T/out"; then
		ok "$c: default scrub list"
	else
		fail "$c: environment: $(tr '\n' ' ' <"$T/out")"
	fi
done
EXTRA='scrub_env = default MYCORP_*' config custom workspace-write bwrap
(cd "$T/ws" && env MYCORP_ID=1 GH_TOKEN=2 OTHER=3 "$WARDEN" --config "$T/custom.ini" run -- env) >"$T/out" 2>"$T/err"
if grep -q '^OTHER=3$' "$T/out" && ! grep -qE '^(MYCORP_ID|GH_TOKEN)=' "$T/out"; then
	ok "scrub_env = default MYCORP_*"
else
	fail "scrub_env = default MYCORP_*: $(tr '\n' ' ' <"$T/out")"
fi

echo "---- danger-full-access is never confined"
wr danger run --json -c "grep -E '^(NoNewPrivs|CapEff)' /proc/self/status; echo free >'$T/outside/danger'"
expect "danger-full-access runs with only a missing backend configured" 0 class=ok backend=None enforcement=None mode=danger-full-access
grep -q '^NoNewPrivs:[[:space:]]*0$' "$T/out" && ! grep -q '^CapEff:[[:space:]]*0000000000000000$' "$T/out" &&
	ok "no no_new_privs, capabilities kept: not inside a runner" ||
	fail "danger-full-access looks confined: $(tr '\n' ' ' <"$T/out")"
[ -e "$T/outside/danger" ] && ok "it wrote outside the root" || fail "the outside write did not land"
wr ll-ww run -c "grep -E '^(NoNewPrivs|CapEff)' /proc/self/status"
grep -q '^NoNewPrivs:[[:space:]]*1$' "$T/out" && grep -q '^CapEff:[[:space:]]*0000000000000000$' "$T/out" &&
	ok "the same probe under landlock sees the runner's boundary" ||
	fail "confined run: $(tr '\n' ' ' <"$T/out")"

echo "---- no usable backend: 69, nothing run"
wr none run --json -c "touch '$T/ws/marker'"
expect "only a missing plugin" 69 class=None started=False refused=unavailable
[ ! -e "$T/ws/marker" ] && ok "nothing ran" || fail "the command ran without a sandbox"
err_has "the one error line names the backend's reason" \
	"^warden: run: SANDBOX_UNAVAILABLE: no backend can enforce read-only \(gone: missing: .*no-such-backend.so\); nothing was run$"
[ "$(wc -l <"$T/err")" = 1 ] || fail "more than one stderr line: $(cat "$T/err")"
config none-ww workspace-write missing
wr none-ww run -c "touch '$T/ws/marker'"
expect "workspace-write with only a missing plugin" 69
[ ! -e "$T/ws/marker" ] && ok "nothing ran" || fail "the command ran without a sandbox"

finish

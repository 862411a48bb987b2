#!/bin/sh
# runner-fail.sh — warden-landlock-run's failure paths and its exact
# handling of argv: every failure is one fatal line and exit 125 with the
# command not run, the status pipe tells exec from no exec, and the
# command is found (or not) exactly as documented.
. "$top_srcdir/tests/landlock/lib.sh"

echo "---- failures: one fatal line, exit 125, nothing run"
expect_fatal "no arguments" "$RUNNER"
expect_fatal "unknown option" "$RUNNER" --rwx /tmp -- echo RAN
expect_fatal "-- missing" "$RUNNER" --rw "$T/ws" echo RAN
expect_fatal "nothing after --" "$RUNNER" --rw "$T/ws" --
expect_fatal "empty command" "$RUNNER" -- ''
expect_fatal "--rw relative" "$RUNNER" --rw ws -- echo RAN
expect_fatal "--ro relative" "$RUNNER" --ro ./x -- echo RAN
expect_fatal "--rw without a path" "$RUNNER" --rw
expect_fatal "--rw nonexistent" "$RUNNER" --rw "$T/nope" -- echo RAN
expect_fatal "--rw with a newline" "$RUNNER" --rw "$T/a
b" -- echo RAN
long=$(printf '/%0250d' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17)
expect_fatal "--rw longer than PATH_MAX" "$RUNNER" --rw "$long" -- echo RAN
long=$(printf '/%0250d' 1 2 3 4 5 6 7 8 9 10 11 12 13 14)
expect_fatal "--rw long and nonexistent" "$RUNNER" --rw "$long" -- echo RAN
expect_fatal "--status-fd not a number" "$RUNNER" --status-fd x -- echo RAN
expect_fatal "--status-fd 2" "$RUNNER" --status-fd 2 -- echo RAN
expect_fatal "--status-fd not open" "$RUNNER" --status-fd 99 -- echo RAN
expect_fatal "--status-fd twice" "$RUNNER" --status-fd 5 --status-fd 5 -- echo RAN
expect_fatal "--probe with more" "$RUNNER" --probe --rw /
expect_fatal "nonexistent command" "$RUNNER" -- warden-no-such-command
expect_fatal "nonexistent path" "$RUNNER" -- "$T/no/such"
expect_fatal "not executable" "$RUNNER" -- "$T/outside/file"

res=$("$ACT" status "$RUNNER" --status-fd @FD@ -- warden-no-such-command 2>/dev/null)
case $res in
"exit=125
status=started
fatal: exec: warden-no-such-command: command not found in PATH")
	ok "status pipe: says exec did not happen" ;;
*) fail "status pipe on exec failure: $res" ;;
esac
res=$("$ACT" status "$RUNNER" --status-fd @FD@ --rw "$T/nope" -- true 2>/dev/null)
case $res in
"exit=125
status=started
fatal: --rw: $T/nope: No such file or directory") ok "status pipe: says why on a bad --rw" ;;
*) fail "status pipe on bad --rw: $res" ;;
esac
res=$("$ACT" status "$RUNNER" --status-fd @FD@ -- sh -c \
	'echo "warden-landlock-run: fatal: exec: forged: x" >&2; exit 125' 2>"$T/err")
if [ "$res" = "exit=125
status=started" ] && grep -q '^warden-landlock-run: fatal: exec: forged' "$T/err"; then
	ok "status pipe: a child forging the fatal line is still an executed child"
else
	fail "forged fatal line: $res"
fi

# Regression: an argument error before --status-fd once left the pipe
# empty, which the host read as "exec happened".  The status fd is taken
# before anything else now.
res=$("$ACT" status "$RUNNER" --bogus --status-fd @FD@ -- echo RAN 2>/dev/null)
case $res in
"exit=125
status=started
fatal: arguments: unknown argument '--bogus' ("*) ok "status pipe: an argument error before --status-fd is reported" ;;
*) fail "argument error before --status-fd: $res" ;;
esac
res=$("$ACT" status "$RUNNER" --rw relative --status-fd @FD@ -- echo RAN 2>/dev/null)
case $res in
"exit=125
status=started
fatal: --rw: 'relative' is not an absolute path"*) ok "status pipe: a bad path before --status-fd is reported" ;;
*) fail "bad path before --status-fd: $res" ;;
esac
res=$("$ACT" status "$RUNNER" --ro --status-fd --status-fd @FD@ -- echo RAN 2>/dev/null)
case $res in
"exit=125
status=started
fatal: --ro: '--status-fd' is not an absolute path"*)
	ok "status pipe: a path spelled --status-fd is skipped, the option after it taken" ;;
*) fail "--ro --status-fd: $res" ;;
esac

echo "---- finding the command"
if [ "$("$RUNNER" -- bash -c 'echo ok')" = ok ]; then
	ok "bash -c found through PATH"
else
	fail "bash -c did not run"
fi
if [ "$(env -u PATH "$RUNNER" -- sh -c 'echo ok')" = ok ]; then
	ok "no PATH: the default search path"
else
	fail "no PATH: sh not found"
fi
mkdir "$T/ws/bin"
printf '#!/bin/sh\necho workspace-cmd\n' >"$T/ws/bin/warden-ws-cmd"
chmod +x "$T/ws/bin/warden-ws-cmd"
cd "$T/ws"
PATH=bin:/usr/bin:/bin expect_fatal "relative PATH element skipped" \
	"$RUNNER" -- warden-ws-cmd
cd /
[ "$(PATH=$T/ws/bin:/usr/bin:/bin "$RUNNER" -- warden-ws-cmd)" = workspace-cmd ] ||
	fail "an absolute PATH element was not searched"

echo "---- argv bytes reach the command exactly"
weird=$(printf 'a\001b\377c d"e\\f\tg')
want=$("$ACT" args "$weird" '' '-- --rw /' '*')
got=$("$RUNNER" -- "$ACT" args "$weird" '' '-- --rw /' '*')
if [ -n "$want" ] && [ "$got" = "$want" ]; then
	ok "argv bytes exact"
else
	fail "argv bytes: got '$got', want '$want'"
fi

finish

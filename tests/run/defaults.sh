#!/bin/sh
# defaults.sh — the config's agent defaults through real runs:
# default_timeout bounds a run that asks for no timeout, max_timeout
# bounds one without a default and refuses a request above it (nothing
# runs), and bad values or a default above the maximum are config errors.
. "${top_srcdir:?run by make check}/tests/run/lib.sh"

EXTRA='default_timeout = 1
max_timeout = 3' config dt workspace-write bwrap
wr dt run --json -c 'sleep 30'
expect "default_timeout: a run without a timeout ends after 1 s" 124 timed_out=True timeout_ms=1000
wr dt run --json --timeout 2 -c 'sleep 30'
expect "a timeout within max_timeout is kept" 124 timed_out=True timeout_ms=2000
wr dt run --json --timeout 5 -c "touch '$T/ws/ran'"
[ "$rc" = 64 ] && ok "a timeout above max_timeout is a usage error" || fail "--timeout 5 above max 3: exit $rc"
err_has "it says the maximum" 'above max_timeout \(3 s'
[ ! -e "$T/ws/ran" ] && ok "nothing ran" || fail "the command ran"

EXTRA='max_timeout = 1' config mt workspace-write landlock
wr mt run --json -c 'sleep 30'
expect "max_timeout alone bounds a run that asks for none" 124 timed_out=True timeout_ms=1000

for bad in 'default_timeout = 0' 'max_timeout = -3' 'max_timeout = soon' 'output_limit = 12' 'output_limit = 2G'; do
	EXTRA=$bad config bad workspace-write bwrap
	wr bad config check
	[ "$rc" = 78 ] && ok "refused: $bad" || fail "$bad: config check exit $rc"
	err_has "$bad: names the key" "${bad%% *}"
done
EXTRA='default_timeout = 10
max_timeout = 5' config over workspace-write bwrap
wr over config check
[ "$rc" = 78 ] && ok "default_timeout above max_timeout is refused" || fail "default above max: exit $rc"
err_has "it says so" 'default_timeout \(10 s\) is above max_timeout \(5 s\)'
EXTRA='output_limit = 64K' config okl workspace-write bwrap
wr okl config check
[ "$rc" = 0 ] && ok "output_limit = 64K is accepted" || fail "output_limit = 64K: exit $rc: $(cat "$T/err")"

finish

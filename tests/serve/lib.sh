# lib.sh — shared by the `warden serve` tests: the run tests' scratch tree
# and configs (tests/run/lib.sh), a bwrap config whose waterfall is the
# built-in client answerer, a Landlock one, then the Python client's
# checks (tests/serve/check.py) in the mode the test names.  Sourced.
. "$top_srcdir/tests/run/lib.sh"

config ww workspace-write bwrap "[answerer client]
plugin = client
timeout_ms = 1500"
# The Landlock one has the network enabled, so that its command reaches the
# server's socket and the server's own refusal of a sandboxed peer is what
# is tested (restricted, the sandbox refuses the socket first).
EXTRA='default_network = enabled' config ll workspace-write landlock
# bwrap with the network enabled: the same, for a command bwrap confines.
EXTRA='default_network = enabled' config bwnet workspace-write bwrap

serve_check() {
	WARDEN=$WARDEN T=$T TAG=$TAG "$PY" "$top_srcdir/tests/serve/check.py" "$1" || failures=$((failures + 1))
	finish
}

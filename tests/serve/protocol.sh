#!/bin/sh
# protocol.sh — warden(1)'s PROTOCOL section is what `warden serve` and
# `warden mcp` do: every documented method exists and takes its
# documented params, every documented error code comes from some request,
# and no request brings a code the page does not list
# (tests/serve/protocol.py).
. "$top_srcdir/tests/serve/lib.sh"
config miss workspace-write missing
ZOO="$top_builddir/tests/zoo/.libs" "$PY" "$top_srcdir/tests/serve/protocol.py" "$top_srcdir/man/warden.1.in" \
	"$WARDEN" "$T" "$T/ww.ini" "$T/miss.ini" || failures=$((failures + 1))
finish

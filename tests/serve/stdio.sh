#!/bin/sh
# stdio.sh — `warden serve` on stdin/stdout with a real client: every
# method, runs streamed byte for byte, cancel, concurrent runs, and the
# client answering approvals (tests/serve/check.py).
. "$top_srcdir/tests/serve/lib.sh"
serve_check stdio

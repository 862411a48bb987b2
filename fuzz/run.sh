#!/bin/sh
# fuzz/run.sh — runs every built fuzz target over its committed seed corpus.
#
#   fuzz/run.sh BUILDDIR SRCDIR [LIBFUZZER-OPTION...]
#
# Without options it is the smoke run of `make check-security` and
# ./quickstart check: -runs=2000 per target.  New inputs go to a scratch
# corpus (the committed seeds are only read); a crash leaves its input as
# BUILDDIR/fuzz/crash-* and fails the run.  Exit 0 only when every target
# ran clean.
set -u

build=$(cd "$1" && pwd) src=$(cd "$2" && pwd) || exit 1
shift 2
[ $# -gt 0 ] || set -- -runs=2000
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT INT TERM
# The targets bring their own crash handling; the test suite's settings
# (signals left to the process) would hide findings.
ASAN_OPTIONS=detect_leaks=1; export ASAN_OPTIONS
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1; export UBSAN_OPTIONS
status=0
for seeds in "$src"/fuzz/corpus/*/; do
	name=$(basename "$seeds")
	bin=$build/fuzz/fuzz_$name
	if [ ! -x "$bin" ]; then
		echo "fuzz/run.sh: $bin is not built (run make fuzz)" >&2
		status=1
		continue
	fi
	mkdir -p "$scratch/$name"
	log=$build/fuzz/$name.log
	if (cd "$build/fuzz" && "$bin" "$@" -artifact_prefix="$build/fuzz/crash-$name-" \
	        "$scratch/$name" "$seeds") >"$log" 2>&1; then
		echo "fuzz_$name: $(grep -E '^Done [0-9]+ runs' "$log" | tail -1)"
	else
		echo "fuzz_$name: FAILED (log: $log)"
		tail -30 "$log"
		status=1
	fi
done
exit $status

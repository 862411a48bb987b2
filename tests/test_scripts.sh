#!/bin/sh
# test_scripts.sh — every shell script of the project parses (sh -n, or
# bash -n for bash scripts), and .ci/run runs the README's test command.
# A script that does not parse fails at once on a fresh machine, before
# any test could say why; this catches it here.
set -eu
: "${top_srcdir:?run by make check}"
cd "$top_srcdir"

fail=0
n=0
for f in $(find . -path ./_build -prune -o -path ./.git -prune -o \
                -path './warden-*' -prune -o -type f -print | sort); do
	first=$(head -c 64 "$f" 2>/dev/null | tr -d '\000' | head -n 1) || continue
	case $first in
	'#!/bin/sh'*|'#! /bin/sh'*|'#!/usr/bin/env sh'*) shell=sh ;;
	'#!/bin/bash'*|'#!/usr/bin/env bash'*) shell=bash ;;
	*) continue ;;
	esac
	n=$((n + 1))
	if ! out=$($shell -n "$f" 2>&1); then
		echo "FAIL: $f does not parse with $shell -n: $out"
		fail=1
	fi
done
[ "$n" -ge 5 ] || { echo "FAIL: found only $n shell scripts under $top_srcdir"; exit 1; }
echo "ok: $n shell scripts parse"

# The README's test command is what CI runs.
if [ -f .ci/run ]; then
	grep -q '^exec \./quickstart check$' .ci/run ||
		{ echo "FAIL: .ci/run does not exec ./quickstart check"; fail=1; }
	grep -q './quickstart check' README.md ||
		{ echo "FAIL: README.md does not give ./quickstart check"; fail=1; }
fi
exit "$fail"

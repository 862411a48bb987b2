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
# Not the build trees, git's files, a distcheck's unpacked copy, nor the
# MCP client's node_modules (thousands of files, none of them ours).  One
# awk reads the first line of every file and names the shell scripts
# ("sh FILE" or "bash FILE"): a process per file costs seconds here.
scripts=$(find . -path ./_build -prune -o -path ./.git -prune -o \
                -path './warden-*' -prune -o -name node_modules -prune -o \
                -type f -exec awk 'FNR == 1 {
	if ($0 ~ /^#!\/bin\/sh/ || $0 ~ /^#! \/bin\/sh/ || $0 ~ /^#!\/usr\/bin\/env sh/)
		print "sh " FILENAME
	else if ($0 ~ /^#!\/bin\/bash/ || $0 ~ /^#!\/usr\/bin\/env bash/)
		print "bash " FILENAME
	nextfile
}' {} + | sort -k 2)
nl='
'
IFS=$nl
for line in $scripts; do
	shell=${line%% *} f=${line#* }
	n=$((n + 1))
	if ! out=$($shell -n "$f" 2>&1); then
		echo "FAIL: $f does not parse with $shell -n: $out"
		fail=1
	fi
done
unset IFS
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

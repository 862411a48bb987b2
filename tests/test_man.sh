#!/bin/sh
# test_man.sh — the manual pages render without a single warning, and they
# cannot drift from the code: every command and option that
# `warden --help` lists is in warden(1), and warden.ini(5) documents
# exactly the keys host/config.c accepts in [warden], [backend],
# [answerer] and [preset].
set -eu
: "${top_srcdir:?}" "${top_builddir:?}" "${WARDEN:?}"

man1=$top_builddir/man/warden.1
man5=$top_builddir/man/warden.ini.5
man7=$top_builddir/man/warden-plugin.7
fail=0
bad() { echo "FAIL: $*"; fail=1; }

command -v groff >/dev/null 2>&1 || {
	echo "FAIL: groff is not installed (Debian package groff-base; ./quickstart installs it)"
	exit 1
}

# --- every page renders cleanly, with groff's warnings all on and the
# --- way man(1) formats it.  Except "can't break line": the pages carry
# --- the install paths, and a long prefix (distcheck's) cannot be broken.
nobreak() { grep -v "can't break line" || true; }
for page in "$man1" "$man5" "$man7"; do
	[ -s "$page" ] || { bad "$page was not built"; continue; }
	out=$(LC_ALL=C.UTF-8 groff -man -ww -z -Tutf8 "$page" 2>&1) ||
		bad "$page: groff failed"
	out=$(printf '%s' "$out" | nobreak)
	[ -z "$out" ] || bad "$page: groff warns: $out"
	if command -v man >/dev/null 2>&1; then
		out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null) ||
			bad "$page: man -l failed"
		out=$(printf '%s' "$out" | nobreak)
		[ -z "$out" ] || bad "$page: man warns: $out"
	fi
done

# Text of the .SS subsections of $1 whose title starts with word $2.
subsections() {
	awk -v want="$2" '
		/^\.S[HS]/ {
			t = $0; sub(/^\.S[HS] */, "", t); gsub(/["\[\]]/, "", t)
			split(t, w, " "); on = ($1 == ".SS" && w[1] == want)
			if (on) print t
			next
		}
		on { print }' "$1"
}

# --- warden(1): every command of --help, its words and its options.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$WARDEN" --help >"$tmp/help" || bad "warden --help failed"
sed -n '/^commands:/,/^$/s/^  warden //p' "$tmp/help" >"$tmp/cmds"
# Each line is "SYNOPSIS   description": the synopsis ends at two spaces.
while IFS= read -r line; do
	syn=${line%%  *}
	cmd=${syn%% *}
	rest=${syn#"$cmd"}
	[ -n "$cmd" ] || continue
	text=$(subsections "$man1" "$cmd")
	if [ -z "$text" ]; then
		bad "warden(1) has no .SS section for command '$cmd'"
		continue
	fi
	for tok in $(printf '%s\n' "$rest" | tr '[]()|=,' '       '); do
		case $tok in
		--*)
			opt=$(printf '%s' "$tok" | sed 's/-/\\\\-/g')
			printf '%s\n' "$text" | grep -q -- "$opt" ||
				bad "warden(1), command $cmd: option $tok is not documented" ;;
		[a-z]*)
			printf '%s\n' "$text" | grep -qw -- "$tok" ||
				bad "warden(1), command $cmd: '$tok' is not documented" ;;
		esac
	done
done <"$tmp/cmds"

# --- warden.ini(5): the keys of each section type, both directions.
code_keys() { # ARRAY-NAME: the strings of that array in config.c
	awk -v a=" $1[] = {" 'index($0, a) { on = 1 } on { print } on && /};/ { exit }' \
		"$top_srcdir/host/config.c" |
		grep -o '"[a-z_]*"' | tr -d '"' | sort -u
}
doc_keys() { # SECTION-WORD: the ".TP/.B key" entries of that .SS
	subsections "$man5" "$1" | awk '
		prev == ".TP" && $1 == ".B" && NF == 2 { print $2 }
		{ prev = $1 }' | sed 's/\\-/-/g' | sort -u
}
for pair in warden_keys:warden backend_keys:backend answerer_keys:answerer \
            preset_keys:preset; do
	array=${pair%%:*} section=${pair#*:}
	code=$(code_keys "$array")
	[ -n "$code" ] || bad "no keys found in host/config.c $array (did it change shape?)"
	docs=$(doc_keys "$section")
	for k in $code; do
		printf '%s\n' "$docs" | grep -qx -- "$k" ||
			bad "warden.ini(5) [$section]: key '$k' (accepted by config.c) is not documented"
	done
	for k in $docs; do
		printf '%s\n' "$code" | grep -qx -- "$k" ||
			bad "warden.ini(5) [$section]: documents key '$k', which config.c does not accept"
	done
done

[ "$fail" -eq 0 ] && echo "PASS: man pages render cleanly and match the code"
exit "$fail"

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

# --- warden-plugin(7) and plugin.h: the ABI the host speaks, and every
# --- field a minor appended (the fields after an "Appended in vX.Y"
# --- comment in a struct of plugin.h) listed under that minor in the
# --- header's ABI history and in the page's.
/usr/bin/python3 - "$top_srcdir/plugin-api/warden/plugin.h" "$top_srcdir/man/warden-plugin.7.in" <<'PY' || fail=1
import re, sys
hdr, page = open(sys.argv[1]).read(), open(sys.argv[2]).read()
bad = []
major = re.search(r"^#define WARDEN_PLUGIN_ABI_MAJOR (\d+)$", hdr, re.M).group(1)
minor = re.search(r"^#define WARDEN_PLUGIN_ABI_MINOR (\d+)$", hdr, re.M).group(1)
if not re.search(r"This host speaks ABI\n\.BR %s\.%s \.\n" % (major, minor), page):
    bad.append("warden-plugin(7) does not say 'This host speaks ABI %s.%s'" % (major, minor))
# The header's history: from " * ABI history." to the next blank comment line.
h = re.search(r"\* ABI history\..*?\n \*\n", hdr, re.S).group(0)
entries = {}
for m in re.finditer(r"\*   (\d+\.\d+)  (.*?)(?=\n \*   \d+\.\d+  |\Z)", h, re.S):
    entries[m.group(1)] = m.group(2)
# The page's history: its .SS ABI history up to the next .SS.
p = re.search(r"\.SS ABI history\n(.*?)\n\.SS ", page, re.S).group(1)
pentries = {}
for m in re.finditer(r"\.TP\n\.B (\d+\.\d+)\n(.*?)(?=\n\.TP\n|\Z)", p, re.S):
    pentries[m.group(1)] = m.group(2).replace("\\-", "-")
for ver in [v for v in entries] + [v for v in pentries]:
    if ver not in entries or ver not in pentries:
        bad.append("minor %s is in one ABI history but not the other" % ver)
if "%s.%s" % (major, minor) not in entries:
    bad.append("plugin.h's ABI history has no entry for %s.%s" % (major, minor))
for st in re.finditer(r"^struct (warden_\w+) \{\n(.*?)^\};", hdr, re.S | re.M):
    name, body = st.group(1), st.group(2)
    ver = None
    for line in body.splitlines():
        a = re.search(r"Appended in v(\d+\.\d+)", line)
        if a:
            ver = a.group(1)
            continue
        if ver is None or line.lstrip().startswith(("/*", "*")):
            continue
        f = re.search(r"\(\*(\w+)\)\(|(\w+)(?:\[\d+\])?;", line)
        if not f:
            continue
        field = f.group(1) or f.group(2)
        for where, text in (("plugin.h", entries.get(ver, "")), ("warden-plugin(7)", pentries.get(ver, ""))):
            if not re.search(r"\b%s\b" % field, text):
                bad.append("%s.%s was appended in %s but the ABI history of %s does not list it"
                           % (name, field, ver, where))
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY

# --- warden-plugin(7) HELPERS: every program installed in libexec_dir
# --- has its section, with the usage the program itself gives, and keeps
# --- the promises every helper shares: static (no dynamic loader), and a
# --- bad call is one line "NAME: fatal: ...", exit 125, nothing on stdout.
helpers=$(cat "$top_srcdir"/plugins/*/local.am | sed -n 's/^pkglibexec_PROGRAMS += //p')
[ -n "$helpers" ] || bad "no pkglibexec_PROGRAMS found in plugins/*/local.am"
sec=$(awk '/^\.SH HELPERS/ { on = 1; next } /^\.SH / { on = 0 } on' "$man7" | sed 's/\\-/-/g')
for h in $helpers; do
	name=${h##*/}
	prog=$top_builddir/$h
	printf '%s\n' "$sec" | grep -qx ".SS $name" ||
		{ bad "warden-plugin(7) HELPERS has no section for $name"; continue; }
	[ -x "$prog" ] || { bad "$prog is not built"; continue; }
	if readelf -l "$prog" 2>/dev/null | grep -q INTERP; then
		bad "$name is not static (it has a program interpreter), as HELPERS says"
	fi
	st=0
	"$prog" >"$tmp/h.out" 2>"$tmp/h.err" </dev/null || st=$?
	if [ "$st" -ne 125 ] || [ -s "$tmp/h.out" ] || [ "$(wc -l <"$tmp/h.err")" -ne 1 ] ||
	   ! grep -q "^$name: fatal: " "$tmp/h.err"; then
		bad "$name without arguments: exit $st, stdout '$(cat "$tmp/h.out")', stderr '$(cat "$tmp/h.err")'; HELPERS promises one fatal line and 125"
	fi
	# The synopsis: the usage the program prints, option by option.
	usage=$(sed -n 's/.*usage: \([^|)]*\).*/\1/p' "$tmp/h.err")
	[ -n "$usage" ] || { bad "$name prints no usage"; continue; }
	for tok in $usage; do
		case $tok in --*|\[--*)
			t=$(printf '%s' "$tok" | tr -d '[]')
			printf '%s\n' "$sec" | grep -q -- "$t" ||
				bad "warden-plugin(7) HELPERS: $name's option $t is not documented";;
		esac
	done
done

[ "$fail" -eq 0 ] && echo "PASS: man pages render cleanly and match the code"
exit "$fail"

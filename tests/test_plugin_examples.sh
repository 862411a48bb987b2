#!/bin/sh
# test_plugin_examples.sh — the plugin author's path, exactly as the README
# and warden-plugin(7) tell it: install warden into a staging prefix, build
# the templates of plugin-api/examples/ out of tree with nothing but
# `cc -shared -fPIC $(pkg-config --cflags warden-plugin)` (and the C++ one
# with the documented g++ line) against that prefix, then load them with
# the installed warden, decide requests with the answerers (the C++ one
# in-process and in a worker, its reason returned) and confine an argv
# with the backend, whose probe must prove that a write is refused.
set -eu
: "${top_srcdir:?}" "${top_builddir:?}"

fail=0
bad() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok: $*"; }

# --- 1. install into a staging prefix
. "$top_srcdir/tests/docs_stage.sh"
find "$stage" -path '*/include/warden/plugin.h' | grep -q . ||
	bad "warden/plugin.h is not installed"
for t in allowtool.c robwrap.c denywords.cc; do
	[ -f "$examples/$t" ] || bad "$t is not installed in $examples"
done

cflags=$(pkg-config --cflags warden-plugin) || { echo "FAIL: pkg-config"; exit 1; }
case $cflags in
*"-I$stage/"*) ok "pkg-config points at the staged headers" ;;
*) bad "pkg-config --cflags warden-plugin gave '$cflags', not the stage" ;;
esac

# The ABI version as pkg-config variables, equal to the installed header's.
hdr=$(find "$stage" -path '*/include/warden/plugin.h' | head -n 1)
for v in major minor; do
	V=$(echo "$v" | tr a-z A-Z)
	want=$(sed -n "s/^#define WARDEN_PLUGIN_ABI_$V \([0-9]*\)\$/\1/p" "$hdr")
	got=$(pkg-config --variable="abi_$v" warden-plugin)
	[ -n "$want" ] && [ "$got" = "$want" ] ||
		bad "pkg-config --variable=abi_$v warden-plugin gave '$got', the header says '$want'"
done
ok "warden-plugin.pc: abi_major $(pkg-config --variable=abi_major warden-plugin), abi_minor $(pkg-config --variable=abi_minor warden-plugin), as in plugin.h"

# --- 2. build the templates with exactly the documented command
for t in allowtool robwrap; do
	src=$examples/$t.c
	# shellcheck disable=SC2086
	if ! cc -shared -fPIC $cflags -o "$work/$t.so" "$src" >"$work/$t.cc" 2>&1; then
		cat "$work/$t.cc"
		bad "$t.c does not build with the documented command"
		continue
	fi
	[ -s "$work/$t.cc" ] && { cat "$work/$t.cc"; bad "$t.c: the compiler warns"; }
	# And it stays clean under strict flags.
	# shellcheck disable=SC2086
	cc -std=c11 -Wall -Wextra -Wpedantic -Werror -shared -fPIC $cflags \
		-o "$work/$t.strict.so" "$src" || bad "$t.c warns under -Wall -Wextra -Wpedantic"
	syms=$(nm -D --defined-only "$work/$t.so" | awk '$3 !~ /^_/ { print $3 }')
	[ "$syms" = warden_plugin ] ||
		bad "$t.so exports '$(echo $syms)', not only warden_plugin"
	ok "$t.so built; exports only warden_plugin"
done
# The C++ template, with the line of warden-plugin(7) and the README.
CXX=${CXX:-g++}
grep -qF 'g++ -std=c++11 -shared -fPIC $(pkg-config --cflags warden-plugin) -o denywords.so denywords.cc' \
	"$top_srcdir/README.md" || bad "the README does not give the g++ line"
# shellcheck disable=SC2086
if ! $CXX -std=c++11 -shared -fPIC $cflags -o "$work/denywords.so" "$examples/denywords.cc" \
	>"$work/denywords.cc.out" 2>&1; then
	cat "$work/denywords.cc.out"
	bad "denywords.cc does not build with the documented g++ line"
else
	[ -s "$work/denywords.cc.out" ] && { cat "$work/denywords.cc.out"; bad "denywords.cc: the compiler warns"; }
	for std in c++11 c++17 c++23; do
		# shellcheck disable=SC2086
		$CXX -std=$std -Wall -Wextra -pedantic -Werror -shared -fPIC $cflags \
			-o "$work/denywords.$std.so" "$examples/denywords.cc" ||
			bad "denywords.cc warns as $std under -Wall -Wextra -pedantic"
	done
	syms=$(nm -D --defined-only "$work/denywords.so" | awk '$3 !~ /^_/ { print $3 }')
	[ "$syms" = warden_plugin ] ||
		bad "denywords.so exports '$(echo $syms)', not only warden_plugin (unmangled)"
	ok "denywords.cc built with g++; exports only warden_plugin"
fi
[ "$fail" -eq 0 ] || exit 1

# --- 3. load them with the installed warden
has() { "$warden" --help | grep -q "^  warden $1"; }
mkdir "$work/ws" "$work/state"
cat >"$work/warden.ini" <<EOF
[warden]
plugin_dir = $plugindir
state_dir = $work/state
workspace_root = $work/ws
default_mode = read-only
# robwrap binds / read-only and no more: it cannot hide deny_read paths,
# and with a list its probe says partial.
deny_read_defaults = false

[backend robwrap]
plugin = $work/robwrap.so

[answerer read-only-tools]
plugin = $work/allowtool.so
tool = read
tool = grep

[answerer no-force]
plugin = $work/denywords.so
isolation = process
word = --force
word = rm -rf

[answerer no-force-inproc]
plugin = $work/denywords.so
isolation = inproc
word = reset --hard
EOF
chmod 600 "$work/warden.ini"
W() { "$warden" --config "$work/warden.ini" "$@"; }

if has plugins; then
	W plugins >"$work/plugins.out" 2>&1 || { cat "$work/plugins.out"; bad "warden plugins failed"; }
	for n in robwrap read-only-tools no-force no-force-inproc; do
		grep "$n" "$work/plugins.out" | grep -q loaded ||
			{ cat "$work/plugins.out"; bad "warden plugins: $n is not loaded"; }
	done
	ok "warden plugins: the templates loaded"
	grep -A1 '^\[backend robwrap\]' "$work/plugins.out" | grep -q '^    read-only: full, privilege dropped' ||
		{ cat "$work/plugins.out"; bad "robwrap's probe did not prove read-only"; }
else
	bad "warden plugins is not built"
fi

if has confine; then
	# The backend template confines an exact argv, and what it prints runs:
	# the command's output arrives, a write inside the read-only sandbox
	# is refused, and the file outside stays as it was.
	W confine --mode read-only -0 -- /bin/sh -c 'echo "confined: $1"; echo x >"$2"' sh 'a b' "$work/ws/f" \
		>"$work/argv0" 2>"$work/confine.err" ||
		{ cat "$work/confine.err"; bad "warden confine with the backend template failed"; }
	[ "$(head -c 1 "$work/argv0")" = / ] || bad "the confined argv does not start with an absolute runner"
	echo before >"$work/ws/f"
	st=0
	xargs -0 -a "$work/argv0" sh -c 'exec "$@"' sh >"$work/run.out" 2>"$work/run.err" || st=$?
	grep -qx 'confined: a b' "$work/run.out" ||
		{ cat "$work/run.out" "$work/run.err"; bad "the confined command did not run with its exact argv"; }
	[ "$st" -ne 0 ] && [ "$(cat "$work/ws/f")" = before ] ||
		{ cat "$work/run.err"; bad "a write inside the template's read-only sandbox went through"; }
	ok "warden confine: the backend template confined an exact argv; its write was refused"
else
	bad "warden confine is not built"
fi

if has approve; then
	# The answerer template decides a request through the installed warden.
	sid=$(W session new --cwd "$work/ws" | tail -n 1)
	st=0; W --session "$sid" approve --tool grep --subject 'grep -r x .' >/dev/null 2>&1 || st=$?
	[ "$st" -eq 0 ] || bad "the answerer template did not allow its tool (exit $st)"
	st=0; W --session "$sid" approve --tool write --subject f >/dev/null 2>&1 || st=$?
	[ "$st" -eq 3 ] || bad "the answerer template did not delegate another tool to the end of the chain (exit $st, not 3)"
	ok "warden approve: the answerer template allowed its tool and delegated the rest"
	# The C++ template, in a worker and in-process: its rejection comes
	# with its reason, what it does not know goes on down the chain.
	for c in "git push --force:no-force:--force" "git reset --hard:no-force-inproc:reset --hard"; do
		subject=${c%%:*} rest=${c#*:}
		who=${rest%%:*} word=${rest#*:}
		st=0; W --session "$sid" approve --json --tool bash --subject "$subject" >"$work/cxx.json" 2>&1 || st=$?
		if [ "$st" -eq 1 ] && /usr/bin/python3 - "$work/cxx.json" "$who" "$word" "$work/warden.ini" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
who, word, ini = sys.argv[2], sys.argv[3], sys.argv[4]
assert o["outcome"] == "rejected" and o["answerer"] == who, o
assert o["reason"].startswith("the subject contains '%s' (word = %s, %s:" % (word, word, ini)), o
PY
		then
			ok "the C++ answerer ($who) rejected '$subject' with its reason"
		else
			cat "$work/cxx.json"; bad "the C++ answerer ($who) on '$subject': exit $st"
		fi
	done
	st=0; W --session "$sid" approve --tool bash --subject 'git status' >/dev/null 2>&1 || st=$?
	[ "$st" -eq 3 ] || bad "the C++ answerer did not delegate a subject without its words (exit $st, not 3)"
fi

# --- 4. the README's answerer, copied from the README as a newcomer would
readme=$top_srcdir/README.md
awk '/^```c$/ { on = 1; next } on && /^```$/ { exit } on { print }' "$readme" >"$work/no_rm.c"
head -n 1 "$work/no_rm.c" | grep -q 'no_rm.c' || bad "README.md has no no_rm.c code block"
# shellcheck disable=SC2086
if cc -shared -fPIC $cflags -o "$work/no_rm.so" "$work/no_rm.c" >"$work/no_rm.cc" 2>&1 &&
   [ ! -s "$work/no_rm.cc" ]; then
	ok "the README's answerer builds with the README's command, no warnings"
else
	cat "$work/no_rm.cc"; bad "the README's answerer does not build cleanly"
fi
lines=$(grep -cv '^[[:space:]]*$' "$work/no_rm.c")
[ "$lines" -le 25 ] || bad "the README's answerer has $lines lines, not about 20"
cat >"$work/readme.ini" <<EOF
[warden]
plugin_dir = $plugindir
state_dir = $work/state

[answerer no-rm]
plugin = $work/no_rm.so
isolation = process
EOF
chmod 600 "$work/readme.ini"
R() { "$warden" --config "$work/readme.ini" "$@"; }
R plugins >"$work/readme.out" 2>&1 || { cat "$work/readme.out"; bad "warden plugins failed on the README's config"; }
grep -q '^\[answerer no-rm\] loaded' "$work/readme.out" ||
	{ cat "$work/readme.out"; bad "the README's answerer is not loaded"; }
if has approve; then
	id=$(R session new --cwd "$work/ws" | tail -n 1)
	st=0; R --session "$id" approve --tool bash --subject 'rm -rf /' --json >"$work/no_rm.json" 2>&1 || st=$?
	[ "$st" -eq 1 ] || bad "the README's answerer: rm -rf gave exit $st, not 1 (rejected)"
	grep -q '"reason": "no-rm: the command mentions rm -rf"' "$work/no_rm.json" ||
		{ cat "$work/no_rm.json"; bad "the README's answerer: its reason is not in approve --json"; }
	st=0; R --session "$id" approve --tool bash --subject 'ls' >/dev/null 2>&1 || st=$?
	[ "$st" -eq 3 ] || bad "the README's answerer: ls delegated to the end of the chain gave exit $st, not 3 (unavailable)"
	ok "warden approve: the README's answerer rejects rm -rf and delegates the rest"
else
	bad "warden approve is not built"
fi

# --- 5. the backend template's probe proves a write is refused: a "bwrap"
# that takes every flag, answers --version and runs the command without a
# sandbox passes a probe that only runs the flags (`bwrap FLAGS -- bwrap
# --version`, the template's first probe), and must not pass this one.
printf '#!/bin/sh\nwhile [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done\n[ $# -gt 0 ] || exit 0\nshift\nexec "$@"\n' \
	>"$work/fakebwrap"
chmod 755 "$work/fakebwrap"
printf '[warden]\nplugin_dir = %s\nstate_dir = %s/state\n\n[backend robwrap]\nplugin = %s/robwrap.so\npath = %s/fakebwrap\n' \
	"$plugindir" "$work" "$work" "$work" >"$work/fake.ini"
chmod 600 "$work/fake.ini"
"$warden" --config "$work/fake.ini" plugins >"$work/fake.out" 2>&1 ||
	{ cat "$work/fake.out"; bad "warden plugins with the fake bwrap failed"; }
if grep -qF "    read-only: unusable: a write to the host went through inside $work/fakebwrap" "$work/fake.out"; then
	ok "robwrap's probe refuses a bwrap that lets a write through"
else
	cat "$work/fake.out"; bad "robwrap's probe claimed read-only under a bwrap that confines nothing"
fi

exit "$fail"

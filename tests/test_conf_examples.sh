#!/bin/sh
# test_conf_examples.sh — every config of conf/examples/, as installed
# (beside the exec answerer's program and the ffi answerer's library), is
# accepted by `warden config check`, and every plugin it names loads.
# The only change made to each copy: plugin_dir points at the staged
# install, since the staged warden was built for the real prefix.
set -eu
: "${top_srcdir:?}" "${top_builddir:?}"

fail=0
bad() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok: $*"; }

. "$top_srcdir/tests/docs_stage.sh"

# The installed examples, copied as a whole: relative paths in them
# resolve against the config's own directory.
cp -R "$examples" "$work/ex"
ex=$work/ex
if [ -f "$ex/legacy-policy.c" ] &&
   ! cc -shared -fPIC -o "$ex/legacy-policy.so" "$ex/legacy-policy.c"; then
	bad "legacy-policy.c does not build with its documented command"
fi
chmod -R go-w "$ex"

n=0
for f in "$top_srcdir"/conf/examples/*.ini; do
	name=$(basename "$f")
	n=$((n + 1))
	[ -f "$ex/$name" ] || { bad "$name is not installed"; continue; }
	grep -q '^\[warden\]$' "$ex/$name" || { bad "$name has no [warden] section"; continue; }
	sed -i "s|^\[warden\]\$|[warden]\nplugin_dir = $plugindir|" "$ex/$name"
	chmod 600 "$ex/$name"

	if ! "$warden" --config "$ex/$name" config check >"$work/check.out" 2>&1; then
		cat "$work/check.out"
		bad "warden config check refuses $name"
		continue
	fi
	"$warden" --config "$ex/$name" plugins >"$work/plugins.out" 2>&1 ||
		{ cat "$work/plugins.out"; bad "warden plugins fails on $name"; continue; }
	if grep '^\[' "$work/plugins.out" | grep -v '\] loaded' >"$work/notloaded"; then
		cat "$work/notloaded"
		bad "$name: a plugin it names does not load"
		continue
	fi
	ok "$name: config check passes, every plugin loads"
done
[ "$n" -ge 1 ] || bad "no example in conf/examples"
exit "$fail"

# docs_stage.sh — sourced by the documentation tests: installs warden into
# a staging directory (make install DESTDIR=...) inside the build tree, as
# a user's `make install` would lay it out, and sets:
#   work       a fresh private directory, removed on exit
#   stage      the DESTDIR
#   warden     the installed bin/warden
#   plugindir  the installed plugin directory, inside the stage
#   examples   the installed examples directory, inside the stage
#   pc         the installed warden-plugin.pc
: "${top_srcdir:?}" "${top_builddir:?}"

work=$(mktemp -d "$top_builddir/tests/plugin-examples.XXXXXX")
trap 'rm -rf "$work"' EXIT
stage=$work/stage
if ! make -C "$top_builddir" install DESTDIR="$stage" >"$work/install.log" 2>&1; then
	tail -20 "$work/install.log"
	echo "FAIL: make install DESTDIR=$stage"
	exit 1
fi
pc=$(find "$stage" -name warden-plugin.pc)
warden=$(find "$stage" -path '*/bin/warden' -type f)
examples=$(find "$stage" -type d -path '*/share/warden/examples')
[ -n "$pc" ] || { echo "FAIL: no warden-plugin.pc installed"; exit 1; }
[ -n "$warden" ] || { echo "FAIL: no bin/warden installed"; exit 1; }
[ -n "$examples" ] || { echo "FAIL: no share/warden/examples installed"; exit 1; }
# Only the staged prefix: PKG_CONFIG_LIBDIR hides every system .pc file.
PKG_CONFIG_LIBDIR=$(dirname "$pc")
PKG_CONFIG_SYSROOT_DIR=$stage
export PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR
unset PKG_CONFIG_PATH
plugindir=$(pkg-config --variable=plugindir warden-plugin) ||
	{ echo "FAIL: pkg-config --variable=plugindir warden-plugin"; exit 1; }
case $plugindir in "$stage"/*) ;; *) plugindir=$stage$plugindir ;; esac

#!/bin/sh
# test_install.sh — `make install DESTDIR=...` gives the layout of DESIGN §8,
# and what it installs works: the installed warden loads the installed
# plugins, and a plugin built from the installed header and pkg-config file
# alone loads too.
set -eu
: "${top_builddir:?run by make check}" "${MAKE:=make}" "${CC:=cc}"

# In the build tree, not /tmp: the loader refuses world-writable directories.
dest=$(mktemp -d "$top_builddir/tests/install-XXXXXX")
trap 'rm -rf "$dest"' EXIT
chmod 755 "$dest"

fail() { echo "FAIL: $*" >&2; exit 1; }

$MAKE -s -C "$top_builddir" install DESTDIR="$dest" >"$dest.log" 2>&1 ||
	{ cat "$dest.log" >&2; rm -f "$dest.log"; fail "make install"; }
rm -f "$dest.log"

bin=$(find "$dest" -path '*/bin/warden' -type f)
[ -n "$bin" ] || fail "no bin/warden installed"
prefix=$(dirname "$(dirname "$bin")")
[ -x "$bin" ] || fail "bin/warden is not executable"
[ -f "$prefix/include/warden/plugin.h" ] || fail "no include/warden/plugin.h"
[ -f "$prefix/lib/pkgconfig/warden-plugin.pc" ] || fail "no lib/pkgconfig/warden-plugin.pc"
[ -f "$prefix/etc/warden/warden.ini" ] || fail "no etc/warden/warden.ini"
cmp -s "$prefix/etc/warden/warden.ini" "$top_srcdir/conf/warden.ini" ||
	fail "installed warden.ini differs from conf/warden.ini"
for page in man1/warden.1 man5/warden.ini.5 man7/warden-plugin.7; do
	[ -f "$prefix/share/man/$page" ] || fail "no share/man/$page"
done
plugins="$prefix/lib/warden/plugins"
[ -d "$plugins" ] || fail "no lib/warden/plugins"
if find "$dest" -name '*.la' | grep -q .; then
	find "$dest" -name '*.la' >&2
	fail ".la files installed"
fi
if find "$dest" -name 'zoo_*' | grep -q .; then
	fail "test plugins installed"
fi
"$bin" --version | grep -q '^warden ' || fail "installed warden --version"

# A plugin author's view: the installed header and .pc file are enough.
cflags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest" \
	pkg-config --cflags warden-plugin)
case "$cflags" in *"$prefix/include"*) ;; *) fail "pkg-config --cflags: $cflags" ;; esac
cat >"$dest/mine.c" <<'C'
#include <stddef.h>
#include <warden/plugin.h>
static int instance;
static void *my_open(const struct warden_open_args *a, char *e, size_t n)
{ (void)a; (void)e; (void)n; return &instance; }
static void my_close(void *s) { (void)s; }
static int my_decide(void *s, const struct warden_request *r, char *e, size_t n)
{ (void)s; (void)r; (void)e; (void)n; return WARDEN_DECISION_DELEGATE; }
WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "mine", .version = "0.1",
	.open = my_open, .close = my_close, .decide = my_decide,
};
C
# shellcheck disable=SC2086
$CC -shared -fPIC $cflags -o "$dest/mine.so" "$dest/mine.c" || fail "building a plugin from the installed header"
chmod 644 "$dest/mine.so"

cfg="$dest/warden.ini"
{
	printf '[warden]\nplugin_dir = %s\n' "$plugins"
	printf '[answerer mine]\nplugin = %s/mine.so\n' "$dest"
	for so in "$plugins"/*.so; do
		[ -e "$so" ] || continue
		name=$(basename "$so" .so)
		case $name in
		exec|tty|ffi|rules) kind=answerer ;;
		*) kind=backend ;;
		esac
		printf '[%s %s]\nplugin = %s\n' "$kind" "$name" "$name"
	done
} >"$cfg"
chmod 644 "$cfg"
"$bin" --config "$cfg" plugins --json >"$dest/plugins.json" || fail "installed warden plugins"
python3 - "$dest/plugins.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
mine = [p for p in d["plugins"] if p["instance"] == "mine"][0]
assert mine["status"] == "loaded" and mine["name"] == "mine", mine
for p in d["plugins"]:
    # Installed plugins are found and valid; whether they can open here
    # (their helpers, the kernel, an answerer's required keys) is their
    # own tests' business.
    assert p["status"] in ("loaded", "failed"), p
PY
echo "ok"

#!/bin/sh
# test_plugin_cxx.sh — plugin.h from C++ and from strict C: the header
# compiles without a warning as C++11, 14, 17, 20 and 23 and as C99, C11,
# C17 and C2x under -Wall -Wextra -pedantic -Werror, with every macro an
# author uses (the two initializer macros, WARDEN_PLUGIN_EXPORT, every
# _HAS macro, WARDEN_OPEN_ARGS_KV, WARDEN_PLUGIN_ERR); a descriptor defined
# with WARDEN_PLUGIN_EXPORT is the object's one exported symbol, unmangled,
# and that object loads in warden (real dlopen).  C++20 designated
# initializers with the header macro work too.  (The C++ answerer template
# is built, loaded and asked in tests/test_plugin_examples.sh.)
set -eu
: "${top_srcdir:?}" "${top_builddir:?}" "${WARDEN:?run by make check}"
CXX=${CXX:-g++}
CC=${CC:-cc}

dir=$(mktemp -d "$top_builddir/tests/plugin-cxx-XXXXXX")
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
unset WARDEN_SESSION WARDEN_CONFIG
fail=0
bad() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok: $*"; }
command -v "${CXX%% *}" >/dev/null 2>&1 || { echo "FAIL: no C++ compiler ($CXX): apt-get install g++"; exit 1; }

inc=-I$top_srcdir/plugin-api

# Every macro of the header, in one translation unit that is both C and C++.
cat >"$dir/all.c" <<'EOF'
#include <stdio.h>
#include <warden/plugin.h>

static int state_;

static void *o_(const struct warden_open_args *a, char *err, size_t errlen)
{
	size_t i;
	unsigned lines = 0;

	for (i = 0; i < a->kv_count; i++)
		lines += WARDEN_OPEN_ARGS_KV(a, i)->line;
	if (WARDEN_KV_HAS(a, line) && WARDEN_OPEN_ARGS_HAS(a, timeout_ms) &&
	    a->timeout_ms < 0 && lines == 0) {
		WARDEN_PLUGIN_ERR(err, errlen, "%s: odd", a->instance);
		return NULL;
	}
	return &state_;
}

static void c_(void *s) { (void)s; }

static int d_(void *s, const struct warden_request *r, char *err, size_t errlen)
{
	(void)s;
	if (WARDEN_REQUEST_HAS(r, cwd) && r->cwd[0] == '\0')
		WARDEN_PLUGIN_ERR(err, errlen, "no cwd for %s", r->tool);
	return WARDEN_DECISION_DELEGATE;
}

static int p_(void *s, int mode, struct warden_probe *out)
{
	(void)s; (void)mode; (void)out;
	return 0;
}

static int p2_(void *s, int mode, struct warden_probe2 *out)
{
	(void)s; (void)mode;
	if (WARDEN_PROBE2_HAS(out, network_enforcement))
		out->network_enforcement = WARDEN_ENFORCEMENT_FULL;
	return 0;
}

static int cf_(void *s, const char *const *argv, size_t argc,
               const struct warden_policy *pol, struct warden_confine_out *out,
               char *err, size_t errlen)
{
	(void)s; (void)argv; (void)argc;
	if (WARDEN_POLICY_HAS(pol, network) && WARDEN_CONFINE_OUT_HAS(out, denial_message))
		out->denial_message[0] = '\0';
	WARDEN_PLUGIN_ERR(err, errlen, "confines nothing");
	return -1;
}

static const char *const denials_[] = { "denied" };
static const char *const fatal_[] = { "fatal" };
static const struct warden_runner_rule rules_[] = { { NULL, 0, fatal_, 1, NULL, 0 } };

const struct warden_plugin backend_ =
	WARDEN_PLUGIN_BACKEND_INIT("b", "1", "a backend", o_, c_, p_, p2_, cf_,
	                           denials_, 1, rules_, 1);

int rule_stride_(void)
{
	return (int)WARDEN_RUNNER_RULE_STRIDE(&backend_) +
	       WARDEN_RUNNER_RULE_HAS(&backend_, n_informational_lines) +
	       WARDEN_PLUGIN_HAS(&backend_, probe2);
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin =
	WARDEN_PLUGIN_ANSWERER_INIT("cxx-all", "1.0", NULL, o_, c_, d_);
EOF
cp "$dir/all.c" "$dir/all.cc"

# C++20 also takes the C way, designated initializers in declaration
# order after WARDEN_PLUGIN_HEADER_INIT; g++ -Wextra then warns about each
# field left out (every one a later minor appends, too), which is why the
# documentation points C++ at the INIT macros.
cat >"$dir/designated.cc" <<'EOF'
#include <warden/plugin.h>
static int s_;
static void *o_(const struct warden_open_args *, char *, size_t) { return &s_; }
static void c_(void *) {}
static int d_(void *, const struct warden_request *, char *, size_t) { return WARDEN_DECISION_REJECTED; }
WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "cxx-designated", .version = "1.0", .description = nullptr,
	.open = o_, .close = c_, .decide = d_,
};
EOF

exports() { nm -D --defined-only "$1" | awk '$3 !~ /^_/ { print $3 }' | tr '\n' ' '; }

for std in c++11 c++14 c++17 c++20 c++23; do
	# shellcheck disable=SC2086
	if $CXX -std=$std -Wall -Wextra -pedantic -Werror -fvisibility=hidden \
		-shared -fPIC $inc -o "$dir/all-$std.so" "$dir/all.cc" >"$dir/err" 2>&1; then
		[ "$(exports "$dir/all-$std.so")" = "warden_plugin " ] &&
			ok "$std: clean; exports only warden_plugin, unmangled" ||
			bad "$std: exports '$(exports "$dir/all-$std.so")', not only warden_plugin"
	else
		cat "$dir/err"
		bad "plugin.h does not compile cleanly as $std"
	fi
done
# shellcheck disable=SC2086
$CXX -std=c++20 -Wall -Wextra -Wno-missing-field-initializers -pedantic -Werror \
	-fvisibility=hidden -shared -fPIC $inc \
	-o "$dir/designated.so" "$dir/designated.cc" >"$dir/err" 2>&1 &&
	[ "$(exports "$dir/designated.so")" = "warden_plugin " ] &&
	ok "c++20: designated initializers after WARDEN_PLUGIN_HEADER_INIT" ||
	{ cat "$dir/err"; bad "c++20 designated initializers"; }
for std in c99 c11 c17 c2x; do
	# shellcheck disable=SC2086
	$CC -std=$std -Wall -Wextra -pedantic -Werror -fvisibility=hidden -shared -fPIC $inc \
		-o "$dir/all-$std.so" "$dir/all.c" >"$dir/err" 2>&1 &&
		ok "$std: clean" || { cat "$dir/err"; bad "plugin.h does not compile cleanly as $std"; }
done

# The C++ objects load in warden and answer.
mkdir "$dir/state"
chmod 700 "$dir/state"
cat >"$dir/w.ini" <<EOF
[warden]
state_dir = $dir/state

[answerer all]
plugin = $dir/all-c++11.so
isolation = inproc

[answerer designated]
plugin = $dir/designated.so
EOF
chmod 600 "$dir/w.ini"
"$WARDEN" --config "$dir/w.ini" plugins >"$dir/out" 2>&1 || bad "warden plugins: $(cat "$dir/out")"
grep -q '^\[answerer all\] loaded; cxx-all 1.0, abi ' "$dir/out" &&
	grep -q '^\[answerer designated\] loaded; cxx-designated 1.0, abi ' "$dir/out" &&
	ok "both C++ objects load" || bad "C++ objects not loaded: $(cat "$dir/out")"
sid=$("$WARDEN" --config "$dir/w.ini" session new --cwd "$dir" | tail -n 1)
st=0
"$WARDEN" --config "$dir/w.ini" --session "$sid" approve --tool t --subject s >"$dir/out" 2>&1 || st=$?
[ "$st" -eq 1 ] && grep -q '^rejected (answerer designated)' "$dir/out" &&
	ok "the first delegated in-process, the second rejected" ||
	bad "approve through the C++ objects: exit $st: $(cat "$dir/out")"

exit "$fail"

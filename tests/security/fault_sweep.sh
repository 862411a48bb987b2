#!/bin/sh
# fault_sweep.sh — allocation failure at the Nth call, N swept across one
# whole request, and ENOSPC / EIO on the session log append, through the
# real command line (tests/security/fault.c, by LD_PRELOAD).
#
# For every N: no crash (no signal, no sanitizer report), either success
# with the effect in the log or a refusal with a "warden: " message, and
# the log still replays, holding the state before or the state after.
#
#   fault_sweep.sh            the sweeps of `make check` (every N)
# Needs the plain build: under ASan the allocator is ASan's and a preload
# cannot take it over; the sanitizer build says so and skips (exit 77).
set -eu
: "${WARDEN:?run by make check}" "${top_builddir:?run by make check}"

shim="$top_builddir/tests/security/.libs/fault.so"
if ldd "$WARDEN" 2>/dev/null | grep -q libasan; then
	echo "SKIP: this is the sanitizer build: ASan owns the allocator, the fault shim cannot replace it; the plain build runs these sweeps"
	exit 77
fi
[ -f "$shim" ] || { echo "FAIL: $shim not built"; exit 1; }

dir=$(mktemp -d "$top_builddir/tests/security/fault-XXXXXX")
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
unset WARDEN_CONFIG WARDEN_SESSION
export XDG_CONFIG_HOME="$dir/xdg" XDG_STATE_HOME="$dir/state"
mkdir -p "$dir/ws"

fail() { echo "FAIL: $*" >&2; exit 1; }

id=$("$WARDEN" session new --cwd "$dir/ws" | tail -n 1)
"$WARDEN" --session "$id" mode set read-only >/dev/null
cp -a "$dir/state" "$dir/pristine"
log=$(find "$dir/pristine" -name "$id.jsonl")
restore() { rm -rf "$dir/state"; cp -a "$dir/pristine" "$dir/state"; }
mode_now() { "$WARDEN" session state "$id" --json | /usr/bin/python3 -c \
	'import json,sys; print(json.load(sys.stdin)["mode"]["value"])'; }

# sweep NAME AFTER-CHECK CMD...: AFTER-CHECK is a shell function given the
# exit status, run after each faulted run to judge the state left behind.
sweep() {
	name=$1 check=$2; shift 2
	restore
	rm -f "$dir/count"
	WARDEN_FAULT_COUNT="$dir/count" LD_PRELOAD="$shim" "$@" >/dev/null 2>&1 ||
		fail "$name: does not succeed without a fault"
	total=$(head -n 1 "$dir/count")
	[ "$total" -gt 10 ] || fail "$name: only $total allocations counted: is the shim working?"
	refused=0 n=1
	while [ "$n" -le "$total" ]; do
		restore
		st=0
		WARDEN_FAULT_ALLOC=$n LD_PRELOAD="$shim" "$@" >"$dir/out" 2>"$dir/err" || st=$?
		if [ "$st" -ge 128 ] || grep -qE 'Sanitizer|Segmentation|core dumped|Aborted' "$dir/err"; then
			cat "$dir/err" >&2; fail "$name: allocation $n of $total: crashed (status $st)"
		fi
		if [ "$st" -ne 0 ]; then
			refused=$((refused + 1))
			grep -q '^warden: ' "$dir/err" ||
				{ cat "$dir/err" >&2; fail "$name: allocation $n: refused (status $st) without a warden: message"; }
		fi
		"$check" "$st" || fail "$name: allocation $n of $total: state after status $st is wrong"
		n=$((n + 1))
	done
	echo "ok: $name: $total allocations swept, $refused refused cleanly, the rest succeeded"
}

after_mode_set() { # the log replays; success means the new mode is there
	m=$(mode_now) || { echo "log does not replay" >&2; return 1; }
	case $1:$m in
	0:workspace-write) return 0 ;;
	0:*) echo "success claimed, mode is $m" >&2; return 1 ;;
	*:read-only|*:workspace-write) return 0 ;;
	esac
	echo "mode is $m" >&2; return 1
}
after_preset() {
	"$WARDEN" session state "$id" >/dev/null || { echo "log does not replay" >&2; return 1; }
	[ "$1" -ne 0 ] || "$WARDEN" --session "$id" preset current | grep -q danger-full-access
}
after_new() { # every session left behind replays
	for f in $(find "$dir/state" -name '*.jsonl'); do
		s=$(basename "$f" .jsonl)
		"$WARDEN" session state "$s" >/dev/null 2>&1 || { echo "session $s does not replay" >&2; return 1; }
	done
}
after_nothing() { return 0; }

sweep "mode set (one append)" after_mode_set "$WARDEN" --session "$id" mode set workspace-write
sweep "preset select (up to three appends)" after_preset "$WARDEN" --session "$id" preset select danger-full-access
sweep "session new" after_new "$WARDEN" session new --cwd "$dir/ws"
sweep "config check" after_nothing "$WARDEN" config check

# --- a full disk and I/O errors on the append ----------------------------
for mode in enospc eio fsync-eio; do
	restore
	before=$(sha256sum <"$(find "$dir/state" -name "$id.jsonl")")
	st=0
	WARDEN_FAULT_LOG=$mode LD_PRELOAD="$shim" "$WARDEN" --session "$id" mode set workspace-write \
		>"$dir/out" 2>"$dir/err" || st=$?
	[ "$st" -eq 74 ] || { cat "$dir/err" >&2; fail "$mode: exit $st, not 74"; }
	grep -qE "^warden: .*(cannot append|cannot fsync).*$id.jsonl" "$dir/err" ||
		{ cat "$dir/err" >&2; fail "$mode: the message does not name the log"; }
	after=$(sha256sum <"$(find "$dir/state" -name "$id.jsonl")")
	[ "$before" = "$after" ] || fail "$mode: the log changed (a partial line left behind?)"
	[ "$(mode_now)" = read-only ] || fail "$mode: the refused mode took effect"
	echo "ok: $mode on the append: refused (74), log unchanged, replays"
done

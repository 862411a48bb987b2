#!/bin/sh
# fault_sweep.sh — allocation failure at the Nth call, N swept across one
# whole request, and ENOSPC / EIO on the session log append, through the
# real command line (tests/security/fault.c, by LD_PRELOAD).
#
# N is each allocation whose call stack is new in the request (the first
# of a loop's turns stands for the rest; FAULT_EVERY=1 fails every N).
# For every N: no crash (no signal, no sanitizer report), either success
# with the effect in the log or a refusal with a "warden: " message, and
# the log still replays, holding the state before or the state after.
#
# The sweeps come in four parts, each a test of its own so that `make -j
# check` runs them side by side (a part is a few hundred runs of warden):
#
#   fault_sweep_log.sh       session state changes: mode set, preset
#                            select, session new
#   fault_sweep_read.sh      requests that change nothing: config check,
#                            session state/show, preset list, plugins,
#                            confine (bwrap and landlock)
#   fault_sweep_approve.sh   approve: allowed by a rule, and allowed by none
#   fault_sweep_run.sh       run (bwrap, workspace-write), then ENOSPC / EIO
#                            on the append
#
# Each sets FAULT_PART and sources this file; run directly (FAULT_PART
# unset), it does every part, every N.
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
part() { case ${FAULT_PART:-all} in all|"$1") return 0 ;; esac; return 1; }

id=$("$WARDEN" session new --cwd "$dir/ws" | tail -n 1)
"$WARDEN" --session "$id" mode set read-only >/dev/null
cp -a "$dir/state" "$dir/pristine"
# The log, in the pristine copy and in the state a run works on (found
# once: each process less per allocation counts, hundreds of times).
log=$(find "$dir/pristine" -name "$id.jsonl")
state_log=$dir/state/${log#"$dir/pristine/"}
oldsize=$(wc -c <"$log")
restore() { rm -rf "$dir/state"; cp -a "$dir/pristine" "$dir/state"; }
# The mode the log replays to (the text form's "mode: VALUE (SOURCE)"
# line; no interpreter started per allocation).
mode_now() {
	st_text=$("$WARDEN" session state "$id") || return 1
	printf '%s\n' "$st_text" | sed -n 's/^mode: \([a-z-]*\) .*/\1/p'
}

# sweep NAME AFTER-CHECK CMD...: AFTER-CHECK is a shell function given the
# exit status, run after each faulted run to judge the state left behind.
sweep() {
	name=$1 check=$2; shift 2
	restore
	rm -f "$dir/count"
	st=0
	WARDEN_FAULT_COUNT="$dir/count" WARDEN_FAULT_SITES="$dir/sites" LD_PRELOAD="$shim" "$@" >"$dir/ref" 2>&1 || st=$?
	if [ "${sweep_expect_fail:-0}" = 1 ]; then
		[ "$st" -ne 0 ] || fail "$name: succeeds without a fault"
	else
		[ "$st" -eq 0 ] || fail "$name: does not succeed without a fault (status $st)"
	fi
	total=$(head -n 1 "$dir/count")
	[ "$total" -gt 10 ] || fail "$name: only $total allocations counted: is the shim working?"
	# The allocations to fail: the first of each distinct call stack
	# (fault.c, WARDEN_FAULT_SITES), or every one with FAULT_EVERY=1.
	if [ "${FAULT_EVERY:-0}" = 1 ] || [ "$(head -n 1 "$dir/sites")" = all ]; then
		seq 1 "$total" >"$dir/sites"
	fi
	sites=$(wc -l <"$dir/sites")
	[ "$sites" -gt 10 ] && [ "$(tail -n 1 "$dir/sites")" -le "$total" ] ||
		fail "$name: $sites sites listed for $total allocations: is the shim working?"
	refused=0
	for n in $(cat "$dir/sites"); do
		restore
		st=0
		WARDEN_FAULT_ALLOC=$n LD_PRELOAD="$shim" "$@" >"$dir/out" 2>"$dir/err" || st=$?
		if [ "$st" -ge 128 ] || grep -qE 'Sanitizer|Segmentation|core dumped|Aborted' "$dir/err"; then
			cat "$dir/err" >&2; fail "$name: allocation $n of $total: crashed (status $st)"
		fi
		if [ "$st" -ne 0 ]; then
			refused=$((refused + 1))
			# 1-63: an outcome (approve) or the command's own status (run);
			# 64 and above: an error, which must say what went wrong.
			[ "$st" -lt 64 ] || grep -q '^warden: ' "$dir/err" ||
				{ cat "$dir/err" >&2; fail "$name: allocation $n: refused (status $st) without a warden: message"; }
		elif [ "${same_output:-0}" = 1 ] && ! cmp -s "$dir/ref" "$dir/out"; then
			diff "$dir/ref" "$dir/out" | head -20 >&2
			fail "$name: allocation $n: succeeded with different output (partial or wrong)"
		fi
		"$check" "$st" || fail "$name: allocation $n of $total: state after status $st is wrong"
	done
	echo "ok: $name: $sites of $total allocations failed in turn (each distinct call stack), $refused refused cleanly, the rest succeeded"
}

# The log before the request is a prefix of the log after it (nothing
# lost, nothing rewritten), and a refused request added nothing.
log_kept() { # log_kept STATUS
	cmp -s -n "$oldsize" "$log" "$state_log" || { echo "the old log is not kept whole" >&2; return 1; }
	[ "$1" -eq 0 ] || [ "$(wc -c <"$state_log")" -eq "$oldsize" ] || { echo "a refused request left lines" >&2; return 1; }
}
after_mode_set() { # the log replays; success means the new mode is there
	log_kept "$1" || return 1
	m=$(mode_now) || { echo "log does not replay" >&2; return 1; }
	case $1:$m in
	0:workspace-write) return 0 ;;
	0:*) echo "success claimed, mode is $m" >&2; return 1 ;;
	*:read-only|*:workspace-write) return 0 ;;
	esac
	echo "mode is $m" >&2; return 1
}
after_preset() {
	log_kept "$1" || return 1
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

if part log; then
	sweep "mode set (one append)" after_mode_set "$WARDEN" --session "$id" mode set workspace-write
	sweep "preset select (up to three appends)" after_preset "$WARDEN" --session "$id" preset select danger-full-access
	sweep "session new" after_new "$WARDEN" session new --cwd "$dir/ws"
fi
if part read; then
	same_output=1
	sweep "config check --json" after_nothing "$WARDEN" config check --json
	sweep "session state --json" after_nothing "$WARDEN" session state "$id" --json
	sweep "session show --json" after_nothing "$WARDEN" session show "$id" --json
	sweep "session show" after_nothing "$WARDEN" session show "$id"
	sweep "preset list --json" after_nothing "$WARDEN" --session "$id" preset list --json
	same_output=0

	# confine: config, loading both backends, the probe (a real bwrap run),
	# the confined argv and its JSON.  It changes no state: success or a
	# clean refusal is all there is to judge.
	# One backend per config: with two, a probe that fails for want of memory
	# makes the next backend confine (correctly, but the output differs).
	printf '[warden]\n[backend bwrap]\nplugin = %s/plugins/bwrap/.libs/bwrap.so\n' \
		"$top_builddir" >"$dir/bwrap.ini"
	printf '[warden]\n[backend landlock]\nplugin = %s/plugins/landlock/.libs/landlock.so\nrunner = %s/plugins/landlock/warden-landlock-run\n' \
		"$top_builddir" "$top_builddir" >"$dir/landlock.ini"
	cat "$dir/bwrap.ini" >"$dir/sbx.ini"; tail -n +2 "$dir/landlock.ini" >>"$dir/sbx.ini"
	chmod 644 "$dir/bwrap.ini" "$dir/landlock.ini" "$dir/sbx.ini"
	same_output=1
	sweep "plugins --json" after_nothing "$WARDEN" --config "$dir/sbx.ini" plugins --json
	sweep "confine --json (bwrap)" after_nothing "$WARDEN" --config "$dir/bwrap.ini" confine --json --mode workspace-write --root "$dir/ws" -- /bin/echo 'a b'
	sweep "confine (landlock)" after_nothing "$WARDEN" --config "$dir/landlock.ini" confine --mode read-only --root "$dir/ws" -- /bin/echo 'a b'
	same_output=0
fi

if part approve; then
	# approve: config, the rules answerer (in process), both audit appends.
	# Exit 0 (allowed-once) only with approval/asked and approval/decided of
	# one request id in the log; any other outcome or refusal leaves the old
	# log whole and replaying.
	printf '[warden]\n[answerer r]\nplugin = %s/plugins/rules/.libs/rules.so\nisolation = inproc\nallow = bash:ls*\n' \
		"$top_builddir" >"$dir/approve.ini"
	chmod 644 "$dir/approve.ini"
	after_approve() {
		# Outcomes are recorded; an error after approval/asked was committed
		# leaves that line alone (the request failed, nothing was decided).
		log_kept 0 || return 1
		"$WARDEN" session state "$id" >/dev/null || { echo "log does not replay" >&2; return 1; }
		[ "$1" -ne 0 ] || /usr/bin/python3 - "$state_log" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
asked = [e for e in ev if e["type"] == "approval/asked"]
decided = [e for e in ev if e["type"] == "approval/decided"]
assert len(asked) == 1 and len(decided) == 1, (asked, decided)
assert asked[0]["request_id"] == decided[0]["request_id"]
assert decided[0]["outcome"] == "allowed-once", decided[0]
PY
	}
	sweep "approve (rules, inproc)" after_approve "$WARDEN" --config "$dir/approve.ini" --session "$id" approve --tool bash --subject 'ls -l'
	# A request no rule allows: no failure anywhere may turn it into a yes.
	after_never_yes() {
		log_kept 0 || return 1
		[ "$1" -ne 0 ] || { echo "allowed-once for a request no answerer allows" >&2; return 1; }
	}
	sweep_expect_fail=1
	sweep "approve of what no rule allows" after_never_yes "$WARDEN" --config "$dir/approve.ini" --session "$id" approve --tool bash --subject 'rm -rf /'
	sweep_expect_fail=0
fi

if part run; then
	# run: config, policy, the probe and confine (bwrap), spawn, classify,
	# the sandbox/run append.  Exit 0 only if the command really wrote its
	# file inside the workspace and the run is in the log.
	printf '[warden]\n[backend bwrap]\nplugin = %s/plugins/bwrap/.libs/bwrap.so\nlauncher = %s/plugins/bwrap/warden-bwrap-exec\n' \
		"$top_builddir" "$top_builddir" >"$dir/run.ini"
	chmod 644 "$dir/run.ini"
	"$WARDEN" --session "$id" mode set workspace-write >/dev/null
	cp -a "$dir/state" "$dir/pristine.run"
	rm -rf "$dir/pristine"; mv "$dir/pristine.run" "$dir/pristine"
	oldsize=$(wc -c <"$log")
	after_run() {
		# A run that started is recorded whatever its status: prefix only.
		log_kept 0 || return 1
		"$WARDEN" session state "$id" >/dev/null || { echo "log does not replay" >&2; return 1; }
		if [ "$1" -eq 0 ]; then
			[ "$(cat "$dir/ws/out" 2>/dev/null)" = written ] || { echo "exit 0 but the file is not written" >&2; return 1; }
			grep -q '"type":"sandbox/run"' "$state_log" ||
				{ echo "exit 0 but no sandbox/run event" >&2; return 1; }
		fi
		rm -f "$dir/ws/out"
	}
	sweep "run (bwrap, workspace-write)" after_run "$WARDEN" --config "$dir/run.ini" --session "$id" run -- /bin/sh -c "echo written > '$dir/ws/out'"

	# --- a full disk and I/O errors on the append ----------------------------
	for mode in enospc eio fsync-eio; do
		restore
		before=$(sha256sum <"$state_log")
		st=0
		WARDEN_FAULT_LOG=$mode LD_PRELOAD="$shim" "$WARDEN" --session "$id" mode set read-only \
			>"$dir/out" 2>"$dir/err" || st=$?
		[ "$st" -eq 74 ] || { cat "$dir/err" >&2; fail "$mode: exit $st, not 74"; }
		grep -qE "^warden: .*(cannot append|cannot fsync).*$id.jsonl" "$dir/err" ||
			{ cat "$dir/err" >&2; fail "$mode: the message does not name the log"; }
		after=$(sha256sum <"$state_log")
		[ "$before" = "$after" ] || fail "$mode: the log changed (a partial line left behind?)"
		[ "$(mode_now)" = workspace-write ] || fail "$mode: the refused mode took effect"
		echo "ok: $mode on the append: refused (74), log unchanged, replays"
	done
fi

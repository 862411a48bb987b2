#!/bin/sh
# roots.sh — writable roots beside the workspace root and a git worktree
# as the root, through a real `warden run` with bwrap and with Landlock,
# both confining modes, as root and as a throwaway unprivileged user:
# a second root is written in workspace-write and nothing in read-only;
# its protected paths hold against a direct write, `mv .git x`, a hook
# planted and a parent renamed (bwrap; Landlock names them in detail);
# `git commit` in a worktree succeeds, while a hook or a config line
# planted in the main repository's git directory never reaches the host;
# a worktree whose commondir was pointed elsewhere gets nothing; the
# session knob (roots add, remove, list, session state) and the refusals
# of a bad root.  Each case checks the host afterwards.
. "$top_srcdir/tests/run/lib.sh"

GIT="git -c user.email=t@example.org -c user.name=t -c init.defaultBranch=main"
PFX=

# as WHO CMD...: runs CMD as root (WHO empty) or as the user WHO.
as() {
	who=$1
	shift
	if [ -z "$who" ]; then
		"$@"
	else
		setpriv --reuid="$who" --regid="$who" --init-groups \
			env HOME="$BASE/home" XDG_CONFIG_HOME="$BASE/home/.config" "$@"
	fi
}

# wrun WHO CONFIG ARGS...: warden in $BASE/ws as WHO; $rc, $T/out, $T/err.
wrun() {
	who=$1 c=$2
	shift 2
	(cd "$BASE/ws" && as "$who" "$WARDEN" --config "$BASE/$c.ini" "$@") \
		>"$T/out" 2>"$T/err" </dev/null
	rc=$?
}

# setup WHO: a tree in $T/WHO (owned by WHO): ws (a worktree of main),
# second (a plain root), main (the repository), state, outside.
setup() {
	who=$1
	BASE=$T/u${who:-root}
	mkdir -p "$BASE/second/sub" "$BASE/state" "$BASE/outside" "$BASE/home"
	chmod 700 "$BASE/state"
	echo second >"$BASE/second/sub/file"
	[ -z "$who" ] || chown -R "$who:$who" "$BASE"
	as "$who" $GIT init -q "$BASE/main" &&
		as "$who" $GIT -C "$BASE/main" commit -q --allow-empty -m init &&
		as "$who" $GIT -C "$BASE/main" worktree add -q "$BASE/ws" 2>/dev/null &&
		as "$who" $GIT -C "$BASE/second" init -q . ||
		{ fail "${who:-root}: git setup"; return 1; }
	cp "$BASE/main/.git/config" "$BASE/config.before"
}

# cfg WHO NAME MODE BACKEND: $BASE/NAME.ini with second as writable root.
cfg() {
	who=$1 name=$2 mode=$3 b=$4
	{
		printf '[warden]\ndefault_mode = %s\nstate_dir = %s\nworkspace_root = %s\nwritable_roots = %s\n' \
			"$mode" "$BASE/state" "$BASE/ws" "$BASE/second"
		case $b in
		bwrap) printf '[backend bwrap]\nplugin = %s\nlauncher = %s\n' "$BWRAP_SO" \
			"$top_builddir/plugins/bwrap/warden-bwrap-exec" ;;
		landlock) printf '[backend landlock]\nplugin = %s\nrunner = %s\n' "$LL_SO" "$RUNNER" ;;
		esac
	} >"$BASE/$name.ini"
	chmod 644 "$BASE/$name.ini"
}

hooks_clean() {
	what=$1
	for d in "$BASE/main/.git/hooks" "$BASE/second/.git/hooks"; do
		if ls "$d" | grep -qv '\.sample$'; then
			fail "$what: a hook reached the host in $d: $(ls "$d" | grep -v '\.sample$')"
			return
		fi
	done
	cmp -s "$BASE/main/.git/config" "$BASE/config.before" &&
		[ -d "$BASE/main/.git/hooks" ] && [ -d "$BASE/second/.git" ] &&
		[ ! -e "$BASE/second/x" ] && [ ! -e "$BASE/main/x" ] &&
		ok "$what: no hook, config line or rename reached the host" ||
		fail "$what: the host changed: $(ls -a "$BASE/main" "$BASE/second" "$BASE/main/.git" | tr '\n' ' ')"
}

roots_for() {
	who=$1
	setup "$who" || return
	for b in bwrap landlock; do
		for mode in read-only workspace-write; do
			c=$b-$mode
			cfg "$who" "$c" "$mode" "$b"
			w="${who:+uid $who }$b $mode"

			# The second root: written in workspace-write only.
			wrun "$who" "$c" run --json -c "echo new >'$BASE/second/sub/new'; echo x >'$BASE/outside/f'"
			if [ "$mode" = workspace-write ]; then
				[ "$(cat "$BASE/second/sub/new" 2>/dev/null)" = new ] &&
					ok "$w: a write in the second root reached the host" ||
					fail "$w: second/sub/new on the host: $(cat "$T/err")"
				case $(field roots) in
				*"'$BASE/second'"*"'kind': 'plain'"*"'$BASE/main/.git'"*"'git-common-dir'"*"'worktree'"*)
					ok "$w: run --json names the second root and the worktree's git directory" ;;
				*) fail "$w: roots $(field roots)" ;;
				esac
			else
				[ ! -e "$BASE/second/sub/new" ] &&
					ok "$w: nothing written in the second root in read-only" ||
					fail "$w: read-only wrote second/sub/new"
			fi
			[ ! -e "$BASE/outside/f" ] && ok "$w: nothing written outside the roots" ||
				fail "$w: outside/f exists"
			rm -f "$BASE/second/sub/new"

			# git commit in the worktree.
			n0=$(as "$who" git -C "$BASE/ws" rev-list --count HEAD)
			echo "$c" >"$BASE/ws/f-$c"
			[ -z "$who" ] || chown "$who" "$BASE/ws/f-$c"
			wrun "$who" "$c" run --json -c "$GIT add f-$c && $GIT commit -q -m '$c'"
			n1=$(as "$who" git -C "$BASE/ws" rev-list --count HEAD)
			if [ "$mode" = workspace-write ]; then
				expect "$w: git commit in the worktree" 0 class=ok &&
					{ [ "$n1" = $((n0 + 1)) ] && ok "$w: the commit is in the host's repository" ||
					  fail "$w: commits $n0 -> $n1"; }
			else
				[ "$rc" != 0 ] && [ "$n1" = "$n0" ] &&
					ok "$w: no commit in read-only (exit $rc, class $(field class))" ||
					fail "$w: read-only commit: exit $rc, commits $n0 -> $n1"
			fi

			# Every route to a hook or a config line, in both roots.
			for attack in \
				"echo evil >'$BASE/main/.git/hooks/pre-commit'" \
				"echo '[core] hooksPath=/x' >>'$BASE/main/.git/config'" \
				"mv '$BASE/main/.git/hooks' '$BASE/main/.git/h' && mkdir '$BASE/main/.git/hooks' && echo evil >'$BASE/main/.git/hooks/pre-commit'" \
				"mv '$BASE/main/.git' '$BASE/main/x'" \
				"rm -rf '$BASE/main/.git/hooks'" \
				"echo '$BASE/second' >'$BASE/main/.git/worktrees/ws/commondir'" \
				"mv '$BASE/second/.git' '$BASE/second/x' && mkdir -p '$BASE/second/.git/hooks' && echo evil >'$BASE/second/.git/hooks/pre-commit'" \
				"echo evil >'$BASE/second/.git/hooks/pre-commit'" \
				"echo '[core] hooksPath=/x' >>'$BASE/second/.git/config'"; do
				wrun "$who" "$c" run --json -c "$attack"
				if [ "$b" = landlock ] && [ "$mode" = workspace-write ] &&
				   case $attack in *second*) true ;; *commondir*) true ;; *) false ;; esac; then
					# Landlock cannot hold a path below a writable
					# root: partial, and it says so.
					case $(field detail) in
					*"protected paths writable"*) ok "$w: landlock names what it cannot hold" ;;
					*) fail "$w: landlock detail $(field detail)" ;;
					esac
					rm -rf "$BASE/second/x" "$BASE/second/.git"
					as "$who" git -C "$BASE/second" init -q .
					cp "$BASE/config.before" "$BASE/main/.git/config"
					echo ../.. >"$BASE/main/.git/worktrees/ws/commondir"
					[ -z "$who" ] || chown -R "$who:$who" "$BASE/main/.git" "$BASE/second"
					continue
				fi
				[ "$rc" != 0 ] && ok "$w: refused: $attack (class $(field class))" ||
					fail "$w: not refused: $attack"
				hooks_clean "$w: after $attack"
				[ "$(cat "$BASE/main/.git/worktrees/ws/commondir")" = ../.. ] ||
					fail "$w: commondir changed on the host"
			done
		done
	done
	# Pins left by the runs are gone.
	[ ! -e "$BASE/second/.git/config.worktree" ] && [ ! -e "$BASE/main/.git/config.worktree" ] &&
		ok "${who:+uid $who: }no pin left in the roots" ||
		fail "${who:+uid $who: }a pin is left: $(ls -a "$BASE/second/.git" "$BASE/main/.git")"
}

# ---- as root and as a throwaway user ------------------------------------

roots_for ""

USER_NAME=wrdrt$$
far=$(unreachable_by_others)
if [ -n "$far" ]; then
	echo "note: SKIP (unprivileged part): other users cannot search $far, above the build tree; tests/unpriv.sh runs warden as a user from a copy"
elif useradd -M -N -s /bin/sh "$USER_NAME" 2>"$T/useradd.err"; then
	trap 'userdel "$USER_NAME" 2>/dev/null; rm -rf "$T"' EXIT
	roots_for "$(id -u "$USER_NAME")"
else
	echo "SKIP (unprivileged part): useradd failed: $(cat "$T/useradd.err")"
fi

# ---- the session knob and its refusals (bwrap) -----------------------------

BASE=$T/uroot
cfg "" knob workspace-write bwrap
W() { (cd "$BASE/ws" && "$WARDEN" --config "$BASE/knob.ini" "$@") >"$T/out" 2>"$T/err" </dev/null; rc=$?; }
W session new --cwd "$BASE/ws"
id=$(tail -n 1 "$T/out")
mkdir -p "$BASE/third"
W --session "$id" roots add "$BASE/third"
[ "$rc" = 0 ] && grep -q "sandbox/roots" "$BASE/state/$id.jsonl" &&
	ok "roots add writes a sandbox/roots event" || fail "roots add: $(cat "$T/err")"
W --session "$id" session state "$id" --json
case $(cat "$T/out") in
*"$BASE/second"*"$BASE/third"*'"source": "session"'*) ok "session state lists both roots from the session" ;;
*'"source": "session"'*) ok "session state lists the session's roots" ;;
*) fail "session state: $(cat "$T/out")" ;;
esac
W --session "$id" run --json -c "echo t >'$BASE/third/t'"
[ "$(cat "$BASE/third/t" 2>/dev/null)" = t ] && ok "the added root is writable in the next run" ||
	fail "third/t: $(cat "$T/err")"
before=$(wc -l <"$BASE/state/$id.jsonl")
W --session "$id" roots add "$BASE/third/."
after=$(wc -l <"$BASE/state/$id.jsonl")
[ "$rc" = 0 ] && [ "$before" = "$after" ] && grep -q "already recorded; nothing written" "$T/out" &&
	ok "roots add of a root the session has: nothing written, and it says so" ||
	fail "roots add again: exit $rc, lines $before -> $after, $(cat "$T/out" "$T/err")"
W --session "$id" roots remove "$BASE/third"
W --session "$id" run --json -c "echo u >'$BASE/third/u'"
expect "after roots remove, a write there is denied" 1 class=denied denied_path="$BASE/third/u"
[ ! -e "$BASE/third/u" ] && ok "nothing written in the removed root" || fail "third/u exists"
case $(field denial) in
*"warden roots add DIR"*) ok "the denial names warden roots add" ;;
*) fail "denial: $(field denial)" ;;
esac
for bad in / "$BASE/ws" "$BASE/ws/sub" "$BASE" "$BASE/second/sub" "$BASE/nonexistent" /proc/self /proc; do
	mkdir -p "$BASE/ws/sub"
	before=$(wc -l <"$BASE/state/$id.jsonl")
	W --session "$id" roots add "$bad"
	after=$(wc -l <"$BASE/state/$id.jsonl")
	[ "$rc" != 0 ] && [ "$before" = "$after" ] && [ -s "$T/err" ] &&
		ok "roots add $bad refused, nothing logged: $(head -c 120 "$T/err")" ||
		fail "roots add $bad: exit $rc, lines $before -> $after"
done
case $(W --session "$id" roots add /proc/self; cat "$T/err") in
*"is in /proc"*) ok "roots add /proc/self: refused as a process's entry" ;;
*) fail "roots add /proc/self: $(cat "$T/err")" ;;
esac
# The same through a symlink planted beside the workspace.
ln -sfn /proc/self "$BASE/procself"
before=$(wc -l <"$BASE/state/$id.jsonl")
W --session "$id" roots add "$BASE/procself"
[ "$rc" != 0 ] && grep -q "is in /proc" "$T/err" && [ "$before" = "$(wc -l <"$BASE/state/$id.jsonl")" ] &&
	ok "roots add of a symlink to /proc/self: refused, nothing logged" ||
	fail "roots add of a symlink into /proc: exit $rc, $(cat "$T/err")"
rm -f "$BASE/procself"
W session new --cwd /proc/self
[ "$rc" = 64 ] && grep -q "is in /proc" "$T/err" && [ ! -s "$T/out" ] &&
	ok "session new in /proc/self: refused, no session" || fail "session new in /proc: exit $rc, $(cat "$T/out" "$T/err")"
# A root moved behind a symlink: refused, not followed.
W --session "$id" roots add "$BASE/third"
mv "$BASE/third" "$BASE/third.real" && ln -s "$BASE/outside" "$BASE/third"
W --session "$id" run --json -c "echo v >'$BASE/third/v'"
[ "$rc" != 0 ] && [ ! -e "$BASE/outside/v" ] && ok "a root replaced by a symlink is refused" ||
	fail "symlinked root: exit $rc, outside/v $(ls "$BASE/outside")"
rm "$BASE/third" && mv "$BASE/third.real" "$BASE/third"

# ---- a worktree's links pointed elsewhere get nothing -----------------------

mkdir -p "$BASE/fake/worktrees/ws" "$BASE/fake/objects" "$BASE/fake/refs"
echo "ref: refs/heads/main" >"$BASE/fake/HEAD"
cp "$BASE/ws/.git" "$BASE/dotgit.before"
for target in /etc "$BASE/outside" "$BASE/fake"; do
	echo "$target" >"$BASE/main/.git/worktrees/ws/commondir"
	W --session "$id" run --json -c "echo w >'$target/planted' 2>/dev/null; true"
	[ ! -e "$target/planted" ] && ok "commondir -> $target: nothing written there" ||
		{ fail "commondir -> $target: planted"; rm -f "$target/planted"; }
	case $(field roots) in
	*git-common-dir*) fail "commondir -> $target: granted $(field roots)" ;;
	*) ok "commondir -> $target: no git directory granted" ;;
	esac
	case $(field roots_notes) in
	*"worktree $BASE/ws"*) ok "commondir -> $target: the note says why" ;;
	*) fail "commondir -> $target: notes $(field roots_notes)" ;;
	esac
done
echo ../.. >"$BASE/main/.git/worktrees/ws/commondir"
printf 'gitdir: %s/fake/worktrees/ws\n' "$BASE" >"$BASE/ws/.git"
W --session "$id" run --json -c true
case $(field roots) in
*git-common-dir*) fail ".git -> fake: granted $(field roots)" ;;
*) ok ".git pointed at a git directory that does not point back: nothing granted" ;;
esac
cp "$BASE/dotgit.before" "$BASE/ws/.git"

# ---- a root that deny_read keeps unread: session state says what run does ---

printf '[warden]\ndefault_mode = workspace-write\nstate_dir = %s\nworkspace_root = %s\nwritable_roots = %s\n[backend bwrap]\nplugin = %s\nlauncher = %s\n' \
	"$BASE/state" "$BASE/ws" "$BASE/state" "$BWRAP_SO" "$top_builddir/plugins/bwrap/warden-bwrap-exec" >"$BASE/unread.ini"
W2() { (cd "$BASE/ws" && "$WARDEN" --config "$BASE/unread.ini" "$@") >"$T/out" 2>"$T/err" </dev/null; rc=$?; }
W2 session new --cwd "$BASE/ws"
uid=$(tail -n 1 "$T/out")
W2 session state "$uid" --json
case $(cat "$T/out") in
*"$BASE/state lies in"*"keeps unread: a run refuses it"*) ok "session state notes a root that deny_read keeps unread" ;;
*) fail "session state of an unread root: $(cat "$T/out" "$T/err")" ;;
esac
W2 --session "$uid" run -c "echo x >'$BASE/state/planted'"
[ "$rc" = 77 ] && [ ! -e "$BASE/state/planted" ] && grep -q "keeps unread" "$T/err" &&
	ok "and a run there is refused as the note says, nothing written" ||
	fail "run in an unread root: exit $rc, $(cat "$T/err")"

finish

#!/bin/sh
# hostview.sh — the command's view of the host, through a real `warden
# run` with bwrap and with Landlock, both confining modes: the host's
# /tmp readable (a file there, a directory there as the working
# directory), a write to it refused and classified with $TMPDIR named,
# never `ok` and gone; the session's temp area kept across its runs and
# another session's hidden (bwrap) or named (Landlock); a run's own area
# removed after it; the command starting exactly where the result says;
# a write to the protected .git/config (EBUSY) denied with its path.
# Each case checks the host afterwards.
. "$top_srcdir/tests/run/lib.sh"

UIDN=$(id -u)
AREA=/tmp/warden-$UIDN
HOSTDIR=$(mktemp -d /tmp/warden-hostview-XXXXXX)
chmod 755 "$HOSTDIR"
echo "host notes" >"$HOSTDIR/notes"
trap 'rm -rf "$T" "$HOSTDIR"; for s in $SESSIONS; do rm -rf "$AREA/$s"; done' EXIT
SESSIONS=

git -C "$T/ws" init -q . || { echo "FAIL: git init"; exit 1; }
cp "$T/ws/.git/config" "$T/config.before"

for b in bwrap landlock; do
	for mode in read-only workspace-write; do
		c=hv-$b-$mode
		config "$c" "$mode" "$b"
		who="$b $mode"

		# The host's /tmp: a directory there is the working directory,
		# its file is read.
		wr "$c" run --json --cwd "$HOSTDIR" -c 'pwd; cat notes'
		expect "$who: --cwd under the host's /tmp" 0 class=ok cwd="$HOSTDIR" &&
			{ [ "$(head -n 2 "$T/out")" = "$HOSTDIR
host notes" ] && ok "$who: started in $HOSTDIR and read its file" ||
			fail "$who: output $(head -n 2 "$T/out")"; }

		# A write to the host's /tmp: refused, classified, named.
		wr "$c" run --json -c "echo x >'$HOSTDIR/new'"
		expect "$who: a write to the host's /tmp" 1 class=denied denied_path="$HOSTDIR/new"
		[ ! -e "$HOSTDIR/new" ] && ok "$who: nothing reached the host's /tmp" ||
			fail "$who: $HOSTDIR/new exists on the host"
		if [ "$mode" = workspace-write ]; then
			case $(field denial) in
			*'$TMPDIR ('"$AREA/run+"*) ok "$who: the denial names \$TMPDIR" ;;
			*) fail "$who: denial $(field denial)" ;;
			esac
		fi

		# A run without a session: its own area, gone afterwards.
		wr "$c" run --json -c 'echo "tmpdir=$TMPDIR"; echo t >"$TMPDIR/f" && cat "$TMPDIR/f"'
		if [ "$mode" = workspace-write ]; then
			tmp=$(sed -n 's/^tmpdir=//p' "$T/out")
			expect "$who: a run's temp area is writable" 0 class=ok tmp_dir="$tmp" &&
				case $tmp in
				"$AREA/run+"*) ok "$who: TMPDIR is the run's area $tmp" ;;
				*) fail "$who: TMPDIR '$tmp'" ;;
				esac
			[ -n "$tmp" ] && [ ! -e "$tmp" ] && ok "$who: the run's area is removed after it" ||
				fail "$who: the run's area '$tmp' is still there"
		else
			expect "$who: no temp area is writable in read-only" 1 class=denied tmp_dir=None
		fi

		# A session's area: kept across its runs, its files on the host.
		id=$("$WARDEN" --config "$T/$c.ini" session new --cwd "$T/ws" | tail -n 1)
		SESSIONS="$SESSIONS $id"
		"$WARDEN" --config "$T/$c.ini" --session "$id" mode set workspace-write >/dev/null ||
			fail "$who: mode set"
		wr "$c" --session "$id" run --json -c 'echo keep >"$TMPDIR/notes"; echo "tmpdir=$TMPDIR"'
		expect "$who: session: a write in \$TMPDIR" 0 class=ok tmp_dir="$AREA/$id"
		wr "$c" --session "$id" run --json -c 'cat "$TMPDIR/notes"'
		expect "$who: session: the next run reads it" 0 class=ok &&
			{ [ "$(head -n 1 "$T/out")" = keep ] && ok "$who: session: 'keep' read back" ||
			  fail "$who: session: read back '$(head -n 1 "$T/out")'"; }
		[ "$(cat "$AREA/$id/notes" 2>/dev/null)" = keep ] &&
			ok "$who: session: the file is in $AREA/$id on the host" ||
			fail "$who: session: $AREA/$id/notes on the host"

		# Another session's area, from a run without a session.
		wr "$c" run --json -c "cat '$AREA/$id/notes'"
		case $b in
		bwrap)
			expect "$who: another session's area is hidden" 1 class=failed ;;
		landlock)
			if [ "$mode" = workspace-write ]; then
				expect "$who: another session's area is readable, and said so" 0 class=ok enforcement=partial &&
					case $(field detail) in
					*"temp areas in $AREA stay readable"*) ok "$who: detail names it" ;;
					*) fail "$who: detail '$(field detail)'" ;;
					esac
			else
				expect "$who: another session's area is readable (reads are not promised)" 0 class=ok
			fi ;;
		esac

		# Its area as the working directory of another run.
		wr "$c" run --json --cwd "$AREA/$id" -c pwd
		case $b in
		bwrap)
			if [ "$rc" = 69 ] && ! grep -qx "$AREA/$id" "$T/out" &&
				grep -q "working directory $AREA/$id is not visible inside the sandbox" "$T/out" "$T/err"; then
				ok "$who: a hidden working directory is refused, nothing ran"
			else
				fail "$who: hidden cwd: exit $rc: $(cat "$T/out" "$T/err")"
			fi ;;
		landlock)
			expect "$who: the working directory is where the command starts" 0 class=ok cwd="$AREA/$id" &&
				{ [ "$(head -n 1 "$T/out")" = "$AREA/$id" ] && ok "$who: pwd is $AREA/$id" ||
				  fail "$who: pwd '$(head -n 1 "$T/out")'"; } ;;
		esac

		# The protected .git/config (bwrap pins it: EBUSY).
		if [ "$b-$mode" = bwrap-workspace-write ]; then
			wr "$c" run --json -c 'git config core.autocrlf false'
			expect "$who: git config on the protected .git/config" 4 class=denied \
				denied_path="$T/ws/.git/config" escalate_to=danger-full-access
			cmp -s "$T/config.before" "$T/ws/.git/config" &&
				ok "$who: .git/config unchanged on the host" ||
				fail "$who: .git/config changed on the host"
		fi
	done
done

finish

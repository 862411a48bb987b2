#!/bin/sh
# inputlink.sh — an input of warden's own (here its state_dir, where the
# session logs that decide later runs live) named through a symbolic link
# inside the workspace root, at any component of the path, not only the
# last.  Replacing such a link is as good as rewriting the logs: a run
# could point it at logs of its own making and the next run would replay
# a danger-full-access mode from them.  Every link on the way (and the
# links a link's target passes through) is an input: `config check`
# lists each, and a workspace-write run, which could replace them, is
# refused on both backends (a mount cannot pin a link; Landlock cannot
# keep a path read-only inside the writable root); the links on the host
# stay as they were and nothing runs.
. "${top_srcdir:?run by make check}/tests/run/lib.sh"

mkdir -p "$T/realstate/sessions" "$T/ws/d"
chmod 700 "$T/realstate" "$T/realstate/sessions"
# .l1 -> d/l2 (relative) -> the real state directory outside the root.
ln -s d/l2 "$T/ws/.l1"
ln -s "$T/realstate" "$T/ws/d/l2"
MARK=$T/outside/ran

for b in bwrap landlock; do
	for mode in workspace-write read-only; do
		{
			printf '[warden]\ndefault_mode = %s\nstate_dir = %s\nworkspace_root = %s\n' \
				"$mode" "$T/ws/.l1/sessions" "$T/ws"
			case $b in
			bwrap) printf '[backend bwrap]\nplugin = %s\nlauncher = %s\n' "$BWRAP_SO" \
				"$top_builddir/plugins/bwrap/warden-bwrap-exec" ;;
			landlock) printf '[backend landlock]\nplugin = %s\nrunner = %s\n' "$LL_SO" "$RUNNER" ;;
			esac
		} >"$T/il-$b-$mode.ini"
	done
	cp "$T/il-$b-workspace-write.ini" "$T/il-$b.ini"
	wr "il-$b" config check
	for l in "$T/ws/.l1" "$T/ws/d/l2"; do
		if grep -qF "  $l (state_dir" "$T/out"; then
			ok "$b: config check lists the link $l as an input in the root"
		else
			fail "$b: config check does not list $l"
			sed 's/^/  out: /' "$T/out"
		fi
	done
	wr "il-$b" run -- /bin/sh -c "touch $MARK; mkdir -p evil; ln -sfn evil .l1.new && mv -T .l1.new .l1; ln -sfn evil d/l2"
	if [ "$rc" -eq 69 ] && grep -q "SANDBOX_UNAVAILABLE" "$T/err"; then
		ok "$b: a workspace-write run is refused (exit 69)"
	else
		fail "$b: the run was not refused: exit $rc"
		sed 's/^/  stderr: /' "$T/err"
	fi
	[ ! -e "$MARK" ] && ok "$b: nothing ran" || fail "$b: the command ran"
	rm -f "$MARK"
	if [ "$(readlink "$T/ws/.l1")" = d/l2 ] && [ "$(readlink "$T/ws/d/l2")" = "$T/realstate" ]; then
		ok "$b: both links on the host are as they were"
	else
		fail "$b: a link changed: .l1 -> $(readlink "$T/ws/.l1"), d/l2 -> $(readlink "$T/ws/d/l2")"
		rm -f "$T/ws/.l1" "$T/ws/d/l2"
		ln -s d/l2 "$T/ws/.l1"
		ln -s "$T/realstate" "$T/ws/d/l2"
	fi
	# read-only still runs: the command cannot replace anything.
	wr "il-$b-read-only" run -- /bin/true
	[ "$rc" -eq 0 ] && ok "$b: a read-only run goes on" ||
		{ fail "$b: a read-only run: exit $rc"; sed 's/^/  stderr: /' "$T/err"; }
done
finish

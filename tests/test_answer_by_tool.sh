#!/bin/sh
# test_answer_by_tool.sh — the example exec answerer program
# (plugin-api/examples/answer-by-tool.sh) run as the exec answerer runs it:
# the request as one JSON line on stdin, the answer as the first stdout
# line and its reason as the second (for a decision); its usage errors print nothing on stdout and exit nonzero.  (The
# same script through the exec plugin itself: tests/test_exec.c.)
set -u
: "${top_srcdir:?}"

prog=$top_srcdir/plugin-api/examples/answer-by-tool.sh
fail=0
bad() { echo "FAIL: $*"; fail=1; }

req() { # TOOL-JSON SUBJECT-JSON: a request line as warden writes it
	printf '{"session":"s1","request_id":"r1","tool":%s,"subject":%s,"call_id":"","reason":"","mode":"","cwd":"/w"}\n' "$1" "$2"
}

expect() { # WANT TOOL-JSON SUBJECT-JSON [REASON]
	out=$(req "$2" "$3" | /bin/sh "$prog" --allow read --allow grep --deny bash --deny rm)
	st=$?
	got=$(printf '%s\n' "$out" | sed -n 1p)
	why=$(printf '%s\n' "$out" | sed -n 2p)
	if [ "$st" -ne 0 ] || [ "$got" != "$1" ] || [ "$why" != "${4:-}" ]; then
		bad "tool $2 subject $3: got '$out' (exit $st), want '$1' and reason '${4:-}'"
	else
		echo "ok: tool $2 → $1${4:+ ($4)}"
	fi
}

expect allowed-once '"read"' '"README.md"' 'tool read is allowed (--allow read)'
expect allowed-once '"grep"' '"-r x ."' 'tool grep is allowed (--allow grep)'
expect rejected '"bash"' '"ls"' 'tool bash is denied (--deny bash)'
expect rejected '"rm"' '"-rf /"' 'tool rm is denied (--deny rm)'
expect next '"ls"' '"-l"'
expect next '""' '"x"'
# A subject that spells a tool of its own is text, not the tool.
expect rejected '"bash"' '"x\",\"tool\":\"read\",\"y\":\""' 'tool bash is denied (--deny bash)'
expect rejected '"bash"' '"{\"tool\":\"read\"}"' 'tool bash is denied (--deny bash)'
# Escapes in the tool name are not decoded: next, never a match.
expect next '"re\u0061d"' '"x"'
expect next '"read\"x"' '"x"'
# Without a trailing newline the line still counts.
got=$(req '"read"' '"x"' | tr -d '\n' | /bin/sh "$prog" --allow read | sed -n 1p)
[ "$got" = allowed-once ] || bad "request without newline: got '$got'"

# Usage errors: nothing on stdout, exit 64; no request: exit 65.
for args in "--allow" "--deny" "--what x" "--allow re/ad"; do
	# shellcheck disable=SC2086
	out=$(req '"read"' '"x"' | /bin/sh "$prog" $args 2>/dev/null)
	st=$?
	[ "$st" -eq 64 ] && [ -z "$out" ] || bad "args '$args': exit $st, stdout '$out'"
done
out=$(/bin/sh "$prog" --allow read </dev/null 2>/dev/null)
st=$?
[ "$st" -eq 65 ] && [ -z "$out" ] || bad "empty stdin: exit $st, stdout '$out'"

[ -x "$prog" ] || bad "$prog is not executable (the exec answerer runs it directly)"
[ "$fail" -eq 0 ] && echo "PASS: answer-by-tool.sh"
exit "$fail"

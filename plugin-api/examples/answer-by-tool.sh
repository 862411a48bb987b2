#!/bin/sh
# answer-by-tool.sh — an example program for warden's exec answerer: it
# decides by the request's tool name alone.
#
#   [answerer by-tool]
#   plugin = exec
#   command = answer-by-tool.sh
#   arg = --allow
#   arg = read
#   arg = --deny
#   arg = bash
#
# warden writes the request to stdin as one JSON object on one line and
# reads one word from stdout: `allowed-once` for a tool named by --allow,
# `rejected` for one named by --deny (deny wins), `next` for any other (the
# next answerer decides).  A second line is the decision's reason, which
# warden records with it.  A tool name that is not plain [A-Za-z0-9_.:-]
# (say, one written with JSON escapes, which this reader does not decode)
# is `next` as well.  A usage error exits 64 and prints nothing on stdout:
# warden then treats the request as unavailable.
#
# Plain POSIX sh and sed, no JSON tool: the tool is cut out of the line
# with sed.  That is sound for warden's compact JSON, where every quote
# inside a string is escaped (\"): `"tool":"` right after { or , can only
# be the key itself, never text inside the subject or the reason.
set -u

usage() {
	echo "answer-by-tool.sh: $1 (usage: answer-by-tool.sh [--allow TOOL]... [--deny TOOL]...)" >&2
	exit 64
}

allow=' '
deny=' '
while [ $# -gt 0 ]; do
	case $1 in
	--allow|--deny)
		[ $# -ge 2 ] || usage "$1 needs a tool name"
		case $2 in
		''|*[!A-Za-z0-9_.:-]*) usage "bad tool name '$2'" ;;
		esac
		if [ "$1" = --allow ]; then allow="$allow$2 "; else deny="$deny$2 "; fi
		shift 2 ;;
	*)
		usage "unknown argument '$1'" ;;
	esac
done

line=
IFS= read -r line || [ -n "$line" ] || {
	echo "answer-by-tool.sh: no request on stdin" >&2
	exit 65
}
tool=$(printf '%s\n' "$line" |
	sed -n 's/^.*[{,]"tool":"\([^"\\]*\)"[,}].*$/\1/p')

case $tool in
''|*[!A-Za-z0-9_.:-]*) echo next; exit 0 ;;
esac
case $deny in
*" $tool "*) printf 'rejected\ntool %s is denied (--deny %s)\n' "$tool" "$tool"; exit 0 ;;
esac
case $allow in
*" $tool "*) printf 'allowed-once\ntool %s is allowed (--allow %s)\n' "$tool" "$tool"; exit 0 ;;
esac
echo next

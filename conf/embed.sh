#!/bin/sh
# embed.sh IN OUT — compile a text file into a C string, so the built-in
# default config is conf/warden.ini itself, never a hand-kept copy.
set -eu
in=$1
out=$2
{
	printf '/* Generated from %s by conf/embed.sh; do not edit. */\n' "$(basename "$in")"
	printf 'const char warden_default_config[] =\n'
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$/\\n"/' "$in"
	printf '\t;\n'
} > "$out.tmp"
mv "$out.tmp" "$out"

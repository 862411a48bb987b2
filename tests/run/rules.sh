#!/bin/sh
# rules.sh — command rules of the rules answerer through the real
# `warden run --escalate danger-full-access`, the real rules plugin in a
# worker process, and `warden config check`.  A command line is allowed
# only when every simple command in it is; a denied command anywhere
# refuses the whole line; what the parser does not understand, and a write
# by redirection, go to the next answerer (here one that rejects).  What
# ran is checked on the host's files, not only by exit codes.  A config
# whose examples fail is refused by config check (exit 78, naming file,
# line, rule and example), the plugin does not open (`warden plugins`
# says why) and a run that needs it runs nothing.
. "$top_srcdir/tests/run/lib.sh"

ZOO=$top_builddir/tests/zoo/.libs
RULES=$top_builddir/plugins/rules/.libs/rules.so
for f in "$ZOO/zoo_answerer.so" "$RULES"; do
	[ -e "$f" ] || { echo "FAIL: $f was not built"; exit 1; }
done
O=$T/outside

rules="[answerer rules]
plugin = $RULES
allow_command = touch
example_match = touch a b && touch c
example_not_match = touch a; rm -rf b
allow_command = git status
deny_command = rm
example_match = touch x \$(rm -rf y)
example_not_match = touch rm
ask_command = touch $O/ask"
next="[answerer no]
plugin = zoo_answerer
decision = rejected"
EXTRA="plugin_dir = $ZOO" config cmd read-only bwrap "$rules" "$next"

WARDEN_SESSION=$("$WARDEN" --config "$T/cmd.ini" session new --cwd "$T/ws" | tail -n 1)
export WARDEN_SESSION

# decided: the last approval/decided event as "OUTCOME ANSWERER DELEGATED".
decided() {
	"$WARDEN" --config "$T/cmd.ini" session show "$WARDEN_SESSION" --json |
		"$PY" -c 'import json, sys
d = [e for e in json.load(sys.stdin)["events"] if e["type"] == "approval/decided"][-1]
print(d["outcome"], d.get("answerer"), ",".join(d.get("delegated") or []) or "-")'
}

# esc WHAT WANT_RC WANT_DECIDED COMMAND: one escalated -c run.
esc() {
	what=$1 want=$2 want_d=$3
	shift 3
	wr cmd run --escalate danger-full-access --justification test -c "$1"
	expect "$what" "$want"
	got=$(decided)
	[ "$got" = "$want_d" ] && ok "$what: decided $got" ||
		{ fail "$what: decided '$got', want '$want_d'"; sed 's/^/  stderr: /' "$T/err"; }
}

echo "---- config check runs the examples"
"$WARDEN" --config "$T/cmd.ini" config check >"$T/check" 2>&1 &&
	grep -qx "rules rules: 4 rules, 4 examples hold" "$T/check" &&
	ok "config check: the examples hold" ||
	{ fail "config check of a good config"; cat "$T/check"; }

echo "---- allowed: every simple command is covered"
esc "one covered command" 0 "allowed-once rules -" "touch '$O/one'"
[ -e "$O/one" ] && ok "it ran, unconfined" || fail "$O/one was not made"
esc "a chain of covered commands" 0 "allowed-once rules -" \
	"touch '$O/c1' && touch '$O/c2' | touch '$O/c3'; (touch '$O/c4')"
[ -e "$O/c1" ] && [ -e "$O/c2" ] && [ -e "$O/c3" ] && [ -e "$O/c4" ] &&
	ok "every command of the chain ran" || fail "a command of the chain did not run"
wr cmd run --escalate danger-full-access --justification test -- touch "$O/argv"
expect "an argv" 0
[ -e "$O/argv" ] && ok "the argv ran" || fail "$O/argv was not made"

echo "---- rejected: a denied command anywhere"
echo keep >"$O/victim"
esc "a chain with rm" 77 "rejected rules -" "touch '$O/d1' && rm -f '$O/victim'"
esc "rm in a substitution" 77 "rejected rules -" "touch '$O/d2' \$(rm -f '$O/victim')"
esc "rm in a here-document" 77 "rejected rules -" "cat <<EOF
\$(rm -f '$O/victim')
EOF"
esc "rm by its path" 77 "rejected rules -" "/bin/rm -f '$O/victim'"
err_has "the caller is told the rule and the command" "deny_command = rm \($T/cmd.ini:[0-9]+\): \`/bin/rm -f $O/victim\`"
esc "rm inside sh -c" 77 "rejected rules -" "sh -c 'touch $O/d3; rm -f $O/victim'"
[ -e "$O/victim" ] && [ ! -e "$O/d1" ] && [ ! -e "$O/d2" ] && [ ! -e "$O/d3" ] &&
	ok "nothing of a rejected line ran" || fail "a rejected line ran something"

echo "---- delegated: not understood, not covered, asked, writing"
esc "eval" 77 "rejected no rules" "touch '$O/n1'; eval \"touch '$O/n2'\""
esc "a variable as the program" 77 "rejected no rules" "x=touch; \$x '$O/n3'"
esc "an assignment before a command" 77 "rejected no rules" "PATH=$O touch '$O/n4'"
esc "a command no rule covers" 77 "rejected no rules" "touch '$O/n5' && cp /etc/hostname '$O/n6'"
esc "ask_command" 77 "rejected no rules" "touch '$O/ask'"
esc "a write by redirection" 77 "rejected no rules" "touch '$O/n7' > '$O/n8'"
esc "an unbalanced quote" 77 "rejected no rules" "touch '$O/n9"
for f in n1 n2 n3 n4 n5 n6 ask n7 n8; do
	[ ! -e "$O/$f" ] || fail "$O/$f exists: a delegated line ran"
done
ok "nothing of a delegated line ran"

echo "---- a failing example refuses the config"
bad="[answerer rules]
plugin = $RULES
allow_command = git status
example_match = git status -s
example_not_match = git status; rm -rf ~
allow_command = touch
example_not_match = touch a && touch b"
EXTRA="plugin_dir = $ZOO" config bad read-only bwrap "$bad"
line=$(grep -n '^example_not_match = touch a' "$T/bad.ini" | cut -d: -f1)
"$WARDEN" --config "$T/bad.ini" config check >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" = 78 ] && ok "config check exits 78" || fail "config check exits $rc, want 78"
err_has "it names file, line, rule and example" \
	"^warden: $T/bad.ini:$line: \[answerer rules\] example_not_match = touch a && touch b: the rule allow_command = touch \($T/bad.ini:$((line - 1))\) allows it \(every command is covered\)$"
"$WARDEN" --config "$T/bad.ini" config check --json >"$T/out" 2>"$T/err"
"$PY" -c 'import json, sys
o = json.load(open(sys.argv[1]))
assert o["ok"] is False and o["exit"] == 78 and "example_not_match = touch a && touch b" in o["error"], o' "$T/out" &&
	ok "config check --json says it too" || fail "config check --json"
"$WARDEN" --config "$T/bad.ini" plugins >"$T/out" 2>&1
grep -q "^\[answerer rules\] failed.*example_not_match = touch a && touch b" "$T/out" &&
	ok "the plugin does not open, and says why" || { fail "warden plugins"; cat "$T/out"; }
WARDEN_SESSION=$("$WARDEN" --config "$T/bad.ini" session new --cwd "$T/ws" | tail -n 1)
wr bad run --escalate danger-full-access --justification test -c "touch '$O/bad'"
expect "a run that needs the refused rules" 77
[ ! -e "$O/bad" ] && ok "it ran nothing" || fail "$O/bad was made"

finish

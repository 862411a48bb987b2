#!/bin/sh
# network.sh — the network knob end to end: real servers on this machine,
# outside any sandbox, each writing a marker file when contacted (TCP on
# 127.0.0.1 and ::1, UDP, a pathname unix socket, stream and datagram, an
# abstract unix socket), and `warden run` of a client against them with
# both backends, in both confining modes, restricted and enabled.  A marker
# must appear exactly when the network is enabled; the command's own pipes
# and stream socketpairs keep working either way.  Then: the knob through
# the session, danger-full-access, require_full against a backend that
# holds the network only partially, allow_unix_socket (exactly the named
# socket is reached; tests/run/gate.sh tries the detours), and --json.
. "${top_srcdir:?run by make check}/tests/run/lib.sh"

CLIENT=$top_srcdir/tests/run/net-client.py
# Short socket paths (a sockaddr_un holds 107 bytes), outside /tmp (bwrap's
# workspace-write has a private one).
SOCKDIR=$(mktemp -d /var/tmp/warden-net-XXXXXX)
chmod 755 "$SOCKDIR"
net_servers "$T/net" "$SOCKDIR"
# A listener the host cannot have (no ::1) is named, and its case skipped.
while read -r name a why; do
	[ "$a" = - ] && echo "SKIP: $name: the host cannot listen there ($why)"
done <"$T/net/addresses"

HOST_TARGETS="tcp4 tcp6 udp4 unix unixdgram abstract pairdgram"
OWN_TARGETS="pipe pair"

# marker NAME: the server NAME was contacted (pairdgram reaches unixdgram).
marker() {
	case $1 in pairdgram) set -- unixdgram ;; esac
	[ -e "$T/net/markers/$1" ]
}
skipped() { # the host has no listener NAME
	case $1 in pairdgram) set -- unixdgram ;; esac
	grep -q "^$1 - " "$T/net/addresses"
}

# client WHAT CONFIG [WARDEN-ARGS...] -- TARGETS...: one run of the client;
# its lines in $T/out.
client() {
	what=$1 c=$2
	shift 2
	args=
	while [ "$1" != -- ]; do
		args="$args $1"
		shift
	done
	shift
	rm -rf "$T/net/markers"
	mkdir "$T/net/markers"
	# shellcheck disable=SC2086
	wr "$c" $args run --json -- "$PY" "$CLIENT" "$T/net/addresses" "$@"
	# Datagrams are answered without a reply: give the server a moment.
	sleep 0.3
}

# expect_reach WHAT YES|NO TARGETS...: each target's marker and the
# client's own line agree with YES (reached) or NO (refused, no marker).
expect_reach() {
	what=$1 want=$2
	shift 2
	for t in "$@"; do
		if skipped "$t"; then
			echo "SKIP: $what: $t (no such listener on this host)"
			continue
		fi
		line=$(grep "^$t: " "$T/out" || echo "$t: no line")
		if [ "$want" = yes ]; then
			if marker "$t" && [ "${line#*: }" = reached ]; then
				ok "$what: $t reached"
			else
				fail "$what: $t should be reached ($line; marker $(marker "$t" && echo present || echo absent))"
				sed 's/^/  stderr: /' "$T/err"
			fi
		else
			if marker "$t"; then
				fail "$what: $t was contacted ($line)"
			else
				case $line in
				"$t: refused: "*) ok "$what: $t refused (${line#*: refused: })" ;;
				*) fail "$what: $t: no marker but the client says '$line'" ;;
				esac
			fi
		fi
	done
}

# untouched WHAT TARGETS...: nothing ran, and no server was contacted.
untouched() {
	what=$1
	shift
	for t in "$@"; do
		if marker "$t"; then
			fail "$what: $t was contacted"
		else
			ok "$what: $t not contacted"
		fi
	done
}

# own_works WHAT TARGETS...: what the command's own tree does still works.
own_works() {
	what=$1
	shift
	for t in "$@"; do
		if grep -qx "$t: reached" "$T/out"; then
			ok "$what: $t works"
		else
			fail "$what: $t: $(grep "^$t: " "$T/out" || echo 'no line')"
		fi
	done
}

config bwrap read-only bwrap
config landlock read-only landlock

# --- the matrix: backend x mode x network --------------------------------
for b in bwrap landlock; do
	for mode in read-only workspace-write; do
		wr "$b" session new --cwd "$T/ws"
		sid=$(tail -n 1 "$T/out")
		wr "$b" --session "$sid" mode set "$mode"
		what="$b $mode restricted"
		client "$what" "$b" --session "$sid" -- $HOST_TARGETS $OWN_TARGETS
		expect "$what" 0 backend="$b" mode="$mode" network=restricted \
			network_source=config network_enforcement=full
		expect_reach "$what" no $HOST_TARGETS
		own_works "$what" $OWN_TARGETS

		# The session's knob turns it on for this session.
		wr "$b" --session "$sid" network set enabled
		what="$b $mode enabled"
		client "$what" "$b" --session "$sid" -- $HOST_TARGETS $OWN_TARGETS
		expect "$what" 0 backend="$b" mode="$mode" network=enabled \
			network_source=session network_enforcement=full
		expect_reach "$what" yes $HOST_TARGETS
		own_works "$what" $OWN_TARGETS
	done
done

# --- what the command's own tree can serve itself -------------------------
# bwrap: its own network namespace has a loopback nobody else is on, so a
# TCP server of its own answers (also one that listens without bind), and
# so does a unix server of its own in the workspace (the supervisor finds
# its listener in that namespace; tests/run/gate.sh has the rest); in
# read-only it cannot bind one there.  Landlock refuses both: it cannot
# tell a socket of the command's own from a host's.
config bwrap-ws workspace-write bwrap
client "bwrap own servers" bwrap-ws -- owntcp ownlisten ownunix
own_works "bwrap restricted" owntcp ownlisten ownunix
client "bwrap own servers, read-only" bwrap -- ownunix
grep -q '^ownunix: refused: .*Read-only file system' "$T/out" &&
	ok "bwrap read-only: no unix socket of its own in the workspace" ||
	fail "bwrap read-only: ownunix: $(grep '^ownunix' "$T/out")"
client "landlock own servers" landlock -- owntcp ownlisten ownunix
grep -q '^owntcp: refused: .*Permission denied' "$T/out" &&
	ok "landlock restricted: a TCP server of its own is refused" ||
	fail "landlock restricted: owntcp: $(grep '^owntcp' "$T/out")"
# listen() without bind: the kernel would bind an ephemeral port on every
# address of the host itself, past Landlock's bind rule.
grep -q '^ownlisten: refused: .*listen: Permission denied' "$T/out" &&
	ok "landlock restricted: listen() on an unbound TCP socket is refused" ||
	fail "landlock restricted: ownlisten: $(grep '^ownlisten' "$T/out")"
grep -q '^ownunix: refused: .*Permission denied' "$T/out" &&
	ok "landlock restricted: a unix socket of its own is refused" ||
	fail "landlock restricted: ownunix: $(grep '^ownunix' "$T/out")"

# --- the config's default_network, and danger-full-access ------------------
EXTRA='default_network = enabled' config open read-only landlock
client "default_network enabled" open -- $HOST_TARGETS
expect "default_network enabled" 0 network=enabled network_source=config
expect_reach "default_network enabled" yes $HOST_TARGETS
config yolo danger-full-access bwrap
client "danger-full-access" yolo -- unix abstract tcp4
expect "danger-full-access" 0 mode=danger-full-access network=enabled \
	network_source=mode backend=None network_enforcement=None
expect_reach "danger-full-access" yes unix abstract tcp4

# --- require_full covers the network --------------------------------------
# bwrap without its launcher cannot load the network guard: partial, and
# the pathname socket is honestly reachable.
# (A configured launcher that is missing makes bwrap unusable; with no
# launcher key at all, the default one, not installed here, is missing.)
printf '[warden]\ndefault_mode = read-only\nstate_dir = %s\nworkspace_root = %s\n[backend bwrap]\nplugin = %s\n' \
	"$T/state" "$T/ws" "$BWRAP_SO" >"$T/nolauncher.ini"
chmod 644 "$T/nolauncher.ini"
wr nolauncher plugins
if ! grep -q 'read-only, network restricted: partial; no launcher' "$T/out"; then
	echo "SKIP: require_full over a partial network: bwrap finds an installed launcher ($(grep 'network restricted' "$T/out" | head -n 1))"
else
	client "bwrap without launcher" nolauncher -- unix tcp4
	expect "bwrap without launcher" 0 network=restricted network_enforcement=partial
	expect_reach "bwrap without launcher" yes unix
	expect_reach "bwrap without launcher" no tcp4
	wr nolauncher run --require-full --json -- true
	expect "require_full refuses bwrap without its launcher" 77 started=False refused=require-full
	err_has "require_full says why" 'require_full is set'
fi

# --- allow_unix_socket lets exactly the named socket through --------------
# (every detour around it: tests/run/gate.sh)
EXTRA="allow_unix_socket = $(sed -n 's/^allowed //p' "$T/net/addresses")" \
	config allow read-only bwrap landlock
client "allow_unix_socket" allow -- allowed unix abstract tcp4
expect "allow_unix_socket" 0 network=restricted
expect_reach "allow_unix_socket" yes allowed
expect_reach "allow_unix_socket" no unix abstract tcp4
wr allow session new --cwd "$T/ws"
sid=$(tail -n 1 "$T/out")
wr allow --session "$sid" network set enabled
client "allow_unix_socket, network enabled" allow --session "$sid" -- allowed unix
expect "allow_unix_socket, network enabled" 0 network=enabled
expect_reach "allow_unix_socket, network enabled" yes allowed unix

# --- warden plugins shows the network per backend and mode ----------------
config both read-only bwrap landlock
wr both plugins --json
"$PY" - "$T/out" <<'PY' && ok "plugins --json: network enforcement per backend and mode" || fail "plugins --json: $(cat "$T/out")"
import json, sys
o = json.load(open(sys.argv[1]))
for name in ("bwrap", "landlock"):
    b = [p for p in o["plugins"] if p["instance"] == name][0]
    for mode in ("read-only", "workspace-write"):
        p = b["probes"][mode]
        assert p["network"] == "full" and p["network_detail"], (name, mode, p)
PY
wr both plugins
for b in bwrap landlock; do
	for mode in read-only workspace-write; do
		sed -n "/^\[backend $b\]/,/^\[/p" "$T/out" |
			grep -q "^    $mode, network restricted: full; " &&
			ok "plugins: $b $mode, network restricted: full" ||
			fail "plugins: $b $mode: $(cat "$T/out")"
	done
done
finish

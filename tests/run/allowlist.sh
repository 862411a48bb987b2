#!/bin/sh
# allowlist.sh — the allowlist network end to end (DESIGN §2 "Network
# knob"): real bwrap and real Landlock, read-only and workspace-write, a
# real curl against a real HTTP server on 127.0.0.1 named through
# hosts_file (good.test allowed, bad.test denied, ask.test in neither).
# Through the proxy by HTTP, CONNECT and SOCKS5; bad.test refused (403);
# ask.test asked through the exec answerer (which records the request),
# allowed once, then asked again, then allowed for the session (a
# destination grant: not asked again until revoked); localhost (the system's resolver says
# loopback) refused even when allowed once; a direct connection and a DNS lookup
# from inside refused; every connection a network/connect event.
. "${top_srcdir:?run by make check}/tests/run/lib.sh"

EXEC=$top_builddir/plugins/exec/.libs/exec.so
[ -e "$EXEC" ] || { echo "FAIL: $EXEC was not built"; exit 1; }
command -v curl >/dev/null 2>&1 ||
	{ echo "FAIL: curl is not installed (apt-get install curl)"; exit 1; }

mkdir "$T/www"
echo hello-from-the-server >"$T/www/index.html"
"$PY" -u -m http.server 0 --bind 127.0.0.1 --directory "$T/www" >"$T/http.log" 2>&1 &
HTTP_PID=$!
trap 'kill $HTTP_PID 2>/dev/null; wait $HTTP_PID 2>/dev/null; rm -rf "$T"' EXIT
i=0
while ! grep -q "port" "$T/http.log" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
PORT=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$T/http.log" | head -n 1)
[ -n "$PORT" ] || { echo "FAIL: the HTTP server did not start: $(cat "$T/http.log")"; exit 1; }
printf '127.0.0.1 good.test bad.test ask.test\n' >"$T/hosts"

# The exec answerer: appends the request it was shown, then answers
# what $T/answer says.
cat >"$T/answer.sh" <<EOF
#!/bin/sh
cat >>"$T/requests"
echo >>"$T/requests"
cat "$T/answer"
EOF
chmod 755 "$T/answer.sh"

EXTRA="default_network = allowlist
allowed_domains = good.test
denied_domains = bad.test
hosts_file = $T/hosts"
ANSWERER="[answerer shown]
plugin = $EXEC
command = $T/answer.sh"

events() {
	"$WARDEN" --config "$T/$1.ini" session show "$WARDEN_SESSION" --json |
		"$PY" -c 'import json, sys
for e in json.load(sys.stdin)["events"]:
    if e["type"] == sys.argv[1]:
        print(json.dumps(e, sort_keys=True))' "$2"
}

for b in bwrap landlock; do
	for m in read-only workspace-write; do
		n=$b-$m
		EXTRA="$EXTRA" config "$n" "$m" "$b" "$ANSWERER"
		WARDEN_SESSION=$("$WARDEN" --config "$T/$n.ini" session new --cwd "$T/ws" | tail -n 1)
		export WARDEN_SESSION
		rm -f "$T/requests"
		echo allowed-once >"$T/answer"

		wr "$n" run --json -- sh -c "curl -sS -m 10 http://good.test:$PORT/ && curl -sS -m 10 -p http://good.test:$PORT/ && curl -sS -m 10 --socks5-hostname \${ALL_PROXY#socks5h://} http://good.test:$PORT/"
		[ "$rc" = 0 ] && [ "$(grep -c hello-from-the-server "$T/out")" = 3 ] &&
			ok "$n: good.test by HTTP, CONNECT and SOCKS5" ||
			fail "$n: good.test: rc $rc: $(cat "$T/out" "$T/err")"
		[ "$(field network)" = allowlist ] && [ "$(field network_refused)" = "[]" ] &&
			ok "$n: the report says allowlist, nothing refused" ||
			fail "$n: report: $(tail -n 1 "$T/out")"

		wr "$n" run --json -- curl -sS -m 10 http://bad.test:$PORT/
		grep -q "denied_domains = bad.test" "$T/out" && ! grep -q hello "$T/out" &&
			[ "$(field network_refused)" = "['bad.test:$PORT']" ] &&
			[ "$(field network_denied)" = False ] &&
			ok "$n: bad.test refused by the proxy with its rule" ||
			fail "$n: bad.test: $(cat "$T/out" "$T/err")"
		wr "$n" run --json -- curl -fsS -m 10 -p http://bad.test:$PORT/
		[ "$(field class)" = denied ] && [ "$(field network_denied)" = True ] &&
			grep -q "add bad.test to \[warden\] allowed_domains" "$T/out" &&
			ok "$n: a failed command behind a refusal is denied, with how to ask" ||
			fail "$n: bad.test CONNECT: $(cat "$T/out" "$T/err")"

		wr "$n" run --json --call-id c-$n -- curl -sS -m 10 http://ask.test:$PORT/
		grep -q hello-from-the-server "$T/out" && [ -s "$T/requests" ] &&
			"$PY" - "$T/requests" "$PORT" "c-$n" <<'PY' && ok "$n: ask.test asked (tool network, host:port, argv, call id) and allowed once" || fail "$n: ask.test: $(cat "$T/out" "$T/err" "$T/requests" 2>&1)"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(reqs) == 1, reqs
r = reqs[0]
assert r["tool"] == "network" and r["subject"] == "ask.test:" + sys.argv[2], r
assert r["call_id"] == sys.argv[3] and r["argv"][0] == "curl", r
PY
		echo rejected >"$T/answer"
		wr "$n" run --json -- curl -sS -m 10 http://ask.test:$PORT/
		[ "$(grep -c . "$T/requests")" = 2 ] && ! grep -q hello "$T/out" &&
			grep -q -- "--escalate-network" "$T/out" &&
			ok "$n: ask.test asked again, rejected, refused with how to ask" ||
			fail "$n: ask.test again: $(cat "$T/out" "$T/err" "$T/requests")"

		# A destination grant: allowed for the session once, then
		# not asked again (the proxy reads the session's grants), until
		# revoked.
		echo allowed-for-session >"$T/answer"
		wr "$n" run --json -- curl -sS -m 10 http://ask.test:$PORT/
		grep -q hello-from-the-server "$T/out" && [ "$(grep -c . "$T/requests")" = 3 ] &&
			tail -n 2 "$T/requests" | "$PY" -c 'import json, sys
r = json.loads(sys.stdin.readline())
names = [g["name"] for g in r["grant_scopes"]]
assert names == ["destination"], r["grant_scopes"]' &&
			ok "$n: ask.test allowed for the session, the scope offered is the destination alone" ||
			fail "$n: grant: $(cat "$T/out" "$T/err" "$T/requests")"
		echo rejected >"$T/answer"
		wr "$n" run --json -- sh -c "curl -sS -m 10 http://ask.test:$PORT/ && curl -sS -m 10 -p http://ask.test:$PORT/"
		[ "$(grep -c hello-from-the-server "$T/out")" = 2 ] && [ "$(grep -c . "$T/requests")" = 3 ] &&
			ok "$n: ask.test under the grant: two connections, nobody asked" ||
			fail "$n: under the grant: $(cat "$T/out" "$T/err" "$T/requests")"
		"$WARDEN" --config "$T/$n.ini" grant list --json >"$T/grants" ||
			fail "$n: grant list: $(cat "$T/grants")"
		G=$("$PY" -c 'import json, sys
g = json.load(open(sys.argv[1]))["grants"]
assert len(g) == 1 and g[0]["name"] == "destination" and "ask.test:" + sys.argv[2] in g[0]["text"], g
print(g[0]["id"])' "$T/grants" "$PORT") && ok "$n: grant list names the destination grant" ||
			fail "$n: grant list: $(cat "$T/grants")"
		"$WARDEN" --config "$T/$n.ini" grant revoke "$G" >/dev/null 2>&1 || fail "$n: grant revoke $G"
		wr "$n" run --json -- curl -sS -m 10 http://ask.test:$PORT/
		[ "$(grep -c . "$T/requests")" = 4 ] && ! grep -q hello "$T/out" &&
			ok "$n: revoked: ask.test asked again and refused" ||
			fail "$n: after revoke: $(cat "$T/out" "$T/err" "$T/requests")"

		# localhost is resolved by the system (not hosts_file) to a
		# loopback address: allowed once, still refused.
		echo allowed-once >"$T/answer"
		wr "$n" run --json -- curl -sS -m 10 http://localhost:$PORT/
		[ "$(grep -c '"subject":"localhost:' "$T/requests")" = 1 ] && ! grep -q hello "$T/out" &&
			grep -q "private, loopback or link-local" "$T/out" &&
			ok "$n: a name the resolver points at loopback is refused even when allowed once" ||
			fail "$n: localhost: $(cat "$T/out" "$T/err")"

		wr "$n" run --json -- curl -sS -m 5 --noproxy '*' http://127.0.0.1:$PORT/
		[ "$rc" != 0 ] && ! grep -q hello "$T/out" &&
			ok "$n: a direct connection bypassing the proxy is refused" ||
			fail "$n: direct: $(cat "$T/out" "$T/err")"
		wr "$n" run --json -- "$PY" -c 'import socket; socket.getaddrinfo("example.com", 80)'
		[ "$rc" != 0 ] && grep -q "gaierror\|Temporary failure\|Name or service" "$T/err" &&
			ok "$n: a DNS lookup from inside fails" ||
			fail "$n: DNS: rc $rc $(cat "$T/err")"

		events "$n" network/connect >"$T/ev"
		"$PY" - "$T/ev" "$PORT" <<'PY' && ok "$n: each connection is a network/connect event" || fail "$n: events: $(cat "$T/ev")"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
p = sys.argv[2]
good = [e for e in ev if e["destination"] == "good.test:" + p]
assert len(good) == 3 and all(e["decision"] == "allowed" and e["by"] == "allowed_domains = good.test"
                              and e["bytes_down"] > 0 and e["bytes_up"] > 0 for e in good), good
assert sorted(e["via"] for e in good) == ["connect", "http", "socks5"], good
bad = [e for e in ev if e["destination"] == "bad.test:" + p]
assert len(bad) == 2 and all(e["decision"] == "refused" and e["bytes_down"] == 0 for e in bad), bad
ask = [e for e in ev if e["destination"] == "ask.test:" + p]
assert [e["decision"] for e in ask] == ["allowed", "refused", "allowed", "allowed", "allowed", "refused"], ask
assert "allowed-once" in ask[0]["by"] and "rejected" in ask[1]["by"], ask
grant = ask[2]["by"].split("grant ")[-1]
assert "allowed-for-session" in ask[2]["by"] and grant, ask[2]
assert ask[3]["by"] == "grant " + grant and ask[4]["by"] == "grant " + grant, ask
assert "rejected" in ask[5]["by"], ask[5]
PY
	done
done
finish

#!/bin/sh
# bench/run.sh TOP_BUILDDIR — `make bench`: every figure of BENCHMARKS.md,
# each beside a baseline measured in the same run.  Output: one table,
#   figure  median  min  max  unit  baseline  ratio  target
# Whole-process figures come from bench/bench_exec (fork/exec/wait4, 7
# rounds); in-process ones from bench/bench_host.  Nothing here fails on a
# slow figure: the numbers are reported, BENCHMARKS.md judges them.
set -eu
top=${1:?usage: bench/run.sh TOP_BUILDDIR}
W="$top/warden"
X="$top/bench/bench_exec"
N=${BENCH_RUNS:-100}

scratch=$(mktemp -d "$top/bench/run-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
chmod 755 "$scratch"
mkdir "$scratch/ws"
# A home where every path of the default deny_read list exists, so that
# each run (and the confine argv it is measured against) hides them all:
# the figures include the binds a user with those secrets pays for.
H=$scratch/home
mkdir -p "$H/.ssh" "$H/.aws" "$H/.gnupg" "$H/.config/gh" "$H/.docker" "$H/.kube"
: >"$H/.netrc"; : >"$H/.docker/config.json"
export HOME="$H"

conf() { # conf NAME BACKEND-SECTION...
	f="$scratch/$1.ini"; shift
	{
		printf '[warden]\nstate_dir = %s/state\ndurability = none\n' "$scratch"
		printf 'workspace_root = %s/ws\ndefault_mode = workspace-write\n' "$scratch"
		for b in "$@"; do
			case $b in
			bwrap) printf '[backend bwrap]\nplugin = %s/plugins/bwrap/.libs/bwrap.so\nlauncher = %s/plugins/bwrap/warden-bwrap-exec\n' "$top" "$top" ;;
			landlock) printf '[backend landlock]\nplugin = %s/plugins/landlock/.libs/landlock.so\nrunner = %s/plugins/landlock/warden-landlock-run\n' "$top" "$top" ;;
			esac
		done
	} >"$f"
	echo "$f"
}

row() { # row NAME UNIT TARGET "median min max rss" BASELINE-MEDIAN
	set -- "$1" "$2" "$3" $4 "$5"
	awk -v n="$1" -v u="$2" -v t="$3" -v m="$4" -v lo="$5" -v hi="$6" -v b="$8" \
		'BEGIN { printf "%s\t%.1f\t%.1f\t%.1f\t%s\t%.1f\t%.2f\t%s\n", n, m, lo, hi, u, b, (b > 0 ? m / b : 0), t }'
}

printf 'figure\tmedian\tmin\tmax\tunit\tbaseline\tratio\ttarget\n'

# --- whole process: warden run -- /bin/true ---------------------------
cb=$(conf bwrap bwrap)
cl=$(conf landlock landlock)
cd "$scratch/ws"

# The baseline is the argv `warden confine` prints for the same config (the
# launcher, bwrap and the workspace-write profile), spawned directly in the
# same way and the same directory.  The backend must say `full`: a partial
# profile would be a different, cheaper baseline.
"$W" --config "$cb" confine --json -- /bin/true >"$scratch/bwrap.json"
grep -q '"enforcement": "full"' "$scratch/bwrap.json" ||
	{ echo "bench: bwrap does not confine fully here:" >&2; cat "$scratch/bwrap.json" >&2; exit 1; }
"$W" --config "$cb" confine -- /bin/true >"$scratch/bwrap.argv"
set --
while IFS= read -r a; do set -- "$@" "$a"; done <"$scratch/bwrap.argv"
[ $# -gt 1 ] || { echo "bench: warden confine printed no argv" >&2; exit 1; }
direct=$("$X" "$N" "$@")
wb=$("$X" "$N" "$W" --config "$cb" run -- /bin/true)
bare=$("$X" "$N" /bin/true)
wl=$("$X" "$N" "$W" --config "$cl" run -- /bin/true)
row run-bwrap-vs-direct-bwrap us "<= 1.2x" "$wb" "$(echo "$direct" | cut -f1)"
# The same two, interleaved run by run (bench_exec -p): both meet the same
# moments of a machine whose speed drifts between the batches above.
pb=$("$X" -p "$N" $# "$@" "$W" --config "$cb" run -- /bin/true)
row run-bwrap-vs-direct-bwrap-interleaved us "<= 1.2x" "$(echo "$pb" | cut -f1-4)" "$(echo "$pb" | cut -f5)"
row run-landlock-vs-bare-exec us "<= 2x" "$wl" "$(echo "$bare" | cut -f1)"

# What the landlock figure is made of, each part run directly in the same
# way: the runner's argv as `warden confine` prints it (its namespaces and
# supervising first process included), the same with --no-namespaces, and
# warden's own start-up (`warden --version`: the dynamic loader and its
# libraries).  Each beside a bare exec; the run beside the runner alone.
"$W" --config "$cl" confine -- /bin/true >"$scratch/landlock.argv"
set --
while IFS= read -r a; do set -- "$@" "$a"; done <"$scratch/landlock.argv"
[ $# -gt 1 ] || { echo "bench: warden confine printed no landlock argv" >&2; exit 1; }
runner=$("$X" "$N" "$@")
r0=$1; shift
runner_nons=$("$X" "$N" "$r0" --no-namespaces "$@")
startup=$("$X" "$N" "$W" --version)
row landlock-runner-alone-vs-bare-exec us "report" "$runner" "$(echo "$bare" | cut -f1)"
row landlock-runner-no-namespaces-vs-bare-exec us "report" "$runner_nons" "$(echo "$bare" | cut -f1)"
row warden-startup-vs-bare-exec us "report" "$startup" "$(echo "$bare" | cut -f1)"
row run-landlock-vs-runner-alone us "report" "$wl" "$(echo "$runner" | cut -f1)"

# Where a run's time goes: `warden confine` (start-up, config, loading the
# backend and its probe — a real sandboxed run of the backend's own
# binary — then the confined argv) as a whole process, per backend.
cfb=$("$X" "$N" "$W" --config "$cb" confine -- /bin/true)
cfl=$("$X" "$N" "$W" --config "$cl" confine -- /bin/true)
row confine-process-bwrap us "report" "$cfb" "$(echo "$direct" | cut -f1)"
row confine-process-landlock us "report" "$cfl" "$(echo "$bare" | cut -f1)"

# Peak RSS (KiB): warden run and what it waited for, vs the command alone.
rss() { echo "$1" | cut -f4; }
for pair in "run-bwrap-peak-rss:$wb" "run-landlock-peak-rss:$wl"; do
	name=${pair%%:*}; m=$(rss "${pair#*:}"); b=$(rss "$bare")
	printf '%s\t%d\t%d\t%d\tKiB\t%d\t%.2f\t%s\n' "$name" "$m" "$m" "$m" "$b" \
		"$(awk -v m="$m" -v b="$b" 'BEGIN { print m / b }')" \
		"<= 4096 KiB above the command ($((m - b)) above)"
done

# Start-up as a whole process: `warden plugins` (parse, load every
# plugin of the config and probe each backend) vs a bare exec.
wc=$("$X" "$N" "$W" --config "$cb" plugins)
row plugins-process us "report" "$wc" "$(echo "$bare" | cut -f1)"

# A harness's point of view: a Python stdlib loop of 200 subprocess.run
# calls (the way an agent harness calls its shell tool), per call, for
# warden run (bwrap and landlock), the confined argv run directly, and a
# plain `bash -c true`.  Median of 7 loops, in microseconds per call.
# (The whole-process figures above are bench_exec's: each figure's runs
# back to back.)
if command -v python3 >/dev/null 2>&1; then
	python3 - "$W" "$cb" "$cl" "$scratch/bwrap.argv" <<'PY'
import statistics, subprocess, sys, time
w, cb, cl, argv_file = sys.argv[1:5]
direct = open(argv_file).read().splitlines()
cases = [
    ("harness-bash-c-true", ["bash", "-c", "true"]),
    ("harness-confined-argv-bwrap", direct),
    ("harness-warden-run-bwrap", [w, "--config", cb, "run", "--", "/bin/true"]),
    ("harness-warden-run-landlock", [w, "--config", cl, "run", "--", "/bin/true"]),
]
# The rounds take the cases in turn, so that a change of the machine's
# load during the run weighs on every case alike.
rounds = {name: [] for name, _ in cases}
for _ in range(7):
    for name, argv in cases:
        t = time.perf_counter()
        for _ in range(200):
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        rounds[name].append((time.perf_counter() - t) / 200 * 1e6)
res = {name: (statistics.median(r), min(r), max(r)) for name, r in rounds.items()}
base = res["harness-bash-c-true"][0]
direct_b = res["harness-confined-argv-bwrap"][0]
for name, (m, lo, hi) in res.items():
    b = direct_b if name == "harness-warden-run-bwrap" else base
    print("%s\t%.1f\t%.1f\t%.1f\tus\t%.1f\t%.2f\t%s" % (name, m, lo, hi, b, m / b, "report"))
PY
else
	echo "bench: python3 is not installed: the harness figures are not measured" >&2
fi

# A harness that keeps one `warden serve` or one `warden mcp` open: a run
# over that connection (request to response, bwrap) per call, beside the
# argv `warden confine` prints for the same command run directly by
# subprocess.run, in the same rounds.  serve runs the argv /bin/true;
# mcp's run tool takes a shell command, so its baseline is the confined
# argv of `bash -c /bin/true`.
if command -v python3 >/dev/null 2>&1; then
	"$W" --config "$cb" confine -- bash -c /bin/true >"$scratch/bwrap-sh.argv"
	python3 - "$W" "$cb" "$scratch/bwrap.argv" "$scratch/bwrap-sh.argv" <<'PY'
import io, json, statistics, subprocess, sys, time
w, cb, argv_file, sh_argv_file = sys.argv[1:5]
direct = open(argv_file).read().splitlines()
direct_sh = open(sh_argv_file).read().splitlines()

def connect(face):
    p = subprocess.Popen([w, "--config", cb, face], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    # Requests go out unbuffered; responses are read by lines through a
    # buffer, as a harness reads them (readline on the raw pipe would be
    # one read(2) per byte: the harness's cost, not the server's).
    return p, io.BufferedReader(p.stdout)

srv, rd = connect("serve")
mcp, mrd = connect("mcp")
n = [0]

def reply(rd, id):
    while True:
        m = json.loads(rd.readline())
        if m.get("id") == id:
            return m

def serve_run():
    n[0] += 1
    srv.stdin.write(b'{"jsonrpc":"2.0","id":%d,"method":"run","params":{"argv":["/bin/true"]}}\n' % n[0])
    m = reply(rd, n[0])
    assert m["result"]["class"] == "ok" and m["result"]["backend"] == "bwrap", m

def mcp_run():
    n[0] += 1
    mcp.stdin.write(b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"run","arguments":{"command":"/bin/true"}}}\n' % n[0])
    m = reply(mrd, n[0])
    sc = m["result"]["structuredContent"]
    assert not m["result"]["isError"] and sc["class"] == "ok" and sc["backend"] == "bwrap", m

def direct_run():
    subprocess.run(direct, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)

def direct_sh_run():
    subprocess.run(direct_sh, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)

mcp.stdin.write(b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}\n')
reply(mrd, 0)
mcp.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
serve_run()  # the backends are opened and judged once, before the rounds
mcp_run()
cases = [("harness-confined-argv-bwrap", direct_run), ("serve-run-bwrap", serve_run),
         ("harness-confined-sh-argv-bwrap", direct_sh_run), ("mcp-run-bwrap", mcp_run)]
rounds = {name: [] for name, _ in cases}
for _ in range(7):
    for name, fn in cases:
        t = time.perf_counter()
        for _ in range(200):
            fn()
        rounds[name].append((time.perf_counter() - t) / 200 * 1e6)
for p in (srv, mcp):
    p.stdin.close()
    p.wait()
for name, base, figure in (("serve-run-bwrap", "harness-confined-argv-bwrap", "serve-run-bwrap-vs-confined-argv"),
                           ("mcp-run-bwrap", "harness-confined-sh-argv-bwrap", "mcp-run-bwrap-vs-confined-argv")):
    r = rounds[name]
    b = statistics.median(rounds[base])
    print("%s\t%.1f\t%.1f\t%.1f\tus\t%.1f\t%.2f\t%s" % (figure, statistics.median(r), min(r), max(r),
          b, statistics.median(r) / b, "<= 1.1x"))
PY
fi

# --- the allowlist proxy ----------------------------------------------
# A 256 MiB download from a server on 127.0.0.1 (the kernel's sendfile, so
# the server is not what is measured), by curl: directly on the host (the
# baseline), through bench_relay (the least any relay does: splice(2)
# both ways, nothing else), and through `warden run` with the allowlist
# network (bwrap and landlock: the command reaches the proxy alone, the
# proxy the server), interleaved round by round.  Each figure is curl's
# own time for the download (time_total: connection and transfer; the
# sandbox's start-up, measured above, is not in it).  Then the time to
# first byte of a small answer per connection: 30 curl processes, each one
# connection, inside one run (so the run's start-up is not counted) and
# directly; the median difference is what the proxy adds to a connection.
if command -v python3 >/dev/null 2>&1 && command -v curl >/dev/null 2>&1; then
	printf '127.0.0.1 good.test\n' >"$scratch/hosts"
	for b in bwrap landlock; do
		conf "proxy-$b" "$b" >/dev/null
		sed -i "1a default_network = allowlist\\nallowed_domains = good.test\\nhosts_file = $scratch/hosts" \
			"$scratch/proxy-$b.ini"
	done
	python3 - "$W" "$scratch" "$top/bench/bench_relay" <<'PY'
import os, socket, socketserver, statistics, subprocess, sys, threading, time
w, scratch, relay_prog = sys.argv[1:4]
big = os.path.join(scratch, "big")
with open(big, "wb") as f:
    f.truncate(256 << 20)
SIZE = os.path.getsize(big)

class H(socketserver.BaseRequestHandler):
    def handle(self):
        buf = b""
        while b"\r\n\r\n" not in buf:
            d = self.request.recv(4096)
            if not d:
                return
            buf += d
        path = buf.split(b" ", 2)[1]
        if path.endswith(b"/big"):
            self.request.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % SIZE)
            with open(big, "rb") as f:
                self.request.sendfile(f)
        else:
            self.request.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")

class S(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

srv = S(("127.0.0.1", 0), H)
port = srv.server_address[1]
threading.Thread(target=srv.serve_forever, daemon=True).start()
env = dict(os.environ)
for k in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
    env.pop(k, None)
sess = {}
for b in ("bwrap", "landlock"):
    ini = os.path.join(scratch, "proxy-%s.ini" % b)
    out = subprocess.run([w, "--config", ini, "session", "new", "--cwd", os.path.join(scratch, "ws")],
                         check=True, capture_output=True, text=True, env=env).stdout
    sess[b] = out.strip().splitlines()[-1]

relay = subprocess.Popen([relay_prog, str(port)], stdout=subprocess.PIPE, text=True)
relay_port = int(relay.stdout.readline())

whole = {"direct": [], "relay": [], "bwrap": [], "landlock": []}

def timed(argv, e=env, key=None):
    """curl's time_total of the download, in seconds (and the whole
    process's time, start-up included, into whole[key])."""
    t = time.perf_counter()
    out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True,
                         env=e, text=True).stdout
    if key is not None:
        whole[key].append(time.perf_counter() - t)
    return float(out.split()[-1])

def run_argv(b, cmd):
    return [w, "--config", os.path.join(scratch, "proxy-%s.ini" % b), "--session", sess[b], "run", "--"] + cmd

get_big = ["curl", "-sS", "-o", "/dev/null", "-w", "%{time_total}\\n"]
rounds = {"direct": [], "relay": [], "bwrap": [], "landlock": []}
for _ in range(7):
    rounds["direct"].append(timed(get_big + ["http://127.0.0.1:%d/big" % port], key="direct"))
    rounds["relay"].append(timed(get_big + ["http://127.0.0.1:%d/big" % relay_port], key="relay"))
    for b in ("bwrap", "landlock"):
        rounds[b].append(timed(run_argv(b, get_big + ["http://good.test:%d/big" % port]), key=b))
relay.kill()
relay.wait()
d = statistics.median(rounds["direct"])
r = statistics.median(rounds["relay"])
mib = lambda t: SIZE / t / (1 << 20)
print("bare-relay-download-256MiB-throughput\t%.1f\t%.1f\t%.1f\tMiB/s\t%.1f\t%.2f\t%s" % (
      mib(r), mib(max(rounds["relay"])), mib(min(rounds["relay"])), mib(d), d / r,
      "report (the most a relay reaches here)"))
for b in ("bwrap", "landlock"):
    m = statistics.median(rounds[b])
    print("proxy-download-256MiB-%s-throughput\t%.1f\t%.1f\t%.1f\tMiB/s\t%.1f\t%.2f\t%s" % (
          b, mib(m), mib(max(rounds[b])), mib(min(rounds[b])), mib(d), d / m, ">= 0.8x direct"))
    print("proxy-download-256MiB-%s-vs-bare-relay\t%.1f\t%.1f\t%.1f\tMiB/s\t%.1f\t%.2f\t%s" % (
          b, mib(m), mib(max(rounds[b])), mib(min(rounds[b])), mib(r), r / m, "report"))
    wm, wd = statistics.median(whole[b]), statistics.median(whole["direct"])
    print("proxy-download-256MiB-%s-whole-run\t%.1f\t%.1f\t%.1f\tMiB/s\t%.1f\t%.2f\t%s" % (
          b, mib(wm), mib(max(whole[b])), mib(min(whole[b])), mib(wd), wd / wm,
          "report (warden run's start-up and the proxy's included)"))

loop = "for i in $(seq 30); do curl -sS -o /dev/null -w '%%{time_starttransfer}\\n' %s || exit 1; done"
def ttfb(argv):
    out = subprocess.run(argv, check=True, capture_output=True, text=True, env=env).stdout
    v = [float(x) * 1e6 for x in out.split()]
    assert len(v) == 30, out
    return statistics.median(v), min(v), max(v)
direct = ttfb(["sh", "-c", loop % ("http://127.0.0.1:%d/small" % port)])
for b in ("bwrap", "landlock"):
    m, lo, hi = ttfb(run_argv(b, ["sh", "-c", loop % ("http://good.test:%d/small" % port)]))
    print("proxy-ttfb-%s-added-per-connection\t%.1f\t%.1f\t%.1f\tus\t%.1f\t%.2f\t%s" % (
          b, m, lo, hi, direct[0], m / direct[0], "report (+%.0f us)" % (m - direct[0])))
srv.shutdown()
PY
else
	echo "bench: python3 or curl is missing: the proxy figures are not measured" >&2
fi

# --- in process --------------------------------------------------------
"$top/bench/bench_host" "$top"

// client.cjs — a real MCP client (the official TypeScript SDK) driving
// `warden mcp` over stdio: version negotiation, the tool list and its
// schemas, a write inside the root (ok) and outside it (denied, with how
// to ask), escalations the client's user accepts and declines through
// elicitation, a connection the restricted network denies (with how to
// ask for the network) and escalate_network accepted (a TCP server on
// 127.0.0.1 outside the sandbox is reached) and declined (it is not),
// escalations decided by the rest of the waterfall for a
// client without elicitation, progress while a long command runs (also
// a silent one: a notification every second), a
// cancelled run whose processes are gone, and elicitations withdrawn
// (notifications/cancelled: the handler's abort signal fires) when their
// tool call is cancelled and when no answer came in time; and a
// connection where nobody can answer (no elicitation, no terminal): no
// invitation to escalate, and the reasons say why for each answerer; and
// grants: the form offers the request's scopes, the user allows for the
// session (the identical run is then not asked; `warden grant list` and
// `revoke` see the grant), and a scope the form did not offer gives no
// grant and runs nothing.  Each check prints "ok: ..." or
// "FAIL: ..."; the exit status is the number of failures (capped).
//
//   node client.cjs SDK_DIR WARDEN CONFIG_ELICIT CONFIG_WATERFALL CONFIG_SLOW WS OUTSIDE TAG CONFIG_NOBODY
'use strict';

const { execFileSync } = require('child_process');
const fs = require('fs');
const net = require('net');
const path = require('path');

const [sdkDir, warden, cfgElicit, cfgWaterfall, cfgSlow, ws, outside, tag, cfgNobody] = process.argv.slice(2);
const sdk = (p) => require(path.join(sdkDir, '@modelcontextprotocol', 'sdk', 'dist', 'cjs', p));
const { Client } = sdk('client/index.js');
const { StdioClientTransport } = sdk('client/stdio.js');
const { ElicitRequestSchema, McpError } = sdk('types.js');

let failures = 0;
function ok(what) { console.log(`ok: ${what}`); }
function fail(what, detail) {
	failures++;
	console.log(`FAIL: ${what}`);
	if (detail !== undefined)
		console.log(`  ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
}
function check(cond, what, detail) { if (cond) ok(what); else fail(what, detail); }
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const text = (res) => (res.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
// A stream's text: the content block that starts with its label's line
// ("--- stdout", "--- stderr", "--- output ..."), without that line; ''
// when the stream wrote nothing.
function stream(res, name) {
	const b = (res.content || []).find((c) => c.type === 'text' && c.text.startsWith(`--- ${name}`));
	return b ? b.text.slice(b.text.indexOf('\n') + 1) : '';
}

// The processes whose command line contains s (on this host, whatever
// namespace they run in).
function processesWith(s) {
	const found = [];
	for (const pid of fs.readdirSync('/proc')) {
		if (!/^[0-9]+$/.test(pid) || Number(pid) === process.pid)
			continue;
		try {
			const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ');
			if (cmd.includes(s))
				found.push(`${pid} ${cmd}`);
		} catch (e) { /* gone */ }
	}
	return found;
}

// A TCP server on 127.0.0.1, outside every sandbox: what each connection
// sends is appended to marker.  Resolves to { port, close }.
function markerServer(marker) {
	return new Promise((resolve, reject) => {
		const srv = net.createServer((sock) => {
			let got = '';
			sock.on('data', (d) => { got += d.toString(); });
			sock.on('end', () => fs.appendFileSync(marker, got || '(nothing)'));
			sock.on('error', () => {});
		});
		srv.on('error', reject);
		srv.listen(0, '127.0.0.1', () => resolve({ port: srv.address().port, close: () => srv.close() }));
	});
}

// detached: the server runs in a session of its own (setsid), without a
// controlling terminal.
async function connect(config, capabilities, name, detached) {
	const transport = new StdioClientTransport({
		command: detached ? 'setsid' : warden,
		args: (detached ? [warden] : []).concat(['--config', config, 'mcp', '--cwd', ws]),
		cwd: outside,
		stderr: 'pipe',
		env: { PATH: process.env.PATH, HOME: process.env.HOME || '/root' },
	});
	let stderr = '';
	transport.stderr.on('data', (d) => { stderr += d.toString(); });
	const client = new Client({ name, version: '1.0.0' }, { capabilities });
	await client.connect(transport);
	return { client, transport, stderr: () => stderr };
}

async function withElicitation() {
	console.log('---- a client that declares elicitation');
	let answer = 'accept';
	const asked = [];
	const c = await connect(cfgElicit, { elicitation: {} }, 'warden-test-elicit');
	const { client } = c;
	client.setRequestHandler(ElicitRequestSchema, async (req) => {
		asked.push(req.params);
		if (answer === 'accept')
			return { action: 'accept', content: { message: 'go ahead, once' } };
		if (answer === 'cancel')
			return { action: 'cancel' };
		return { action: 'decline' };
	});

	const version = client.transport ? null : null;
	void version;
	const info = client.getServerVersion();
	check(info && info.name === 'warden', 'serverInfo names warden', info);
	const caps = client.getServerCapabilities();
	check(caps && caps.tools, 'the server declares tools', caps);

	const { tools } = await client.listTools();
	const names = tools.map((t) => t.name).sort();
	check(names.includes('run'), 'tools/list has run', names);
	check(!names.some((n) => /set_mode|set_network|mode_set/.test(n)),
	      'no tool lets the model change its own mode or network', names);
	const run = tools.find((t) => t.name === 'run') || {};
	const props = (run.inputSchema || {}).properties || {};
	check(props.command && props.command.type === 'string' &&
	      (run.inputSchema.required || []).includes('command'),
	      'run takes a required string command', run.inputSchema);
	check(props.timeout_s && props.escalate && props.justification && props.escalate_network,
	      'run takes timeout_s, escalate, escalate_network, justification', Object.keys(props));
	check(props.escalate && JSON.stringify(props.escalate.enum) ===
	      JSON.stringify(['workspace-write', 'danger-full-access']),
	      'escalate is one of the two modes above the default', props.escalate);
	check(run.outputSchema && run.outputSchema.type === 'object' &&
	      run.outputSchema.properties && run.outputSchema.properties.class,
	      'run has an outputSchema', run.outputSchema);

	const state = await client.callTool({ name: 'session_state', arguments: {} });
	const st = state.structuredContent || {};
	check(st.network && st.network.value === 'restricted' && st.network.source,
	      'session_state reads the network', st.network);
	check(names.includes('session_state') && st.mode && st.mode.value === 'workspace-write' &&
	      st.root && st.root.value === fs.realpathSync(ws) && !state.isError,
	      'session_state reads the mode and the root', state);

	// A write inside the root.
	fs.rmSync(path.join(ws, 'inside'), { force: true });
	let res = await client.callTool({ name: 'run', arguments: { command: `echo inside > '${ws}/inside'; echo done` } });
	let sc = res.structuredContent || {};
	check(sc.class === 'ok' && sc.exit === 0 && !res.isError, 'a write inside the root is ok', res);
	check(fs.existsSync(path.join(ws, 'inside')) &&
	      fs.readFileSync(path.join(ws, 'inside'), 'utf8') === 'inside\n',
	      'the write inside landed on the host');
	check(stream(res, 'stdout') === 'done\n' && /done/.test(text(res)) && /exit 0/.test(text(res)) && /class ok/.test(text(res)),
	      'the text says stdout, exit and class', text(res));
	check(typeof sc.session === 'string' && sc.session.length > 0 && sc.mode === 'workspace-write',
	      'the result names the connection\'s session and mode', sc);
	const session = sc.session;

	// The output once per message: in the text, not again in
	// structuredContent, and no more than output_limit (256K) of it.
	res = await client.callTool({ name: 'run', arguments: { command: 'head -c 300000 /dev/zero | tr "\\0" a; echo; echo tail-mark' } });
	sc = res.structuredContent || {};
	check(sc.stdout === undefined && sc.stderr === undefined && sc.output &&
	      sc.output.stdout_bytes === 300011 && sc.output.left_out === 300011 - 256 * 1024 &&
	      JSON.stringify(res).length < 256 * 1024 + 8192 &&
	      /\[\.\.\. 37867 bytes left out \.\.\.\]/.test(stream(res, 'stdout')) &&
	      stream(res, 'stdout').endsWith('aaa\ntail-mark\n'),
	      'the output is in the message once, its head and tail, with a line saying what was left out',
	      { output: sc.output, length: JSON.stringify(res).length });

	// The command holds nothing of the connection: 0 (/dev/null), 1, 2.
	res = await client.callTool({ name: 'run', arguments: { command: 'ls /proc/self/fd; readlink /proc/$$/fd/0' } });
	check(stream(res, 'stdout') === '0\n1\n2\n3\n/dev/null\n',
	      'the command has descriptors 0 (/dev/null), 1 and 2 only, not the client\'s stdio',
	      res.structuredContent);

	// stdout and stderr apart, a failing command.
	res = await client.callTool({ name: 'run', arguments: { command: 'echo out; echo err >&2; exit 3' } });
	sc = res.structuredContent || {};
	check(sc.class === 'failed' && sc.exit === 3 && stream(res, 'stdout') === 'out\n' && stream(res, 'stderr') === 'err\n' && res.isError === true,
	      'a failing command: exit 3, stdout and stderr apart, isError', sc);

	// A write outside the root: denied, with how to ask.
	res = await client.callTool({ name: 'run', arguments: { command: `echo changed > '${outside}/file'` } });
	sc = res.structuredContent || {};
	check(sc.class === 'denied' && sc.escalate_to === 'danger-full-access' && res.isError === true,
	      'a write outside the root is denied and escalate_to says danger-full-access', sc);
	check(/denied/.test(text(res)) && /"escalate": *"danger-full-access"/.test(text(res)) &&
	      /justification/.test(text(res)),
	      'the denial text says how to ask', text(res));
	check(fs.readFileSync(path.join(outside, 'file'), 'utf8') === 'original\n',
	      'the file outside is unchanged');

	// Escalation the client's user declines: nothing runs.
	answer = 'decline';
	asked.length = 0;
	res = await client.callTool({ name: 'run', arguments: {
		command: `echo declined > '${outside}/file'`, escalate: 'danger-full-access',
		justification: 'the test writes outside the root' } });
	sc = res.structuredContent || {};
	check(asked.length === 1, 'the escalation was asked of the client once', asked);
	check(asked.length > 0 && asked[0].message.includes(`${outside}/file`) &&
	      asked[0].message.includes('danger-full-access') &&
	      asked[0].message.includes('the test writes outside the root'),
	      'the elicitation shows the command, the mode and the justification', asked[0]);
	check(sc.started === false && sc.escalation && sc.escalation.outcome === 'rejected' &&
	      sc.escalation.answerer === 'client' && res.isError === true,
	      'declined: rejected by the client, nothing started', sc);
	check(fs.readFileSync(path.join(outside, 'file'), 'utf8') === 'original\n',
	      'declined: the file outside is unchanged');

	// Cancelled by the user: cancelled, nothing runs.
	answer = 'cancel';
	res = await client.callTool({ name: 'run', arguments: {
		command: `echo cancelled > '${outside}/file'`, escalate: 'danger-full-access',
		justification: 'the test writes outside the root' } });
	sc = res.structuredContent || {};
	check(sc.started === false && sc.escalation && sc.escalation.outcome === 'cancelled',
	      'cancelled by the user: outcome cancelled, nothing started', sc);

	// Accepted: runs once under that mode.
	answer = 'accept';
	res = await client.callTool({ name: 'run', arguments: {
		command: `echo accepted > '${outside}/file'`, escalate: 'danger-full-access',
		justification: 'the test writes outside the root' } });
	sc = res.structuredContent || {};
	check(sc.class === 'ok' && sc.mode === 'danger-full-access' && sc.escalation &&
	      sc.escalation.outcome === 'allowed-once' && sc.escalation.answerer === 'client',
	      'accepted: allowed-once by the client, run under danger-full-access', sc);
	check(sc.escalation && sc.escalation.reason === 'go ahead, once',
	      'the user\'s note reaches the result', sc.escalation);
	check(fs.readFileSync(path.join(outside, 'file'), 'utf8') === 'accepted\n',
	      'accepted: the write outside landed');
	check(Array.isArray(sc.notices) && sc.notices.some((n) => /allowed once/.test(n)) &&
	      !/warden: run:/.test(stream(res, 'stderr') || ''),
	      'warden\'s notice travels in notices, not in the command\'s stderr', sc);
	// Once: the next plain run is back under the session's mode.
	res = await client.callTool({ name: 'run', arguments: { command: `echo again > '${outside}/file'` } });
	check((res.structuredContent || {}).class === 'denied', 'allowed once only: the next run is denied again',
	      res.structuredContent);

	// The network: denied while restricted, with how to ask for it.
	console.log('---- the network');
	const netMarker = path.join(outside, 'net-marker');
	fs.rmSync(netMarker, { force: true });
	const tcp = await markerServer(netMarker);
	const reach = `echo reached-${tag} > /dev/tcp/127.0.0.1/${tcp.port} && echo sent`;
	const markerSoon = async () => {
		for (let i = 0; i < 20 && !fs.existsSync(netMarker); i++)
			await sleep(100);
		return fs.existsSync(netMarker) ? fs.readFileSync(netMarker, 'utf8') : null;
	};
	res = await client.callTool({ name: 'run', arguments: { command: reach } });
	sc = res.structuredContent || {};
	check(sc.class === 'denied' && sc.network === 'restricted' && sc.network_denied === true &&
	      sc.escalate_network === true && sc.escalate_to === null && res.isError === true,
	      'a connection to the host is denied by the restricted network, escalate_network says so', sc);
	check(/denied by the restricted network/.test(text(res)) &&
	      /"escalate_network": *true/.test(text(res)) && /justification/.test(text(res)) &&
	      !/"escalate": *"/.test(text(res)),
	      'the denial text says the network refused it and how to ask for the network', text(res));
	check(await markerSoon() === null, 'denied: the host\'s server was not reached');

	answer = 'decline';
	asked.length = 0;
	res = await client.callTool({ name: 'run', arguments: { command: reach, escalate_network: true,
		justification: 'the test reaches its own server' } });
	sc = res.structuredContent || {};
	check(asked.length === 1 && /once with the network enabled/.test(asked[0].message) &&
	      asked[0].message.includes(reach) && asked[0].message.includes('the test reaches its own server'),
	      'escalate_network asks the client once, for the network, showing the command', asked);
	check(sc.started === false && sc.escalation && sc.escalation.outcome === 'rejected' &&
	      sc.escalation.network === 'enabled' && sc.escalation.mode === null && res.isError === true,
	      'escalate_network declined: rejected, nothing started', sc);
	check(await markerSoon() === null, 'escalate_network declined: the host\'s server was not reached');

	answer = 'accept';
	asked.length = 0;
	res = await client.callTool({ name: 'run', arguments: { command: reach, escalate_network: true,
		justification: 'the test reaches its own server' } });
	sc = res.structuredContent || {};
	check(asked.length === 1 && sc.class === 'ok' && sc.network === 'enabled' &&
	      sc.mode === 'workspace-write' && stream(res, 'stdout') === 'sent\n' && sc.escalation &&
	      sc.escalation.outcome === 'allowed-once' && sc.escalation.answerer === 'client' &&
	      /escalation to network enabled: allowed-once by client/.test(text(res)),
	      'escalate_network accepted: run once with the network, files still sandboxed', sc);
	check(await markerSoon() === `reached-${tag}\n`, 'escalate_network accepted: the host\'s server was reached');
	fs.rmSync(netMarker, { force: true });
	res = await client.callTool({ name: 'run', arguments: { command: reach } });
	check((res.structuredContent || {}).network_denied === true && await markerSoon() === null,
	      'allowed once only: the next run is denied the network again', res.structuredContent);
	tcp.close();

	// Bad arguments are a tool error, never a run.
	res = await client.callTool({ name: 'run', arguments: { command: `touch '${ws}/bad'`, escalate: 'read-only',
		justification: 'x' } });
	check(res.isError === true && !fs.existsSync(path.join(ws, 'bad')) && /escalate/.test(text(res)),
	      'a bad escalate is an error and nothing runs', res);
	res = await client.callTool({ name: 'run', arguments: { command: `touch '${ws}/bad'`, escalate: 'danger-full-access' } });
	check(res.isError === true && !fs.existsSync(path.join(ws, 'bad')) && /justification/.test(text(res)),
	      'escalate without justification is an error and nothing runs', res);
	try {
		res = await client.callTool({ name: 'no_such_tool', arguments: {} });
		check(res.isError === true, 'an unknown tool is an error', res);
	} catch (e) {
		check(e instanceof McpError, 'an unknown tool is an error', String(e));
	}

	// Progress while a long command runs.
	console.log('---- progress');
	const progress = [];
	res = await client.callTool({ name: 'run', arguments: { command: 'for i in 1 2 3; do echo tick $i; sleep 1; done' } },
		undefined, { onprogress: (p) => progress.push(p) });
	check((res.structuredContent || {}).class === 'ok', 'the long command ran', res.structuredContent);
	check(progress.length >= 2, `progress notifications arrived (${progress.length})`, progress);
	check(progress.every((p, i) => i === 0 || p.progress > progress[i - 1].progress),
	      'progress only increases', progress);
	check(progress.some((p) => typeof p.message === 'string' && /tick/.test(p.message)),
	      'a progress message shows the output', progress);
	// A silent command: progress every second all the same.
	const quiet = [];
	const t0 = Date.now();
	res = await client.callTool({ name: 'run', arguments: { command: 'sleep 3.2' } },
		undefined, { onprogress: (p) => quiet.push({ ...p, at: Date.now() - t0 }) });
	check((res.structuredContent || {}).class === 'ok' && stream(res, 'stdout') === '',
	      'the silent command ran', res.structuredContent);
	check(quiet.length >= 3 && quiet.length <= 6,
	      `a silent 3.2 s command: progress at the start and every second (${quiet.length}: ` +
	      `${quiet.map((p) => p.at).join(', ')} ms)`, quiet);
	check(quiet.every((p, i) => i === 0 || p.progress > quiet[i - 1].progress),
	      'its progress only increases', quiet);
	check(quiet.length >= 3 && quiet[quiet.length - 1].progress >= 2 &&
	      quiet.some((p) => /running for [0-9]+ s, no output yet/.test(p.message || '')),
	      'its progress counts the seconds it runs and says there is no output yet', quiet);

	// Cancel a long run: its processes are gone, the server goes on.
	console.log('---- cancel');
	const marker = `3600.${tag}`;
	const ctl = new AbortController();
	const started = Date.now();
	const call = client.callTool({ name: 'run', arguments: { command: `sleep ${marker}; echo never > '${ws}/never'` } },
		undefined, { signal: ctl.signal });
	for (let i = 0; i < 50 && processesWith(marker).length === 0; i++)
		await sleep(100);
	check(processesWith(marker).length > 0, 'the long run started');
	ctl.abort('the test cancels it');
	let rejected = false;
	try { await call; } catch (e) { rejected = true; }
	check(rejected, 'the cancelled call rejects on the client');
	let left = processesWith(marker);
	for (let i = 0; i < 100 && left.length > 0; i++) {
		await sleep(100);
		left = processesWith(marker);
	}
	check(left.length === 0, `the cancelled run's processes are gone (${Date.now() - started} ms)`, left);
	check(!fs.existsSync(path.join(ws, 'never')), 'the cancelled command did not go on');
	res = await client.callTool({ name: 'run', arguments: { command: 'echo still here' } });
	check(stream(res, 'stdout') === 'still here\n', 'the server serves after a cancel', res);

	await client.close();
	sanitizerClean(c, 'with elicitation');
	return session;
}

// What the server said on stderr holds no sanitizer report.
function sanitizerClean(c, what) {
	check(!/Sanitizer|runtime error:/.test(c.stderr()), `${what}: the server's stderr has no sanitizer report`,
	      c.stderr());
}

// Waits up to ms for the request's abort signal; resolves to what
// happened: { aborted, reason, after }.
function abortedWithin(signal, ms) {
	const t0 = Date.now();
	return new Promise((resolve) => {
		const done = () => resolve({ aborted: true, reason: String(signal.reason), after: Date.now() - t0 });
		if (signal.aborted)
			return done();
		const timer = setTimeout(() => resolve({ aborted: false, after: Date.now() - t0 }), ms);
		signal.addEventListener('abort', () => { clearTimeout(timer); done(); });
	});
}

async function withdrawn() {
	console.log('---- a tool call cancelled while its elicitation waits: the question is withdrawn');
	const seen = [];
	let asked = 0;
	const c = await connect(cfgElicit, { elicitation: {} }, 'warden-test-withdrawn');
	const { client } = c;
	client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
		asked++;
		seen.push(await abortedWithin(extra.signal, 10000));
		return { action: 'accept' };
	});
	const ctl = new AbortController();
	const call = client.callTool({ name: 'run', arguments: {
		command: `echo withdrawn > '${outside}/file'`, escalate: 'danger-full-access',
		justification: 'the test cancels it while asked' } }, undefined, { signal: ctl.signal });
	for (let i = 0; i < 100 && asked === 0; i++)
		await sleep(50);
	check(asked === 1, 'the elicitation came');
	ctl.abort('the test cancels the call');
	try { await call; } catch (e) { /* rejected, as cancelled */ }
	for (let i = 0; i < 100 && seen.length === 0; i++)
		await sleep(50);
	check(seen.length === 1 && seen[0].aborted && seen[0].reason === 'the run was cancelled' &&
	      seen[0].after < 5000,
	      'notifications/cancelled fired the elicitation handler\'s abort signal: the run was cancelled', seen);
	check(fs.readFileSync(path.join(outside, 'file'), 'utf8') === 'accepted\n',
	      'the withdrawn escalation changed nothing');
	const res = await client.callTool({ name: 'run', arguments: { command: 'echo still here' } });
	check(stream(res, 'stdout') === 'still here\n', 'the server serves after a withdrawal', res);
	await client.close();
	sanitizerClean(c, 'withdrawn');
}

async function nobodyCanAnswer() {
	console.log('---- nobody can answer (no elicitation, no terminal): no invitation to escalate');
	const c = await connect(cfgNobody, {}, 'warden-test-nobody', true);
	const { client } = c;
	const instr = client.getInstructions() || '';
	check(!/escalate/.test(instr) && /Nobody can approve/.test(instr) &&
	      /client: the client did not declare elicitation; tty: no terminal/.test(instr),
	      'the instructions invite no escalation and say why', instr);
	const { tools } = await client.listTools();
	const run = tools.find((t) => t.name === 'run') || {};
	check(!/escalate/.test(run.description || '') && /Nobody can approve/.test(run.description || ''),
	      'the run tool invites no escalation', run.description);
	let res = await client.callTool({ name: 'run', arguments: { command: `echo x > '${outside}/nobody'` } });
	let sc = res.structuredContent || {};
	check(sc.class === 'denied' && sc.escalate_to === null && sc.escalate_network === false &&
	      /nobody can approve it: client: the client did not declare elicitation; tty: no terminal/.test(text(res)) &&
	      !/call run again/.test(text(res)),
	      'a denial offers no escalation and says why nobody can approve', [sc, text(res)]);
	// A model that escalates anyway: unavailable, each answerer's reason.
	res = await client.callTool({ name: 'run', arguments: {
		command: `echo x > '${outside}/nobody'`, escalate: 'danger-full-access',
		justification: 'anyway' } });
	sc = res.structuredContent || {};
	const reason = (sc.escalation || {}).reason || '';
	check(sc.started === false && sc.escalation && sc.escalation.outcome === 'unavailable' &&
	      /client: the client did not declare elicitation/.test(reason) && /tty: no terminal/.test(reason),
	      'an escalation anyway: unavailable, the reason says why for each answerer', sc.escalation);
	check(!fs.existsSync(path.join(outside, 'nobody')), 'nothing was written outside');
	await client.close();
	sanitizerClean(c, 'nobody can answer');
}

async function slowAndMalformed() {
	console.log('---- no answer in time, a malformed answer: unavailable, nothing runs');
	let mode = 'slow';
	const seen = [];
	const c = await connect(cfgSlow, { elicitation: {} }, 'warden-test-slow');
	const { client } = c;
	client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
		if (mode === 'slow') {
			seen.push(await abortedWithin(extra.signal, 4000));
			return { action: 'accept' };
		}
		return { action: 'maybe' };
	});
	for (mode of ['slow', 'malformed']) {
		const res = await client.callTool({ name: 'run', arguments: {
			command: `echo ${mode} > '${outside}/file'`, escalate: 'danger-full-access',
			justification: 'the test writes outside the root' } });
		const sc = res.structuredContent || {};
		check(sc.started === false && sc.escalation && sc.escalation.outcome === 'unavailable' &&
		      sc.escalation.answerer === 'client' && res.isError === true,
		      `${mode}: the client answerer is unavailable, nothing started`, sc.escalation);
		check(fs.readFileSync(path.join(outside, 'file'), 'utf8') === 'accepted\n',
		      `${mode}: the file outside is unchanged`);
		if (mode === 'slow')
			check(seen.length === 1 && seen[0].aborted &&
			      seen[0].reason === 'no answer came in time' && seen[0].after < 3500,
			      'slow: the elicitation was withdrawn at the timeout (its abort signal fired)', seen);
	}
	await client.close();
	sanitizerClean(c, 'slow client');
}

// `warden grant ARGS...` in the session, as its user would run it: what
// it printed (parsed for --json: {grants: [...]}), or { error } when it
// failed.
function grantCli(session, ...args) {
	try {
		const out = execFileSync(warden, ['--config', cfgElicit, '--session', session, 'grant', ...args],
			{ encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
			  env: { PATH: process.env.PATH, HOME: process.env.HOME || '/root' } });
		return args.includes('--json') ? JSON.parse(out) : { out };
	} catch (e) {
		return { error: `warden grant ${args.join(' ')}: ${e.stderr || e}` };
	}
}

async function grants() {
	console.log('---- allowed for the session through elicitation');
	let answer = () => ({ action: 'decline' });
	const asked = [];
	const c = await connect(cfgElicit, { elicitation: {} }, 'warden-test-grants');
	const { client } = c;
	client.setRequestHandler(ElicitRequestSchema, async (req) => {
		asked.push(req.params);
		return answer(req.params);
	});
	const marker = path.join(outside, 'granted');
	fs.rmSync(marker, { force: true });
	const lines = () => (fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8').split('\n').filter(Boolean).length : 0);
	const run = { name: 'run', arguments: { command: `echo granted-${tag} >> '${marker}'`,
		escalate: 'danger-full-access', justification: 'the test appends outside the root' } };

	// The user picks the grant the form offers.
	answer = () => ({ action: 'accept', content: { decision: 'allowed-for-session:exact', message: 'for this session' } });
	let res = await client.callTool(run);
	let sc = res.structuredContent || {};
	const esc = sc.escalation || {};
	const grant = esc.grant || {};
	const decision = asked.length === 1 ? ((asked[0].requestedSchema || {}).properties || {}).decision || {} : {};
	const choices = (decision.oneOf || []).map((o) => o.const);
	check(asked.length === 1 && JSON.stringify(choices) === JSON.stringify(['allowed-once', 'allowed-for-session:exact']) &&
	      decision.default === 'allowed-once' && decision.oneOf[0].title === 'Only this time' &&
	      /^For this session: exactly `bash -c /.test(decision.oneOf[1].title) &&
	      decision.oneOf[1].title.includes(marker) && decision.oneOf[1].title.includes('danger-full-access') &&
	      /for this session as chosen under Allow/.test(asked[0].message),
	      'the elicitation offers once (the default) and the request\'s exact scope, titled with its text',
	      asked.map((a) => a.requestedSchema));
	check(sc.class === 'ok' && sc.mode === 'danger-full-access' && esc.outcome === 'allowed-for-session' &&
	      esc.answerer === 'client' && esc.reason === 'for this session' && grant.scope === 'exact' &&
	      grant.new === true && /^grant-/.test(grant.id || '') && lines() === 1,
	      'allowed for the session: the run went ahead and the result names the new grant', sc);
	const session = sc.session;

	// The same run again: not asked, covered by the grant.
	answer = () => ({ action: 'decline' });
	res = await client.callTool(run);
	sc = res.structuredContent || {};
	check(asked.length === 1 && sc.class === 'ok' && sc.escalation &&
	      sc.escalation.outcome === 'allowed-for-session' &&
	      JSON.stringify(sc.escalation.grant) === JSON.stringify({ id: grant.id, scope: 'exact', new: false }) &&
	      lines() === 2,
	      `the identical run is not asked (the handler ran ${asked.length} time(s)) and names the grant`, sc);
	let list = grantCli(session, 'list', '--json');
	check(list.grants && list.grants.length === 1 && list.grants[0].id === grant.id && list.grants[0].name === 'exact' &&
	      list.grants[0].answerer === 'client' && list.grants[0].text.includes(`granted-${tag}`),
	      'warden grant list --json shows the grant the client gave', list);

	// Revoked: asked again (and declined: nothing runs).
	const revoked = grantCli(session, 'revoke', grant.id || '');
	list = grantCli(session, 'list', '--json');
	check(!revoked.error && list.grants && list.grants.length === 0,
	      'warden grant revoke: no grant in force', [revoked, list]);
	res = await client.callTool(run);
	sc = res.structuredContent || {};
	check(asked.length === 2 && sc.started === false && sc.escalation && sc.escalation.outcome === 'rejected' &&
	      !sc.escalation.grant && lines() === 2,
	      'revoked: the identical run is asked again, and declined nothing runs', sc);

	// A scope the form did not offer: no grant, nothing runs.
	for (const bad of ['allowed-for-session:prefix:1', 'allowed-for-session:destination']) {
		answer = () => ({ action: 'accept', content: { decision: bad } });
		res = await client.callTool(run);
		sc = res.structuredContent || {};
		check(sc.started === false && sc.escalation && sc.escalation.outcome === 'unavailable' &&
		      sc.escalation.answerer === 'client' && /did not offer/.test(sc.escalation.reason || '') &&
		      !sc.escalation.grant && res.isError === true && lines() === 2,
		      `a decision the form did not offer (${bad}): unavailable, nothing runs`, sc.escalation);
	}
	list = grantCli(session, 'list', '--json');
	check(list.grants && list.grants.length === 0 && asked.length === 4, 'and no grant was given', list);

	// Accept without a choice: once, no grant.
	answer = () => ({ action: 'accept' });
	res = await client.callTool(run);
	sc = res.structuredContent || {};
	check(asked.length === 5 && sc.class === 'ok' && sc.escalation && sc.escalation.outcome === 'allowed-once' &&
	      !sc.escalation.grant && lines() === 3 && (grantCli(session, 'list', '--json').grants || [0]).length === 0,
	      'accepted with nothing chosen: allowed once, no grant', sc);
	await client.close();
	sanitizerClean(c, 'grants');
	return session;
}

async function withoutElicitation() {
	console.log('---- a client without elicitation: the rest of the waterfall decides');
	const c = await connect(cfgWaterfall, {}, 'warden-test-plain');
	const { client } = c;
	let res = await client.callTool({ name: 'run', arguments: {
		command: `echo by-rules > '${outside}/rules-file'`, escalate: 'danger-full-access',
		justification: 'allowed by the rules' } });
	let sc = res.structuredContent || {};
	check(sc.class === 'ok' && sc.escalation && sc.escalation.outcome === 'allowed-once' &&
	      sc.escalation.answerer === 'rules' &&
	      JSON.stringify(sc.escalation.delegated) === JSON.stringify(['client']),
	      'the client answerer delegates, the rules answerer allows', sc.escalation);
	check(fs.existsSync(path.join(outside, 'rules-file')), 'the allowed write landed');
	res = await client.callTool({ name: 'run', arguments: {
		command: `echo nope > '${outside}/file'`, escalate: 'danger-full-access',
		justification: 'not in the rules' } });
	sc = res.structuredContent || {};
	check(sc.started === false && sc.escalation && sc.escalation.outcome === 'rejected' &&
	      sc.escalation.answerer === 'rules',
	      'the rules answerer rejects the rest', sc.escalation);
	check(fs.readFileSync(path.join(outside, 'file'), 'utf8') === 'accepted\n',
	      'the rejected write changed nothing');
	await client.close();
	sanitizerClean(c, 'without elicitation');
}

(async () => {
	let session = '', grantSession = '';
	try {
		session = await withElicitation();
		grantSession = await grants();
		await withoutElicitation();
		await slowAndMalformed();
		await withdrawn();
		await nobodyCanAnswer();
	} catch (e) {
		fail('the client stopped', e && e.stack ? e.stack : String(e));
	}
	if (session)
		console.log(`session: ${session}`);
	if (grantSession)
		console.log(`grant session: ${grantSession}`);
	process.exit(Math.min(failures, 100));
})();

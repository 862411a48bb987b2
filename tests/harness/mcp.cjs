// mcp.cjs — the scenario (scenario.json) through `warden mcp`, driven by
// the official MCP TypeScript SDK over stdio: every case as a call of
// the run tool with merge_output (one text of both streams, in the order
// written, as a terminal shows it), cwd, stdin and timeout_s as the case
// gives them; the same checks as tests/harness/common.py.
//
//   node mcp.cjs SDK_DIR WARDEN CONFIG WS OUTSIDE TAG
'use strict';

const fs = require('fs');
const path = require('path');

const [sdkDir, warden, config, ws, outside, tag] = process.argv.slice(2);
const sdk = (p) => require(path.join(sdkDir, '@modelcontextprotocol', 'sdk', 'dist', 'cjs', p));
const { Client } = sdk('client/index.js');
const { StdioClientTransport } = sdk('client/stdio.js');

let failures = 0;
const sub = (v) => typeof v === 'string'
	? v.split('{ws}').join(ws).split('{outside}').join(outside).split('{tag}').join(tag)
	: Array.isArray(v) ? v.map(sub)
	: v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, sub(x)]))
	: v;
const cases = sub(JSON.parse(fs.readFileSync(path.join(__dirname, 'scenario.json'), 'utf8'))).cases;

function check(c, got) {
	const e = c.expect;
	const bad = [];
	if ('refused' in e) {
		if (!('refused' in got) || !got.refused.includes(e.refused))
			bad.push(`want a refusal saying ${e.refused}`);
	} else {
		const r = got.result || {};
		for (const k of ['class', 'exit', 'signal', 'timed_out', 'timeout_ms', 'network_denied', 'escalate_to'])
			if (k in e && r[k] !== e[k])
				bad.push(`${k} ${JSON.stringify(r[k])}, want ${JSON.stringify(e[k])}`);
		if (e.says_timed_out && !/timed out/.test(got.text))
			bad.push('the text does not say it timed out');
		if ('merged' in e && got.merged !== e.merged)
			bad.push(`output ${JSON.stringify(got.merged.slice(0, 200))}, want ${JSON.stringify(e.merged)}`);
		if (e.capped) {
			const k = e.capped;
			const want = k.char.repeat(k.head) + `\n[... ${k.left_out} bytes left out ...]\n` + k.char.repeat(k.tail);
			if (got.merged !== want)
				bad.push(`output of ${got.merged.length} chars, want ${want.length} (capped)`);
		}
	}
	if (e.absent && fs.existsSync(e.absent))
		bad.push(`${e.absent} exists: it ran`);
	if (bad.length === 0) {
		console.log(`ok: mcp: ${c.name}`);
	} else {
		failures++;
		console.log(`FAIL: mcp: ${c.name}`);
		console.log(`  ${JSON.stringify({ why: bad, got }).slice(0, 2000)}`);
	}
}

async function main() {
	const transport = new StdioClientTransport({
		command: warden, args: ['--config', config, 'mcp', '--cwd', ws], stderr: 'inherit',
		env: { PATH: process.env.PATH, HOME: process.env.HOME || '/root' },
	});
	const client = new Client({ name: 'warden-harness', version: '1.0.0' }, { capabilities: {} });
	await client.connect(transport);
	for (const c of cases) {
		const args = { command: c.command, merge_output: true };
		for (const k of ['cwd', 'stdin', 'timeout_s'])
			if (k in c)
				args[k] = c[k];
		const res = await client.callTool({ name: 'run', arguments: args }, undefined, { timeout: 120000 });
		const blocks = (res.content || []).filter((b) => b.type === 'text').map((b) => b.text);
		if (!res.structuredContent) {
			check(c, { refused: blocks.join('\n') });
			continue;
		}
		const out = blocks.find((t) => t.startsWith('--- output'));
		check(c, {
			result: res.structuredContent,
			merged: out === undefined ? '' : out.slice(out.indexOf('\n') + 1),
			text: blocks[0] || '',
		});
	}
	await client.close();
}

main().then(() => process.exit(Math.min(failures, 100)),
	(e) => { console.log(`FAIL: mcp: ${e && e.stack ? e.stack : e}`); process.exit(100); });

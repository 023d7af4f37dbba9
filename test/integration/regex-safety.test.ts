/**
 * No pattern or query can freeze the hub (issue 13, item 10): through the real endpoint, the issue's
 * regexes — `(a|aa)+$` on 42 a's and a "!", `(\w|\w\w)+$` on a 40-hex hash, `(a+)+$` in JSON Query's
 * regex() — are answered in under 1 s while /api/status keeps answering; unsupported syntax is refused
 * in words; a pattern that is linear but slow is cut off with an isError; custom PII patterns run the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FILESYSTEM, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
let client: Client;
let fsRoot: string;
let logHandle: string;
let jsonHandle: string;

const RUN = `${'a'.repeat(42)}!`;
const HASH = 'b5f0c3a9e1d2f4a6b8c0d2e4f6a8b0c2d4e6f8a0';
const READ = 'spillway__read_result';

type Result = { content: { type: string; text?: string }[]; isError?: boolean; _meta?: Record<string, unknown> };
const textOf = (r: Result) =>
  r.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');

/**
 * `n` a's and b's in a fixed pseudo-random order, spaced: one long word would cost the tokenizer minutes
 * (byte-pair merges are quadratic in a word's length), which is not what this test is about.
 */
function abLine(n: number): string {
  let seed = 7;
  return Array.from({ length: n }, () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0x100 ? 'a' : 'b')).join(' ');
}

async function call(name: string, args: Record<string, unknown>): Promise<Result> {
  return (await client.callTool({ name, arguments: args })) as Result;
}

/** A call sent together with a status request: how long each took to answer, and what they answered. */
async function withStatus(name: string, args: Record<string, unknown>) {
  const started = performance.now();
  const [result, status] = await Promise.all([
    call(name, args).then((value) => ({ value, ms: performance.now() - started })),
    hub.api('status').then((value) => ({ value, ms: performance.now() - started })),
  ]);
  expect(status.value.ok).toBe(true);
  return { result: result.value, text: textOf(result.value), ms: result.ms, statusMs: status.ms };
}

beforeAll(async () => {
  fsRoot = await mkdtemp(join(tmpdir(), 'spillway-regex-'));
  // Every line but the hash's ends in a dot or a "!", so `(\w|\w\w)+$` finds the hash alone.
  const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i + 1}: request served, status=ok latency=${i % 97} ms.`);
  lines.splice(5_000, 0, RUN);
  lines.splice(10_000, 0, `commit ${HASH}`);
  lines.push(`${abLine(1_500_000)}.`);
  await writeFile(join(fsRoot, 'traps.log'), `${lines.join('\n')}\n`);
  const items = Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: i === 7 ? RUN : i === 8 ? 'aaaa' : `item-${i}`, hash: HASH }));
  await writeFile(join(fsRoot, 'records.json'), JSON.stringify({ items }));
  await writeFile(join(fsRoot, 'small.txt'), `${RUN}\n${HASH}\n`);
  hub = await startTestHub({ version: 1, servers: { fs: { type: 'stdio', ...nodeServer(FILESYSTEM, [fsRoot]) } } });
  await hub.waitForStatus('fs', 'ready');
  client = await hub.connect();
  const handleOf = (r: Result) => r._meta!['spillway/handle'] as string;
  logHandle = handleOf(await call('fs__read_text_file', { path: join(fsRoot, 'traps.log') }));
  jsonHandle = handleOf(await call('fs__read_text_file', { path: join(fsRoot, 'records.json') }));
  expect(logHandle).toBeTruthy();
  expect(jsonHandle).toBeTruthy();
  // Greps run on the read thread: it is started here, so the times below are the patterns' own.
  expect((await call(READ, { handle: logHandle, op: 'grep', pattern: 'commit' })).isError).toBeFalsy();
});

afterAll(async () => {
  await hub?.stop();
  await rm(fsRoot, { recursive: true, force: true });
});

describe('regexes from the model cannot freeze the hub', () => {
  it('grep (a|aa)+$ on 42 a\'s and a "!" is answered in under 1 s, and so is /api/status', async () => {
    const { result, text, ms, statusMs } = await withStatus(READ, { handle: logHandle, op: 'grep', pattern: '(a|aa)+$' });
    expect(result.isError).toBeFalsy();
    expect(text).toMatch(/^grep \/\(a\|aa\)\+\$\/i: 0 matching lines of 20,003\.$/);
    expect(ms).toBeLessThan(1_000);
    expect(statusMs).toBeLessThan(1_000);
  });

  it('grep (\\w|\\w\\w)+$ on a 40-hex hash is answered in under 1 s', async () => {
    const { result, text, ms, statusMs } = await withStatus(READ, { handle: logHandle, op: 'grep', pattern: '(\\w|\\w\\w)+$' });
    expect(result.isError).toBeFalsy();
    expect(text).toBe(`grep /(\\w|\\w\\w)+$/i: 1 matching line of 20,003:\n10001:commit ${HASH}`);
    expect(ms).toBeLessThan(1_000);
    expect(statusMs).toBeLessThan(1_000);
  });

  it("JSON Query's regex() with (a+)+$ is answered in under 1 s", async () => {
    const query = '.items | filter(regex(.name, "(a+)+$")) | map(.id)';
    const { result, text, ms, statusMs } = await withStatus(READ, { handle: jsonHandle, op: 'query', query });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(text.slice(text.indexOf('\n') + 1))).toEqual([8]);
    expect(ms).toBeLessThan(1_000);
    expect(statusMs).toBeLessThan(1_000);
  });

  it('what the engine cannot run is refused in words the model can act on', async () => {
    const back = await call(READ, { handle: logHandle, op: 'grep', pattern: '(a)\\1' });
    expect(back.isError).toBe(true);
    expect(textOf(back)).toMatch(/backreferences .* are not supported: patterns run on a linear-time engine/);
    const ahead = await call(READ, { handle: jsonHandle, op: 'query', query: '.items | filter(regex(.name, "a(?=!)"))' });
    expect(ahead.isError).toBe(true);
    expect(textOf(ahead)).toMatch(/^Bad regular expression in query .*lookahead .* is not supported/);
  });

  it('a linear but slow pattern is cut off with an isError; the hub answers throughout and after', async () => {
    // Hundreds of automaton states alive at each character of the 3 MB line: ~3 s per megabyte here,
    // several times the 2 s deadline.
    const { result, text } = await withStatus(READ, { handle: logHandle, op: 'grep', pattern: 'a[ab ]{1000}[^ab ]' });
    expect(result.isError).toBe(true);
    expect(text).toMatch(/^grep "a\[ab \]\{1000\}\[\^ab \]" was stopped after 2 s without finishing .*: use a simpler or more specific pattern/);
    const after = await withStatus(READ, { handle: logHandle, op: 'grep', pattern: 'latency=96 ms', maxMatches: 1 });
    expect(after.text).toContain('97:line 97: request served');
  });

  it('a custom PII pattern that backtracks in JavaScript masks a result in under 1 s', async () => {
    const set = await hub.api('policies.setTool', {
      server: 'fs',
      tool: 'read_text_file',
      policy: { pii: { types: [], custom: [{ name: 'digest', pattern: '^(\\w|\\w\\w)+$', flags: 'm' }], maskResults: true } },
    });
    expect(set.ok).toBe(true);
    const { result, text, ms, statusMs } = await withStatus('fs__read_text_file', { path: join(fsRoot, 'small.txt') });
    expect(result.isError).toBeFalsy();
    // maskResults keeps the placeholders for models and spilling; the client gets its values back.
    expect(text).toBe(`${RUN}\n${HASH}\n`);
    expect(ms).toBeLessThan(1_000);
    expect(statusMs).toBeLessThan(1_000);
  });
});

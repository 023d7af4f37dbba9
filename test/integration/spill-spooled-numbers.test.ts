/**
 * A JSON result streamed to disk (over 256 KB from a stdio server) whose numbers JSON.parse would change
 * (64-bit ids): its preview shows the ids as the server wrote them, not rounded, as the in-memory path
 * does; and a preview cut inside a line says where to read on (the real filesystem server reads the file).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FILESYSTEM, fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
let client: Client;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-ids-'));
  await writeFile(join(root, 'long-line.txt'), `${'word '.repeat(120_000)}\nsecond line\n`);
  hub = await startTestHub({
    version: 1,
    servers: { fs: { type: 'stdio', ...nodeServer(FILESYSTEM, [root]) }, fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } },
  });
  await Promise.all([hub.waitForStatus('fs', 'ready'), hub.waitForStatus('fx', 'ready')]);
  client = await hub.connect();
});

afterAll(async () => {
  await hub?.stop();
  await rm(root, { recursive: true, force: true });
});

const textOf = (r: Record<string, unknown>) => (r.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');

it('previews 64-bit ids as the server wrote them', async () => {
  // 64-bit ids past 2^53 (1234567890123456789 parses to 1234567890123456800), in a 700 KB text.
  const r = await client.callTool({ name: 'fx__big_json', arguments: { count: 8000, idBase: '1234567890123456789' } });
  const text = textOf(r);
  expect((r._meta as Record<string, unknown>)['spillway/handle']).toBeTruthy();
  // Each of the first ids as written (rounded, they all read 1234567890123456768 or …800).
  for (let i = 0n; i < 10n; i++) expect(text).toContain(String(1234567890123456789n + i));
  // Query answers and grep show them as written.
  const handle = (r._meta as Record<string, string>)['spillway/handle'];
  const read = async (args: Record<string, unknown>) =>
    textOf(await client.callTool({ name: 'spillway__read_result', arguments: { handle, ...args } }));
  const query = await read({ op: 'query', query: '.items | limit(2) | map(.id)' });
  expect(query).toBe('Query ".items | limit(2) | map(.id)":\n[\n  1234567890123456789,\n  1234567890123456790\n]');
  expect(await read({ op: 'query', query: '.total' })).toBe('Query ".total":\n8000');
  expect(await read({ op: 'grep', pattern: 'item-1"' })).toContain('1234567890123456790');
});

it('says where to read on when the preview ends inside a line', async () => {
  const r = await client.callTool({ name: 'fs__read_text_file', arguments: { path: join(root, 'long-line.txt') } });
  const text = textOf(r);
  expect(text).toMatch(/"op":"read","offset":\d+/);
  expect(text).not.toMatch(/"op":"slice","start":2/);
});

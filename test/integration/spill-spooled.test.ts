/**
 * Multi-megabyte upstream lines streamed to disk (wire/raw-spool.ts, spill/raw-texts.ts): a spilled
 * result reads back byte for byte, including every JSON escape and non-ASCII text; the same result under
 * a pass policy, and a big message that is not a tool result (resources/read) reach the client exactly
 * as the upstream sent them; such a result is not cached (the hub would hold it in memory for its TTL),
 * while one an HTTP server sent whole is, and its hit reads back the same; no spooled file is left behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { fixture, NODE, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';
// @ts-expect-error -- a plain .mjs fixture module without types
import { unicodeText } from '../fixtures/unicode-text.mjs';

const expected = unicodeText as (bytes: number) => string;
let hub: TestHub;
let client: Client;
let rawDir: string;
let web: Started;

type Result = Record<string, unknown>;
const blocks = (r: Result) => r.content as { type: string; text?: string }[];
const textOf = (r: Result) =>
  blocks(r)
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
const handleOf = (r: Result) => (r._meta as Record<string, string>)['spillway/handle'];

/** The whole spilled text, read back page by page through the model's own tool. */
async function readAll(handle: string, bytes: number): Promise<string> {
  const res = await client.readResource({ uri: `spillway://spill/${handle}` });
  const text = (res.contents[0] as { text: string }).text;
  expect(Buffer.byteLength(text)).toBe(bytes);
  return text;
}

beforeAll(async () => {
  // The same server over HTTP too, whose results arrive whole in memory: the path the streamed one must match.
  web = await spawnUntil(NODE, [fixture('fixture-server.mjs'), '--http', '--port', '0'], /listening on (\S+)/);
  hub = await startTestHub({
    version: 1,
    servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')), prefix: false }, web: { type: 'http', url: web.match[1] } },
  });
  await Promise.all([hub.waitForStatus('fx', 'ready'), hub.waitForStatus('web', 'ready')]);
  client = await hub.connect();
  rawDir = join(hub.dir, 'spill', '.raw');
});

afterAll(async () => {
  await hub?.stop();
  await web?.stop();
});

describe('results streamed to disk as they arrive', () => {
  it('spills a 3 MB text with every escape and script, and reads it back byte for byte', async () => {
    const want = expected(3_000_000);
    const r = await client.callTool({ name: 'big_unicode', arguments: { bytes: 3_000_000 } });
    const text = textOf(r);
    expect(text).toMatch(/~[\d,]+ tokens \(\d[\d.]* MB\) — showing the first [\d,]+ tokens/);
    expect(text).toContain('0\t"quoted" back\\slash /slash \u0001\u001f ctrl — 日本語のテキスト 😀👍🏽 e\u0301');
    const handle = handleOf(r);
    const stat = textOf(await client.callTool({ name: 'spillway__read_result', arguments: { handle, op: 'stat' } }));
    expect(stat).toContain(Buffer.byteLength(want).toLocaleString('en'));
    expect(await readAll(handle, Buffer.byteLength(want))).toBe(want);
    const grep = textOf(
      await client.callTool({ name: 'spillway__read_result', arguments: { handle, op: 'grep', pattern: '^20000\\t', maxMatches: 5 } }),
    );
    expect(grep).toContain('20000\t"quoted"');
    expect(await readdir(rawDir)).toEqual([]);
  });

  it('spills a result of a few hundred kilobytes (streamed from 256 KiB on) just as exactly', async () => {
    const want = expected(400_000);
    const r = await client.callTool({ name: 'big_unicode', arguments: { bytes: 400_000 } });
    expect(textOf(r)).toMatch(/tokens \(\d[\d.]* KB\) — showing the first [\d,]+ tokens/);
    expect(await readAll(handleOf(r), Buffer.byteLength(want))).toBe(want);
    expect(await readdir(rawDir)).toEqual([]);
  });

  it('decides on the start counted while the text arrived: the same estimate and preview as a result held whole', async () => {
    // Its spooled text is moved into the store after the answer (issue 12): the call is done once published.
    const streamedFinished = hub.waitFor((e) => e.type === 'call.finished' && e.server === 'fx' && e.tool === 'big', 'the streamed call finished');
    const streamed = textOf(await client.callTool({ name: 'big', arguments: { bytes: 1_200_000 } }));
    const whole = textOf(await client.callTool({ name: 'web__big', arguments: { bytes: 1_200_000 } }));
    await streamedFinished;
    const header = (text: string) => /~[\d,]+ tokens \([\d.]+ MB\) — showing the first [\d,]+ tokens/.exec(text)?.[0];
    expect(header(streamed)).toBeDefined();
    expect(header(streamed)).toBe(header(whole));
    const preview = (text: string) => text.slice(text.indexOf('\n---\n'));
    expect(preview(streamed)).toBe(preview(whole));
    expect(await readdir(rawDir)).toEqual([]);
  });

  it('keeps the same content once, whichever way it arrived', async () => {
    // The size as the upstream sent it: the JSON of the result, text escaped.
    const line = 'The quick brown fox jumps over the lazy dog. 0123456789 lorem ipsum dolor sit amet.\n';
    const text = line.repeat(Math.ceil(2_500_000 / line.length)).slice(0, 2_500_000);
    const bytes = Buffer.byteLength(JSON.stringify({ content: [{ type: 'text', text }] }));
    // A spill is answered before its files are in place (issue 12): the calls are done once both are published.
    let finished = 0;
    const bothFinished = hub.waitFor((e) => e.type === 'call.finished' && e.bytesUpstream === bytes && ++finished === 2, 'both calls finished');
    const a = await client.callTool({ name: 'big', arguments: { bytes: 2_500_000 } });
    const b = await client.callTool({ name: 'big', arguments: { bytes: 2_500_000 } });
    await bothFinished;
    expect(handleOf(a)).toBe(handleOf(b));
    const listed = await hub.api<{ handle: string; bytes: number }[]>('spill.list');
    const entry = listed.value!.find((e) => e.handle === handleOf(a));
    expect(entry?.bytes).toBe(bytes);
    expect(await readdir(rawDir)).toEqual([]);
  });

  it('delivers the whole text when the policy passes results, exactly as sent', async () => {
    const set = await hub.api('policies.setTool', { server: 'fx', tool: 'big_unicode', policy: { thresholdTokens: null } });
    expect(set.ok).toBe(true);
    try {
      const r = await client.callTool({ name: 'big_unicode', arguments: { bytes: 2_000_000 } });
      expect(textOf(r)).toBe(expected(2_000_000));
      expect(await readdir(rawDir)).toEqual([]);
    } finally {
      await hub.api('policies.resetTool', { server: 'fx', tool: 'big_unicode' });
    }
  });

  it('does not cache a text streamed to disk: the hub does not hold it in memory', async () => {
    const set = await hub.api('policies.setTool', { server: 'fx', tool: 'big_unicode', policy: { cacheTtlSeconds: 60 } });
    expect(set).toMatchObject({ ok: true });
    const cache = hub.hub.policy.cache;
    const before = cache.stats();
    try {
      const first = await client.callTool({ name: 'big_unicode', arguments: { bytes: 1_500_000 } });
      expect(textOf(first).slice(0, 300)).toContain('[Spillway]');
      const second = await client.callTool({ name: 'big_unicode', arguments: { bytes: 1_500_000 } });
      const want = expected(1_500_000);
      expect(await readAll(handleOf(first), Buffer.byteLength(want))).toBe(want);
      expect(await readAll(handleOf(second), Buffer.byteLength(want))).toBe(want);
      // Neither call stored it (the second was a miss too), and nothing of it is held.
      expect(cache.stats()).toMatchObject({ hits: before.hits, misses: before.misses + 2, entries: before.entries, bytes: before.bytes });
      expect(await readdir(rawDir)).toEqual([]);
    } finally {
      await hub.api('policies.resetTool', { server: 'fx', tool: 'big_unicode' });
    }
  });

  it('caches the real text of a result that arrived in memory, and a hit spills it again', async () => {
    const set = await hub.api('policies.setTool', { server: 'web', tool: 'big_unicode', policy: { cacheTtlSeconds: 60 } });
    expect(set).toMatchObject({ ok: true });
    const cache = hub.hub.policy.cache;
    const before = cache.stats();
    try {
      const first = await client.callTool({ name: 'web__big_unicode', arguments: { bytes: 300_000 } });
      const second = await client.callTool({ name: 'web__big_unicode', arguments: { bytes: 300_000 } });
      expect(cache.stats().hits).toBe(before.hits + 1);
      const want = expected(300_000);
      expect(await readAll(handleOf(first), Buffer.byteLength(want))).toBe(want);
      expect(await readAll(handleOf(second), Buffer.byteLength(want))).toBe(want);
    } finally {
      await hub.api('policies.resetTool', { server: 'web', tool: 'big_unicode' });
    }
  });

  it('relays a big message that is not a tool result (resources/read) unchanged', async () => {
    const res = await client.readResource({ uri: 'fixture://big/2500000' });
    expect((res.contents[0] as { text: string }).text).toBe(expected(2_500_000));
    expect(await readdir(rawDir)).toEqual([]);
  });
});

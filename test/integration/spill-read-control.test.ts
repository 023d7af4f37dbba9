/**
 * `spill.read` over the control API on a result really spilled through the endpoint: the window's viewer
 * pages, searches and saves with the model's read ops and their limits (issue 14 item 9).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FILESYSTEM, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
let fsRoot: string;
let handle: string;
const LINES = 26_000;
const lines = Array.from({ length: LINES }, (_, i) => `line ${i + 1}: ${i % 5000 === 0 ? 'NEEDLE ' : ''}status=ok latency=${i % 97}ms`);

beforeAll(async () => {
  fsRoot = await mkdtemp(join(tmpdir(), 'spillway-spill-read-'));
  await writeFile(join(fsRoot, 'big.log'), lines.join('\n'));
  hub = await startTestHub({ version: 1, servers: { fs: { type: 'stdio', ...nodeServer(FILESYSTEM, [fsRoot]) } } });
  await hub.waitForStatus('fs', 'ready');
  const client = await hub.connect();
  const r = await client.callTool({ name: 'fs__read_text_file', arguments: { path: join(fsRoot, 'big.log') } });
  handle = (r._meta as Record<string, string>)['spillway/handle']!;
});

afterAll(async () => {
  await hub?.stop();
  await rm(fsRoot, { recursive: true, force: true });
});

const read = (body: Record<string, unknown>) => hub.api<{ text: string }>('spill.read', { handle, ...body });

describe('spill.read', () => {
  it('pages the original by lines, past its preview', async () => {
    const page = await read({ op: 'slice', start: 25_001, end: 25_100 });
    expect(page.ok).toBe(true);
    expect(page.value!.text.split('\n')[0]).toBe('Lines 25,001-25,100 of 26,000:');
    expect(page.value!.text).toContain(`\n${lines[25_000]}\n`);
    expect(page.value!.text.endsWith(lines[25_099]!)).toBe(true);
  });

  it("searches with the model's grep", async () => {
    const found = await read({ op: 'grep', pattern: 'needle', maxMatches: 200 });
    expect(found.value!.text.split('\n')).toEqual([
      'grep /needle/i: 6 matching lines of 26,000:',
      ...[0, 5000, 10_000, 15_000, 20_000, 25_000].map((i) => `${i + 1}:${lines[i]}`),
    ]);
  });

  it('reads the whole text in capped chunks', async () => {
    const first = await read({ op: 'read', offset: 0, maxTokens: 8_000 });
    const text = first.value!.text;
    expect(text).toMatch(/\n\[characters 0-[\d,]+ of [\d,]+; continue with \{"op":"read","offset":\d+\}\]$/);
    expect(lines.join('\n').startsWith(text.slice(0, text.lastIndexOf('\n[')))).toBe(true);
  });

  it("answers the model's errors as invalid, and unknown handles as not_found", async () => {
    expect(await read({ op: 'grep', pattern: '(unclosed' })).toMatchObject({ ok: false, code: 'invalid', field: 'pattern' });
    expect(await read({ op: 'slice', start: 30_000 })).toMatchObject({
      ok: false,
      code: 'invalid',
      message: expect.stringContaining('past the end'),
    });
    expect(await hub.api('spill.read', { handle: 'nosuchhandle', op: 'stat' })).toMatchObject({ ok: false, code: 'not_found' });
  });
});

/**
 * Spilling through the real endpoint: a multi-megabyte file read from server-filesystem is kept and the
 * model gets a preview and a handle; read-back by grep, slice, query and resources/read returns the right
 * parts; the SDK Client accepts every spilled result (tools with an outputSchema too); the ledger counts it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { SavingsUpdate } from '../../shared/ledger.js';
import { FILESYSTEM, fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
let client: Client;
let fsRoot: string;
const LINES = 60_000;

const textOf = (r: Record<string, unknown>) =>
  (r.content as { type: string; text?: string }[])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
const handleOf = (r: Record<string, unknown>) => (r._meta as Record<string, string>)['spillway/handle'];

beforeAll(async () => {
  fsRoot = await mkdtemp(join(tmpdir(), 'spillway-spill-fs-'));
  const lines = Array.from(
    { length: LINES },
    (_, i) => `line ${i + 1}: ${i % 1000 === 0 ? 'NEEDLE ' : ''}the log of a busy service, status=ok latency=${i % 97}ms`,
  );
  await writeFile(join(fsRoot, 'big.log'), lines.join('\n'));
  hub = await startTestHub({
    version: 1,
    servers: {
      fs: { type: 'stdio', ...nodeServer(FILESYSTEM, [fsRoot]) },
      fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) },
    },
  });
  await Promise.all(['fs', 'fx'].map((id) => hub.waitForStatus(id, 'ready')));
  client = await hub.connect();
});

afterAll(async () => {
  await hub?.stop();
  await rm(fsRoot, { recursive: true, force: true });
});

describe('spilling through the endpoint', () => {
  let handle: string;

  it('spills a multi-megabyte file read: header with sizes, preview, handle, resource_link', async () => {
    const r = await client.callTool({ name: 'fs__read_text_file', arguments: { path: join(fsRoot, 'big.log') } });
    const text = textOf(r);
    expect(text.length).toBeLessThan(20_000);
    expect(text).toMatch(/[\d,]+ tokens \([\d.]+ [KM]B\) — showing the first/);
    expect(text).toContain('the tool whose name ends in spillway__read_result');
    expect(text).toContain('line 1: NEEDLE');
    handle = handleOf(r);
    expect(handle).toMatch(/^[a-z2-7]{12,}$/);
    const link = (r.content as { type: string; uri?: string }[]).find((c) => c.type === 'resource_link');
    expect(link?.uri).toBe(`spillway://spill/${handle}`);
  });

  it('reads back with grep, slice and stat', async () => {
    const grep = textOf(
      await client.callTool({ name: 'spillway__read_result', arguments: { handle, op: 'grep', pattern: 'needle', maxMatches: 100 } }),
    );
    expect(grep).toContain('line 1001: NEEDLE');
    expect(grep).toContain('line 59001: NEEDLE');
    const slice = textOf(await client.callTool({ name: 'spillway__read_result', arguments: { handle, op: 'slice', start: 30_000, end: 30_002 } }));
    expect(slice).toContain('line 30000:');
    expect(slice).toContain('line 30002:');
    expect(slice).not.toContain('line 30003:');
    const stat = textOf(await client.callTool({ name: 'spillway__read_result', arguments: { handle, op: 'stat' } }));
    expect(stat).toMatch(/60,000|60000/);
  });

  it('counts what the model reads back as delivered, so the savings are net of it', async () => {
    const recorded = new Promise<SavingsUpdate>((resolve) => {
      const off = hub.hub.ledger.subscribe((update) => {
        // This read's record: a smaller read of an earlier test may still be on its way to the ledger.
        if (update.record.kind === 'call' && update.record.tool === 'read_result' && update.record.tokensDelivered > 1_000) {
          off();
          resolve(update);
        }
      });
    });
    const read = await client.callTool({ name: 'spillway__read_result', arguments: { handle, op: 'head', lines: 200 } });
    expect(textOf(read)).toContain('line 200:');
    const { record } = await recorded;
    expect(record).toMatchObject({ kind: 'call', server: 'spillway', tool: 'read_result', tokensUpstream: 0, action: 'pass' });
    expect(record.kind === 'call' && record.tokensDelivered).toBeGreaterThan(1_000); // 200 lines of about 20 tokens
    const readBacks = hub.hub.ledger.report().byTool.find((t) => t.server === 'spillway' && t.tool === 'read_result');
    expect(readBacks!.totals.tokensSaved).toBeLessThan(-1_000);
  });

  it('serves the same content through resources/read, counted as read back', async () => {
    const recorded = new Promise<SavingsUpdate>((resolve) => {
      const off = hub.hub.ledger.subscribe((update) => {
        if (update.record.kind === 'call' && update.record.tool === 'read_result' && update.record.tokensDelivered > 100_000) {
          off();
          resolve(update);
        }
      });
    });
    const res = await client.readResource({ uri: `spillway://spill/${handle}` });
    const body = (res.contents[0] as { text: string }).text;
    expect(body).toContain('line 60000:');
    // The whole text reached the client: all of its tokens count as delivered, against none produced.
    expect((await recorded).record).toMatchObject({ server: 'spillway', tool: 'read_result', tokensUpstream: 0 });
  });

  it('answers an unknown handle with isError and a clear message', async () => {
    const r = await client.callTool({ name: 'spillway__read_result', arguments: { handle: 'aaaaaaaaaaaa', op: 'head' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/No spilled result has the handle "aaaaaaaaaaaa"/);
  });

  it('spills JSON with a structural summary and answers JSON queries on it', async () => {
    const r = await client.callTool({ name: 'fx__big_json', arguments: { count: 5000 } });
    const h = handleOf(r);
    expect(textOf(r)).toMatch(/items/);
    const q = textOf(await client.callTool({ name: 'spillway__read_result', arguments: { handle: h, op: 'query', query: '.items[4321].name' } }));
    expect(q).toContain('item-4321');
  });

  it('keeps tools with an outputSchema valid for the SDK Client when their result is spilled', async () => {
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'fx__big_structured')?.outputSchema).toBeUndefined();
    const small = await client.callTool({ name: 'fx__big_structured', arguments: { count: 2 } });
    expect(small.structuredContent).toEqual({
      rows: [
        { id: 0, label: 'row number 0 with some words' },
        { id: 1, label: 'row number 1 with some words' },
      ],
    });
    const big = await client.callTool({ name: 'fx__big_structured', arguments: { count: 20_000 } });
    expect(big.isError).toBeFalsy();
    expect(big.structuredContent).toBeUndefined();
    expect(handleOf(big)).toBeTruthy();
  });

  it('counts the saving in the ledger and lists the spilled results', async () => {
    const list = await hub.api<{ handle: string }[]>('spill.list');
    expect(list.value!.map((e) => e.handle)).toContain(handle);
    // Exact counts are made off the request path: wait for the ledger's live update, not for time.
    await new Promise<void>((resolve) => {
      const done = () => hub.hub.ledger.report().allTime.byAction.spill >= 3;
      if (done()) return resolve();
      const off = hub.hub.ledger.subscribe(() => {
        if (done()) {
          off();
          resolve();
        }
      });
    });
    const report = await hub.api<{ allTime: { tokensSaved: number; byAction: Record<string, number> } }>('savings.report');
    expect(report.value!.allTime.byAction.spill).toBeGreaterThanOrEqual(3);
    expect(report.value!.allTime.tokensSaved).toBeGreaterThan(100_000);
  });
});

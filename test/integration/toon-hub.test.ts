/**
 * TOON through the real hub (issue 18): in 'auto' a tabular result comes back as TOON with its note and
 * the ledger counts the tokens saved; a result that is not tabular stays JSON; `encoding: 'json'` on the
 * tool keeps JSON; what is shown decodes to exactly the JSON it came from (pass-through, the spilled
 * preview's table, read_result's query). An invalid encoding is refused naming the field.
 */
import { decode } from '@toon-format/toon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { SavingsUpdate } from '../../shared/ledger.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
let client: Client;

const texts = (r: Record<string, unknown>) => (r.content as { type: string; text?: string }[]).filter((c) => c.type === 'text').map((c) => c.text!);
const rowsOf = (count: number) => ({ rows: Array.from({ length: count }, (_, i) => ({ id: i, label: `row number ${i} with some words` })) });

beforeAll(async () => {
  hub = await startTestHub({
    version: 1,
    servers: {
      fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) },
      plain: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) },
    },
    settings: { spill: { thresholdTokens: 4_000, previewTokens: 600 } },
    policies: { servers: {}, tools: { plain: { big_structured: { encoding: 'json' } } } },
  });
  await Promise.all(['fx', 'plain'].map((id) => hub.waitForStatus(id, 'ready')));
  client = await hub.connect();
});

afterAll(async () => {
  await hub?.stop();
});

describe('TOON for tabular results through the hub', () => {
  it('auto: a tabular pass-through result is TOON with a note, decoding to the JSON it came from; the ledger counts the saving', async () => {
    // The ledger records after the answer: its update for this call is the event to wait for.
    const recorded = new Promise<SavingsUpdate>((resolve) => {
      const off = hub.hub.ledger.subscribe((u) => {
        if (u.record.kind === 'call' && u.record.server === 'fx' && u.record.tool === 'big_structured') {
          off();
          resolve(u);
        }
      });
    });
    const r = await client.callTool({ name: 'fx__big_structured', arguments: { count: 40 } });
    const [body, note] = texts(r);
    expect(note).toMatch(/^\[Spillway\] shown as TOON \(tabular\), \d+% fewer tokens than JSON\.$/);
    expect(body).toMatch(/^rows\[40\]\{id,label\}:/);
    expect(decode(body!)).toEqual(rowsOf(40));
    // structuredContent stays JSON.
    expect(r.structuredContent).toEqual(rowsOf(40));
    const update = await recorded;
    const record = update.record as Extract<SavingsUpdate['record'], { kind: 'call' }>;
    expect(record.tokensSavedByEncoding).toBeGreaterThan(0);
    expect(update.allTime.encodingTokensSaved).toBe(record.tokensSavedByEncoding);
    // What the encoding saved is part of the call's saving: the note it adds is delivered too (audit s17).
    expect(record.tokensUpstream - record.tokensDelivered).toBeGreaterThanOrEqual(record.tokensSavedByEncoding!);
  });

  it('a result that is not tabular stays JSON', async () => {
    const r = await client.callTool({ name: 'fx__echo_args', arguments: { text: 'a, "b"', account: 'x' } });
    expect(texts(r)).toEqual([JSON.stringify({ text: 'a, "b"', account: 'x' })]);
  });

  it("encoding 'json' on the tool keeps JSON", async () => {
    const r = await client.callTool({ name: 'plain__big_structured', arguments: { count: 40 } });
    expect(texts(r)).toEqual([JSON.stringify(rowsOf(40))]);
  });

  it("a spilled tabular result's preview shows its first items as TOON and says so; query answers decode exactly", async () => {
    const r = await client.callTool({ name: 'fx__big_structured', arguments: { count: 3_000 } });
    const text = texts(r)[0]!;
    expect(text).toMatch(/showing a structural summary \([\d,]+ tokens; items shown as TOON \(tabular\), \d+% fewer tokens than JSON\)/);
    const table = /First (\d+) items of \.rows as TOON:\n([\s\S]*?)\n… /.exec(text);
    expect(table).not.toBeNull();
    expect(decode(table![2]!)).toEqual(rowsOf(Number(table![1])).rows);
    const handle = (r._meta as Record<string, string>)['spillway/handle'];
    const q = texts(await client.callTool({ name: 'spillway__read_result', arguments: { handle, op: 'query', query: '.rows | limit(25)' } }))[0]!;
    const body = q.slice(q.indexOf('\n') + 1);
    const noteAt = body.lastIndexOf('\n[shown as TOON');
    expect(noteAt).toBeGreaterThan(0);
    expect(decode(body.slice(0, noteAt))).toEqual(rowsOf(25).rows);
    // head reads the TOON view, one row a line.
    const head = texts(await client.callTool({ name: 'spillway__read_result', arguments: { handle, op: 'head', lines: 3 } }))[0]!;
    expect(head).toContain('rows[3000]{id,label}:');
    expect(head).toContain('0,row number 0 with some words');
  });

  it("encoding 'json' on the tool: its spilled preview and read_result answers stay JSON", async () => {
    const r = await client.callTool({ name: 'plain__big_structured', arguments: { count: 3_000 } });
    const text = texts(r)[0]!;
    expect(text).toContain('First items of .rows:');
    expect(text).not.toContain('TOON');
    const handle = (r._meta as Record<string, string>)['spillway/handle'];
    const q = texts(await client.callTool({ name: 'spillway__read_result', arguments: { handle, op: 'query', query: '.rows | limit(3)' } }))[0]!;
    expect(JSON.parse(q.slice(q.indexOf('\n') + 1))).toEqual(rowsOf(3).rows);
  });

  it('refuses an invalid encoding, naming the field', async () => {
    const res = await hub.api('policies.setTool', { server: 'fx', tool: 'big_structured', policy: { encoding: 'yaml' } });
    expect(res.ok).toBe(false);
    expect(res.message).toMatch(/encoding/);
  });
});

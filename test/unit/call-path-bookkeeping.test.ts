/**
 * The cheaper bookkeeping of a call (issue 12, HTTP goals): a call record built without zod is the one
 * the schema would build; the ledger counts a small result once however often it comes back; a fast
 * path's cancellation behaves like an AbortSignal without making one; messages held back under load reach
 * the server in order.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CallRecordSchema, type LedgerEntry } from '../../shared/ledger.js';
import { callEntry, type CallRecordInput } from '../../electron/core/ledger/call-record.js';
import { Ledger } from '../../electron/core/ledger/ledger.js';
import { UsageRecords, type CountedCall } from '../../electron/core/ledger/usage-records.js';
import { RequestCancellation, whenCancelled } from '../../electron/core/downstream/request-cancellation.js';
import { requestExtra } from '../../electron/core/downstream/request-extra.js';
import { StdioUpstreamTransport } from '../../electron/core/upstream/stdio-transport.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

const TIME = '2026-11-24T08:00:00.000Z';

describe('callEntry: a ledger line without zod', () => {
  const base: CallRecordInput = {
    server: 'fs',
    tool: 'read',
    action: 'pass',
    tokensUpstream: 12,
    tokensDelivered: 12,
    tokensEstimated: false,
    bytesUpstream: 80,
    bytesDelivered: 80,
    latencyMs: 0.42,
  };
  it.each<[string, CallRecordInput]>([
    ['the plainest record', base],
    ['with a client and a handle', { ...base, client: 'cursor', action: 'spill', handle: 'abcd2345efgh' }],
    ['with keys the schema does not know', { ...base, extra: 1 } as CallRecordInput],
    ['with -0 and zero latency', { ...base, tokensUpstream: -0, latencyMs: 0 }],
  ])('%s is the line the schema makes, keys in the same order', (_name, input) => {
    const fast = callEntry(input, () => TIME);
    const schema = { kind: 'call', ...CallRecordSchema.parse({ ...input, time: TIME }) };
    expect(JSON.stringify(fast)).toBe(JSON.stringify(schema));
  });

  it.each<[string, Record<string, unknown>]>([
    ['a negative count', { tokensUpstream: -5 }],
    ['a fractional count', { bytesDelivered: 1.5 }],
    ['an unknown action', { action: 'explode' }],
    ['an infinite latency', { latencyMs: Infinity }],
    ['a time that is not one', { time: 'yesterday' }],
  ])('refuses %s as the schema does', (_name, change) => {
    expect(() => callEntry({ ...base, ...change } as CallRecordInput, () => TIME)).toThrow();
  });
});

describe('UsageRecords: counts of small results are remembered', () => {
  function passed(text: string, counts: { n: number }, countsDelivered: boolean): CountedCall {
    return {
      session: { clientName: 'cursor' },
      server: 'fx',
      tool: 'noop',
      durationMs: 1,
      report: {
        action: 'pass',
        asIs: true,
        bytesUpstream: 50,
        bytesDelivered: 50,
        delivered: { content: [{ type: 'text', text }] },
        countUpstreamTokens: async () => (counts.n++, { tokens: 7, estimated: false }),
        countsDelivered,
      },
    };
  }

  it('counts the same small result once, and records every call', async () => {
    const counts = { n: 0 };
    const records = await recordSequentially([passed('ok', counts, true), passed('ok', counts, true), passed('other', counts, true)]);
    expect(records.map((r) => (r.kind === 'call' ? r.tokensUpstream : -1))).toEqual([7, 7, 7]);
    expect(counts.n).toBe(2);
  });

  it('counts every time when what was counted is not what was delivered (masked results)', async () => {
    const counts = { n: 0 };
    await recordSequentially([passed('ok', counts, false), passed('ok', counts, false)]);
    expect(counts.n).toBe(2);
  });

  /** Records the calls one after another in one UsageRecords, each after the last is in the ledger. */
  async function recordSequentially(calls: CountedCall[]) {
    const dir = await mkdtemp(join(tmpdir(), 'spillway-usage-'));
    const ledger = new Ledger({ dir });
    cleanups.push(async () => {
      await ledger.close();
      await rm(dir, { recursive: true, force: true });
    });
    await ledger.open();
    const usage = new UsageRecords({
      ledger,
      counter: { countExactOffThread: async (text: string) => ({ tokens: text.length, estimated: false }) },
      schemas: () => ({ upstream: [], exposed: [] }),
      log: () => undefined,
    });
    const records: LedgerEntry[] = [];
    for (const c of calls) {
      const next = new Promise<void>((resolve) => {
        const off = ledger.subscribe((u) => {
          records.push(u.record);
          off();
          resolve();
        });
      });
      usage.recordCall(c);
      await next;
    }
    return records;
  }
});

describe('RequestCancellation: a signal only when asked for', () => {
  it('tells its listeners once, with the reason an aborted signal would carry', () => {
    const c = new RequestCancellation();
    const heard: unknown[] = [];
    c.onCancel((reason) => heard.push(reason));
    const stopped = c.onCancel(() => heard.push('never'));
    stopped();
    c.cancel();
    c.cancel('again');
    expect(heard).toHaveLength(1);
    expect(heard[0]).toBeInstanceOf(DOMException);
    expect((heard[0] as DOMException).name).toBe('AbortError');
    expect(c.cancelled).toBe(true);
  });

  it('makes a signal that is already aborted when asked after the cancellation', () => {
    const c = new RequestCancellation();
    c.cancel('enough');
    expect(c.signal.aborted).toBe(true);
    expect(c.signal.reason).toBe('enough');
  });

  it('aborts a signal made before the cancellation', () => {
    const c = new RequestCancellation();
    const signal = c.signal;
    c.cancel('enough');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('enough');
  });

  it('is listened to through a fast path extra without making its signal, and through the signal otherwise', () => {
    const cancellation = new RequestCancellation();
    const server = {} as Server;
    const extra = requestExtra({ server, requestId: 1, cancellation, sessionId: undefined, meta: undefined, info: undefined });
    const heard: unknown[] = [];
    whenCancelled(extra, (reason) => heard.push(reason));
    cancellation.cancel('fast');
    const controller = new AbortController();
    const stop = whenCancelled({ signal: controller.signal }, (reason) => heard.push(reason));
    controller.abort('sdk');
    stop();
    expect(heard).toEqual(['fast', 'sdk']);
  });
});

describe('StdioUpstreamTransport: messages held back under load', () => {
  it('reaches the server in the order they were sent', async () => {
    // A server that answers nothing and reports, on stderr, the id or method of every line it reads.
    const script = `let b='';process.stdin.on('data',(c)=>{b+=c;let i;while((i=b.indexOf('\\n'))!==-1){const m=JSON.parse(b.slice(0,i));b=b.slice(i+1);process.stderr.write((m.id??m.method)+'\\n');}});`;
    const t = new StdioUpstreamTransport({ command: process.execPath, args: ['-e', script], baseEnv: process.env, platform: process.platform });
    cleanups.push(() => t.close());
    const seen: string[] = [];
    const all = new Promise<void>((resolve) => {
      t.onStderr = (line) => {
        seen.push(line);
        if (seen.length === 6) resolve();
      };
    });
    await t.start();
    // The first request is unanswered: the ones after it in this turn are held until the turn's end.
    const sent: JSONRPCMessage[] = [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'b' } },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'c' } },
    ];
    await Promise.all(sent.map((m) => t.send(m)));
    // And a later turn's messages come after them.
    await t.send({ jsonrpc: '2.0', id: 4, method: 'ping' });
    await t.send({ jsonrpc: '2.0', id: 5, method: 'ping' });
    await all;
    expect(seen).toEqual(['1', '2', 'notifications/cancelled', '3', '4', '5']);
  });
});

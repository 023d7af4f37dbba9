/**
 * A hidden parameter's value that the upstream quotes back never reaches the model (audit s19, defect 1):
 * in an ordinary result's text, its structuredContent and an embedded resource, an isError result, a
 * JSON-RPC error's message and data, a thrown error's message, and a long result that spills (its
 * preview and what read_result gives back), the value is replaced by `[hidden: <parameter>]`; nor is it
 * in any event of the call (the log). The value used looks like neither a token nor sits under a secret
 * name, so the log's own masking of secrets does not catch it. A real hub over HTTP, the SDK Client, and a
 * stdio server that quotes its `key` argument in each of those places (quoting-server.mjs).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import { NODE, fixture, startTestHub, type TestHub } from '../support/hub-harness.js';

const HIDDEN = 'orchard-lane';
const SHOWN = '[hidden: key]';

const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('a hidden value the upstream quotes back', () => {
  let t: TestHub;
  let c: Client;
  const events: HubEvent[] = [];
  let off: () => void;

  /** Calls `tool` and waits for its call.finished (its events then are all in `events`). */
  const call = async (tool: string, args: Record<string, unknown> = { q: 'pears' }) => {
    const finished = t.waitFor((e) => e.type === 'call.finished' && e.exposedName === `quo__${tool}`, `call.finished of ${tool}`);
    const result = c.callTool({ name: `quo__${tool}`, arguments: args }).then(
      (r) => r as CallToolResult,
      (err: unknown) => err as Error & { code?: number; data?: unknown },
    );
    await finished;
    return result;
  };

  beforeAll(async () => {
    const policy = { hiddenParams: { key: HIDDEN } };
    t = await startTestHub({
      version: 1,
      servers: { quo: { type: 'stdio', command: NODE, args: [fixture('quoting-server.mjs')] } },
      policies: {
        tools: {
          quo: {
            echo: policy,
            refuse: policy,
            reject: policy,
            crash: policy,
            big: { ...policy, action: 'spill', thresholdTokens: 200 },
          },
        },
      },
      settings: { port: 0 },
    });
    off = t.hub.events.subscribe((e) => void events.push(e));
    await t.waitForStatus('quo', 'ready');
    c = await t.connect();
  }, 60_000);

  afterAll(async () => {
    off?.();
    await t?.stop();
  });

  it('is replaced in an ordinary result: text, structuredContent, an embedded resource', async () => {
    const r = (await call('echo')) as CallToolResult;
    expect(r.isError).toBeFalsy();
    expect(JSON.stringify(r)).not.toContain(HIDDEN);
    expect(r.content[0]).toEqual({ type: 'text', text: `searched "pears" with key ${SHOWN}` });
    expect(r.structuredContent).toEqual({ request: { key: SHOWN, q: 'pears' }, note: `key=${SHOWN}` });
    const resource = r.content[1] as { resource: { text: string } };
    expect(JSON.parse(resource.resource.text)).toEqual({ key: SHOWN, q: 'pears' });
  });

  it('is replaced in an isError result', async () => {
    const r = (await call('refuse')) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(`invalid key ${SHOWN} (for "pears")`);
  });

  it("is replaced in a JSON-RPC error's message and data, and in a thrown error's message", async () => {
    const rejected = (await call('reject')) as Error & { code?: number; data?: unknown };
    expect(rejected).toBeInstanceOf(Error);
    expect(rejected.message).toContain(`invalid key ${SHOWN}`);
    expect(JSON.stringify([rejected.message, rejected.data])).not.toContain(HIDDEN);
    expect(rejected.data).toEqual({ key: SHOWN, hint: `rotate ${SHOWN}` });

    const crashed = (await call('crash')) as CallToolResult;
    expect(crashed.isError).toBe(true);
    expect(textOf(crashed)).toContain(`cannot use key ${SHOWN}`);
    expect(textOf(crashed)).not.toContain(HIDDEN);
  });

  it('is replaced in a spilled result: its preview and what read_result gives back', async () => {
    const r = (await call('big')) as CallToolResult;
    const text = textOf(r);
    expect(text).not.toContain(HIDDEN);
    const handle = /"?handle"?[:=]\s*"?([A-Za-z0-9_-]{6,})/.exec(text)?.[1] ?? /(spill_[A-Za-z0-9_-]+|[0-9a-f-]{36})/.exec(text)?.[1];
    expect(handle, text.slice(0, 600)).toBeTruthy();
    for (const args of [{ op: 'read' }, { op: 'grep', pattern: 'used key' }, { op: 'tail' }]) {
      const read = (await c.callTool({ name: 'spillway__read_result', arguments: { handle, ...args } })) as CallToolResult;
      expect(read.isError, textOf(read)).toBeFalsy();
      expect(textOf(read)).toContain(`used key ${SHOWN} for pears`);
      expect(textOf(read)).not.toContain(HIDDEN);
    }
  });

  it('is in no event of these calls (the log)', () => {
    expect(events.some((e) => e.type === 'call.finished' && e.exposedName === 'quo__refuse' && e.error?.includes(SHOWN))).toBe(true);
    expect(JSON.stringify(events)).not.toContain(HIDDEN);
  });
});

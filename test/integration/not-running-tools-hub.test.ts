/**
 * A call of a tool that is not listed because its server is not running: named `<server>__<tool>` for a
 * configured server, it waits for a server still starting or tried again soon, and is otherwise answered
 * with the server's state, why and what to do, instead of "Unknown tool" (audit s15, resilience item 4).
 * Real stdio upstreams; waits on the hub's events.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Hub } from '../../electron/core/hub.js';
import { NODE, fixture } from '../support/hub-harness.js';
import { HubRuns, hubEvent, upstreamReady, upstreamStatus } from '../support/hub-runs.js';

let runs: HubRuns;
beforeEach(async () => {
  runs = await HubRuns.open('spillway-not-running-');
});
afterEach(() => runs.close());

const textOf = (r: unknown) => (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** A call's answer: its text (error results start with "error result: "), or the JSON-RPC error's message. */
async function call(client: Client, name: string): Promise<string> {
  try {
    const r = (await client.callTool({ name, arguments: {} })) as CallToolResult;
    return r.isError ? `error result: ${textOf(r)}` : textOf(r);
  } catch (err) {
    if (err instanceof McpError && err.code === ErrorCode.InvalidParams) return `error: ${err.message}`;
    throw err;
  }
}

/** Resolves once `done` holds, checked now and after each of the hub's events. */
function until(hub: Hub, done: () => boolean): Promise<unknown> {
  return done() ? Promise.resolve() : hubEvent(hub, done);
}

/** A server that answers initialize and its tools/list, then exits: a crash loop. */
const flap = { type: 'stdio', command: NODE, args: [fixture('scripted-stdio-server.mjs'), 'exits-when-ready'] };
/** A server that answers nothing, not even initialize, until the file `gate` exists. */
const gated = (gate: string) => ({ type: 'stdio', command: NODE, args: [fixture('gated-server.mjs'), '--gate', gate] });

describe('a tool of a configured server that is not running', () => {
  it('says a server stopped after a crash loop is stopped, and why, instead of "Unknown tool"', async () => {
    const hub = await runs.start({ version: 1, servers: { flap } }, { upstream: { crashLoopFailures: 2, backoffBaseMs: 10 } });
    const up = hub.pool.get('flap');
    await until(hub, () => up?.status === 'error' && /stopped after/.test(up.error ?? ''));
    const client = await runs.connect(hub);
    expect(await call(client, 'flap__noop')).toMatch(
      /^error result: Server "flap" is stopped, so its tool "flap__noop" cannot be called: .*stopped after 2 failures in a row; fix the server and press Restart\)\. Restart is in Spillway's Servers view/,
    );
  });

  it('waits for a server still connecting for the first time, then calls it', async () => {
    const gate = join(runs.dir, 'gate');
    const hub = await runs.start({ version: 1, servers: { gated: gated(gate) } });
    expect(hub.pool.get('gated')?.status).toBe('connecting');
    const client = await runs.connect(hub);
    const waiting = hubEvent(hub, (e) => e.type === 'log' && /A call waits for "gated" to start$/.test(e.message));
    const answer = call(client, 'gated__ping');
    await waiting;
    await writeFile(gate, '');
    expect(await answer).toBe('pong');
  });

  it('says a server whose first start failed is tried again, when the try is not soon', async () => {
    const gate = join(runs.dir, 'gate');
    const hub = await runs.start({ version: 1, servers: { gated: gated(gate) } }, { upstream: { connectTimeoutMs: 300, backoffBaseMs: 60_000 } });
    const client = await runs.connect(hub);
    // Called while it connects: the call waits for the start, which fails.
    expect(await call(client, 'gated__ping')).toMatch(
      /^error result: Server "gated" failed and Spillway is trying it again, so its tool "gated__ping" cannot be called yet: .*Call the tool again in a moment\.$/,
    );
  });

  it('waits for a server whose first start failed when it is tried again soon, then calls it', async () => {
    const gate = join(runs.dir, 'gate');
    const failed = (hub: Hub) => upstreamStatus(hub, 'gated', 'error');
    const hub = await runs.start({ version: 1, servers: { gated: gated(gate) } }, { upstream: { connectTimeoutMs: 1500, backoffBaseMs: 1000 } });
    await failed(hub);
    expect(hub.catalog.tool('gated__ping')).toBeUndefined();
    await writeFile(gate, '');
    const client = await runs.connect(hub);
    expect(await call(client, 'gated__ping')).toBe('pong');
  });

  it('lists the tools of a server tried again by the time a call waiting for the try resumes', async () => {
    const gate = join(runs.dir, 'gate');
    const hub = await runs.start({ version: 1, servers: { gated: gated(gate) } }, { upstream: { connectTimeoutMs: 1500, backoffBaseMs: 1000 } });
    await upstreamStatus(hub, 'gated', 'error');
    await writeFile(gate, '');
    const up = hub.pool.get('gated')!;
    expect(up.nextTryInMs).toBeLessThanOrEqual(1000);
    await up.whenTried(10_000);
    expect(up.status).toBe('ready');
    expect(hub.catalog.tool('gated__ping')?.serverId).toBe('gated');
  });

  it('says a disabled server is turned off', async () => {
    const hub = await runs.start({ version: 1, servers: { flap: { ...flap, enabled: false } } });
    const client = await runs.connect(hub);
    expect(await call(client, 'flap__noop')).toMatch(
      /^error result: Server "flap" is turned off in Spillway, so its tool "flap__noop" cannot be called\. Turn it on/,
    );
  });

  it('through spillway__dispatch, says a disabled server is turned off, for describe and call', async () => {
    const fx = { type: 'stdio', command: NODE, args: [fixture('fixture-server.mjs')] };
    const hub = await runs.start({ version: 1, servers: { fx, flap: { ...flap, enabled: false } } });
    await upstreamReady(hub, 'fx');
    const client = await runs.connect(hub);
    const dispatch = async (args: Record<string, unknown>) => textOf(await client.callTool({ name: 'spillway__dispatch', arguments: args }));
    const turnedOff = /^Server "flap" is turned off in Spillway, so its tool "flap__noop" cannot be called\. Turn it on/;
    expect(await dispatch({ action: 'call', name: 'flap__noop', arguments: {} })).toMatch(turnedOff);
    expect(await dispatch({ action: 'describe', name: 'flap__noop' })).toMatch(turnedOff);
    expect(
      hub.events.recent().some((e) => e.type === 'log' && e.server === 'flap' && /called a tool of "flap", which is not running/.test(e.message)),
    ).toBe(true);
    // A running server's missing tool is still unknown.
    expect(await dispatch({ action: 'call', name: 'fx__nope', arguments: {} })).toMatch(/^Unknown tool "fx__nope"/);
  });

  it('still answers "Unknown tool" for a tool a running server does not offer, at once', async () => {
    const hub = await runs.start({ version: 1, servers: { fx: { type: 'stdio', command: NODE, args: [fixture('fixture-server.mjs')] } } });
    await upstreamReady(hub, 'fx');
    const client = await runs.connect(hub);
    expect(await call(client, 'fx__nope')).toMatch(/^error: .*Unknown tool: fx__nope/);
    expect(await call(client, 'nobody__nope')).toMatch(/^error: .*Unknown tool: nobody__nope/);
  });
});

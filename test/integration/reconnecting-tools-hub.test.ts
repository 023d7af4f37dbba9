/**
 * A server that crashed keeps its tools known while it waits to try again (its last lists stand in, as
 * for a server on first use): a call of one says the server is not available, directly and through
 * dispatch, instead of "Unknown tool". A server given up on, disabled or removed takes its tools away
 * (a direct call of one then says the server is stopped: not-running-tools-hub.test.ts).
 * Real stdio upstream (the fixture server); waits on the hub's events.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Hub, HubOptions } from '../../electron/core/hub.js';
import { controlParts } from '../../electron/core/control/control-parts.js';
import { NODE, fixture } from '../support/hub-harness.js';
import { HubRuns, upstreamReady, upstreamStatus } from '../support/hub-runs.js';

let runs: HubRuns;
beforeEach(async () => {
  runs = await HubRuns.open('spillway-reconnecting-');
});
afterEach(() => runs.close());

/** A hub with the fixture server as "fx", ready, and a client; `upstream` tunes its tries. */
async function open(upstream: HubOptions['upstream']): Promise<{ hub: Hub; client: Client }> {
  const hub = await runs.start(
    { version: 1, servers: { fx: { type: 'stdio', command: NODE, args: [fixture('fixture-server.mjs')] } } },
    { upstream },
  );
  await upstreamReady(hub, 'fx');
  return { hub, client: await runs.connect(hub) };
}

/** Crashes the server mid-call and resolves once it reported the failure. */
async function crash(hub: Hub, client: Client): Promise<void> {
  const failed = upstreamStatus(hub, 'fx', 'error');
  const result = (await client.callTool({ name: 'fx__crash', arguments: {} })) as CallToolResult;
  expect(result.isError).toBe(true);
  await failed;
}

const textOf = (r: unknown) => (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');
const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

/** A direct call's answer: its text, or the JSON-RPC error's message. */
async function direct(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  try {
    return textOf(await client.callTool({ name, arguments: args }));
  } catch (err) {
    if (err instanceof McpError && err.code === ErrorCode.InvalidParams) return `error: ${err.message}`;
    throw err;
  }
}

const dispatch = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name: 'spillway__dispatch', arguments: { action: 'call', name, arguments: args } }).then(textOf);

describe('the tools of a server that crashed', () => {
  it('stay known while it waits to try again: a call says the server is not available', async () => {
    const { hub, client } = await open({ backoffBaseMs: 60_000 });
    await crash(hub, client);
    expect(hub.pool.get('fx')?.reconnecting).toBe(true);
    expect(hub.catalog.tool('fx__add')).toMatchObject({ kept: true, state: 'direct' });
    expect(await names(client)).toContain('fx__add');
    const unavailable = /^Server "fx" is not available right now \(status: error: /;
    expect(await direct(client, 'fx__add', { a: 1, b: 2 })).toMatch(unavailable);
    expect(await dispatch(client, 'fx__add', { a: 1, b: 2 })).toMatch(unavailable);
  });

  it('are its own again once it is back', async () => {
    const { hub, client } = await open({ backoffBaseMs: 50 });
    const back = upstreamStatus(hub, 'fx', 'ready');
    await crash(hub, client);
    await back;
    expect(hub.catalog.tool('fx__add')?.kept).toBeUndefined();
    expect(await direct(client, 'fx__add', { a: 1, b: 2 })).toMatch(/3/);
  });

  it('are gone once it is given up on after crashing again and again', async () => {
    const { hub, client } = await open({ crashLoopFailures: 1 });
    await crash(hub, client);
    expect(hub.pool.get('fx')?.reconnecting).toBe(false);
    expect(hub.catalog.tool('fx__add')).toBeUndefined();
    expect(await names(client)).not.toContain('fx__add');
    // Not "Unknown tool": the call says the server is stopped, why, and where Restart is.
    expect(await direct(client, 'fx__add', { a: 1, b: 2 })).toMatch(
      /^Server "fx" is stopped, so its tool "fx__add" cannot be called: .*press Restart\)/,
    );
  });

  it('are gone once it is disabled or removed while it waits to try again', async () => {
    const { hub, client } = await open({ backoffBaseMs: 60_000 });
    const { control } = controlParts(hub);
    await crash(hub, client);
    await control.setServerFields('fx', { enabled: false });
    expect(hub.pool.get('fx')?.status).toBe('disabled');
    expect(hub.catalog.tool('fx__add')).toBeUndefined();

    // Enabled again it starts on first use (its lists are kept): a call starts it.
    await control.setServerFields('fx', { enabled: true });
    expect(await direct(client, 'fx__add', { a: 1, b: 2 })).toMatch(/3/);
    await crash(hub, client);
    expect(hub.catalog.tool('fx__add')?.kept).toBe(true);
    await control.removeUpstream('fx');
    expect(hub.catalog.tool('fx__add')).toBeUndefined();
    expect(await names(client)).not.toContain('fx__add');
  });
});

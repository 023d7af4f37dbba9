/**
 * The call cache with PII masking: each call's placeholders carry their own tag, so a cache hit is
 * restored with the vault of the call that stored the result. Before, the hit was restored with its own
 * vault (another tag) and the client got `{"to":"[EMAIL_1_k3j9x2]"}` instead of its address.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, NODE, startTestHub, type TestHub } from '../support/hub-harness.js';

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

describe('PII masking and the call cache', () => {
  let t: TestHub;
  let client: Client;
  let dir: string;
  let record: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spillway-pii-cache-'));
    record = join(dir, 'calls.jsonl');
    t = await startTestHub({
      version: 1,
      servers: { rec: { type: 'stdio', command: NODE, args: [fixture('recording-server.mjs'), '--record', record] } },
      settings: { port: 0 },
      policies: {
        tools: {
          rec: {
            echo: { pii: { types: ['email'] }, cacheTtlSeconds: 300 },
            big_json: { pii: { types: ['email'], maskResults: true }, cacheTtlSeconds: 300 },
          },
        },
      },
    });
    await t.waitForStatus('rec', 'ready');
    client = await t.connect();
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const call = async (name: string, args: Record<string, unknown>, by = client) => (await by.callTool({ name, arguments: args })) as CallToolResult;
  const received = async (tool: string) =>
    (await readFile(record, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { tool: string; arguments: Record<string, unknown> })
      .filter((c) => c.tool === tool);

  it('a hit gives back the values of the call, and other arguments are never answered with them', async () => {
    const alice = { to: 'alice.smith@example.com', note: 'cc alice.smith@example.com' };
    const bob = { to: 'bob@example.org', note: 'cc alice.smith@example.com' };
    expect(JSON.parse(text(await call('rec__echo', alice)))).toEqual(alice);
    expect(JSON.parse(text(await call('rec__echo', alice)))).toEqual(alice);
    // Other arguments: a miss, answered with their own values.
    expect(JSON.parse(text(await call('rec__echo', bob)))).toEqual(bob);
    // Another client with the same arguments: a hit, with the same values (they are its arguments).
    const other = await t.connect();
    expect(JSON.parse(text(await call('rec__echo', alice, other)))).toEqual(alice);
    expect(JSON.parse(text(await call('rec__echo', bob, other)))).toEqual(bob);
    await other.close();

    // The server was called once per distinct arguments, and only ever saw placeholders.
    const calls = await received('echo');
    expect(calls).toHaveLength(2);
    expect(JSON.stringify(calls)).not.toMatch(/@example/);
    expect(calls[0]!.arguments.to).toMatch(/^\[EMAIL_1_[a-z][a-z0-9]{5}\]$/);
  });

  it('with maskResults, a hit is restored too', async () => {
    const args = { count: 3, emails: true, note: 'for carol@example.net' };
    const first = text(await call('rec__big_json', args));
    expect(first).toContain('"note": "for carol@example.net"');
    expect(first).toContain('person-2@example.org');
    const again = text(await call('rec__big_json', args));
    expect(again).toBe(first);
    expect(await received('big_json')).toHaveLength(1);
  });
});

/**
 * The call cache keys on the client's `_meta` that the upstream is sent with the call (a locale, a user),
 * without its progressToken. Before, bob asked in de-DE and was given alice's fr-FR answer from the cache.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

const textOf = (r: unknown) => (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');

let t: TestHub;
let alice: Client;
let bob: Client;
beforeAll(async () => {
  t = await startTestHub({
    version: 1,
    servers: { store: { type: 'stdio', ...nodeServer(fixture('store-server.mjs')) } },
    settings: { port: 0, policy: { cacheReadOnlyTools: true } },
  });
  await t.waitForStatus('store', 'ready');
  alice = await t.connect(undefined, 'alice');
  bob = await t.connect(undefined, 'bob');
}, 60_000);
afterAll(() => t?.stop());

it('a hit is given only for the same forwarded _meta, whatever the progress token', async () => {
  const inFrench = textOf(await alice.callTool({ name: 'store__locale', arguments: {}, _meta: { 'openai/locale': 'fr-FR' } }));
  expect(inFrench).toContain('"openai/locale":"fr-FR"');
  const inGerman = textOf(await bob.callTool({ name: 'store__locale', arguments: {}, _meta: { 'openai/locale': 'de-DE' } }));
  expect(inGerman).toContain('"openai/locale":"de-DE"');
  // The same _meta, asking for progress (a progressToken of its own): a hit.
  const again = await bob.callTool({ name: 'store__locale', arguments: {}, _meta: { 'openai/locale': 'fr-FR' } }, undefined, {
    onprogress: () => {},
  });
  expect(textOf(again)).toBe(inFrench);
  // No _meta: a call of its own.
  expect(textOf(await alice.callTool({ name: 'store__locale', arguments: {} }))).toMatch(/ meta=\{\}$/);
});

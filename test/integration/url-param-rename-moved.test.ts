/**
 * A credential parameter renamed in a remote server's address (`?token=***` made `?access_token=***` in the
 * edit form) keeps its key, as a renamed env variable or header does: the save stores it under the new name
 * and the config refers to it there; Test reaches the server with it. Two renamed at once, or a hidden value
 * under a new name when none is gone, stand for no stored key: still refused, naming the address (audit s19).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
let server: Server;
let base: string;
/** The request lines the address got (path and query), as the hub sent them. */
const seen: string[] = [];

beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: {} });
  server = createServer((req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  await hub?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

type Listed = { id: string; config: { url: string } };
const shownConfig = async (id: string) => (await hub.api<Listed[]>('upstreams.list')).value!.find((u) => u.id === id)!.config;
const add = async (id: string, query: string) =>
  expect((await hub.api('upstreams.add', { id, config: { type: 'http', url: `${base}?${query}`, enabled: false } })).ok).toBe(true);

it('keeps the key of `token=***` renamed to `access_token=***`, stored under the new name', async () => {
  await add('r', 'token=T0K&v=1');
  const shown = await shownConfig('r');
  expect(shown.url).toBe(`${base}?token=***&v=1`);
  const renamed = { ...shown, url: `${base}?access_token=***&v=1` };

  const tested = await hub.api('upstreams.test', { id: 'r', config: renamed });
  expect(tested.code).not.toBe('invalid');
  expect(seen.some((line) => line.startsWith('/mcp?access_token=T0K&v=1'))).toBe(true);

  const saved = await hub.api('upstreams.update', { id: 'r', config: renamed });
  expect(saved.ok, saved.message).toBe(true);
  expect(hub.hub.config.servers.r).toMatchObject({ url: `${base}?access_token=<secret>&v=1` });
  expect(await hub.hub.secretStore!.get('r', 'url:access_token')).toBe('T0K');
  expect((await shownConfig('r')).url).toBe(`${base}?access_token=***&v=1`);
  expect(await hub.hub.secretStore!.get('r', 'url:token')).toBeUndefined(); // nothing refers to the old name any more
});

it('still refuses hidden values that stand for no stored key, and keeps the stored ones', async () => {
  await add('two', 'token=T0K&api_key=K3Y');
  const shown = await shownConfig('two');
  const both = await hub.api('upstreams.update', { id: 'two', config: { ...shown, url: `${base}?access_token=***&key=***` } });
  expect(both).toMatchObject({ ok: false, code: 'invalid', field: 'config.url' });
  const extra = await hub.api('upstreams.update', { id: 'two', config: { ...shown, url: `${shown.url}&secret=***` } });
  expect(extra).toMatchObject({ ok: false, code: 'invalid', field: 'config.url' });
  expect(extra.message).toContain('secret');
  expect(hub.hub.config.servers.two).toMatchObject({ url: `${base}?token=<secret>&api_key=<secret>` });
  expect(await hub.hub.secretStore!.get('two', 'url:token')).toBe('T0K');
  expect(await hub.hub.secretStore!.get('two', 'url:api_key')).toBe('K3Y');
});

/**
 * README: the files Spillway writes in its data folder are owner-only. The spill folder's were not (audit
 * s18): the index and each result.json were 0644 and the result folders 0755. Checked for a text streamed
 * to disk as it arrived (moved into its folder), a result written whole with a binary block, and the index.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HANDLE_PATTERN } from '../../electron/core/spill/spill-handle.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({
    version: 1,
    settings: { port: 0 },
    servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')), prefix: false } },
  });
  await hub.waitForStatus('fx', 'ready');
});
afterAll(async () => {
  await hub?.stop();
});

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

it.skipIf(process.platform === 'win32')('spilled results, their folders and the index are owner-only', async () => {
  const client = await hub.connect();
  const streamed = await client.callTool({ name: 'big_unicode', arguments: { bytes: 1_000_000 } });
  expect((streamed._meta as Record<string, string>)['spillway/handle']).toMatch(HANDLE_PATTERN);
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]).toString('base64');
  const whole: CallToolResult = {
    content: [
      { type: 'text', text: 'rows\n'.repeat(1000) },
      { type: 'image', data: png, mimeType: 'image/png' },
    ],
  };
  const { store } = hub.hub.spill;
  await store.put(whole, { server: 'fs', tool: 'read_file' });
  await store.close(); // writes the index now
  const spill = join(hub.dir, 'spill');

  const folders = (await readdir(spill)).filter((n) => HANDLE_PATTERN.test(n));
  expect(folders).toHaveLength(2);
  const modes: Record<string, string> = { 'index.json': (await modeOf(join(spill, 'index.json'))).toString(8) };
  for (const folder of folders) {
    modes[folder] = (await modeOf(join(spill, folder))).toString(8);
    for (const file of await readdir(join(spill, folder))) modes[`${folder}/${file}`] = (await modeOf(join(spill, folder, file))).toString(8);
  }
  const expected = Object.fromEntries(Object.keys(modes).map((name) => [name, name.includes('.') ? '600' : '700']));
  expect(modes).toEqual(expected);
  expect(Object.keys(modes).filter((name) => name.endsWith('/result.json'))).toHaveLength(2);
});

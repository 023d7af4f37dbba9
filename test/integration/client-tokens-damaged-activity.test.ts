/** A client-tokens.json that cannot be read is set aside at start, and the Activity log says so with the next step. */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import { createTestAppHub, testPaths } from '../support/hub-harness.js';

let dir: string | undefined;
let running: AppHub | undefined;
afterAll(async () => {
  await running?.hub.stop();
  await running?.releaseFolder();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('tells the Activity log that a damaged tokens file was set aside, and what to do', async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-tokens-damaged-'));
  const paths = testPaths(dir);
  await writeFile(paths.configFile, JSON.stringify({ mcpServers: {} }));
  // A hand edit's trailing comma.
  await writeFile(join(paths.dataDir, 'client-tokens.json'), '{"cursor": "sw_0123456789abcdef0123456789abcdef",}\n');
  running = await createTestAppHub(dir);
  await running.hub.start();
  const warnings = running.hub.events.recent().flatMap((e) => (e.type === 'log' && e.level === 'warn' ? [e.message] : []));
  const told = warnings.find((m) => m.includes('client-tokens.json'));
  expect(told).toMatch(/Clients/);
  expect((await readdir(paths.dataDir)).some((name) => name.startsWith('client-tokens.json.corrupt-'))).toBe(true);
}, 60_000);

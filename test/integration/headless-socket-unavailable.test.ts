/**
 * A headless hub whose bridge socket cannot be made (its folder taken by another user on a shared /tmp, a
 * file where the folder should be) still starts: bridges reach it over HTTP, as they do the desktop app's
 * hub in that case, and the log says why. Only another hub answering on the socket refuses the start.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startHeadless, type RunningHub } from '../../electron/core/app/headless.js';
import { testPaths } from '../support/hub-harness.js';

let dir: string | undefined;
let hub: RunningHub | undefined;
afterEach(async () => {
  await hub?.stop();
  hub = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('starts without its socket when the socket cannot be made, and says so in the log', async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-no-socket-'));
  await writeFile(testPaths(dir).configFile, JSON.stringify({ version: 1, settings: { port: 0 }, servers: {} }));
  const blocked = join(dir, 'taken');
  await writeFile(blocked, 'a file where the socket folder should be');
  hub = await startHeadless({ paths: testPaths(dir), platform: process.platform, env: process.env, port: 0, socket: join(blocked, 'spillway.sock') });
  expect(hub.socketPath).toBeUndefined();
  const health = await fetch(new URL('/mcp', hub.hub.url), { method: 'POST', headers: { authorization: `Bearer ${hub.hub.token}` } });
  expect(health.status).not.toBe(401);
  const warnings = hub.hub.events.recent().flatMap((e) => (e.type === 'log' && e.level === 'warn' ? [e.message] : []));
  expect(warnings.some((m) => m.startsWith('Bridge socket unavailable') && m.includes('stdio clients use the HTTP endpoint'))).toBe(true);
});

/**
 * A hub whose port is taken by another program listens on a free one for the run (headless
 * --port-fallback, as a bridge starts it). Connecting an app then says that the port is taken and what to
 * do, not that the port "is picked at random at each start" (the user set a fixed one).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startHeadless, type RunningHub } from '../../electron/core/app/headless.js';
import { hubEndpoint } from '../../electron/core/clients/entry-owner.js';
import { testPaths } from '../support/hub-harness.js';

let dir: string | undefined;
let hub: RunningHub | undefined;
const blocker = createServer();
afterEach(async () => {
  await hub?.stop();
  hub = undefined;
  if (blocker.listening) await new Promise((resolve) => blocker.close(resolve));
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('says the configured port is taken, and to free it or pick another, then restart and connect again', async () => {
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const { port } = blocker.address() as AddressInfo;
  dir = await mkdtemp(join(tmpdir(), 'spillway-port-taken-'));
  const home = join(dir, 'home');
  await writeFile(testPaths(dir).configFile, JSON.stringify({ version: 1, settings: { port }, servers: {} }));
  hub = await startHeadless({ paths: testPaths(dir), platform: 'linux', env: { ...process.env, HOME: home }, portFallback: true, socket: false });
  expect(hub.hub.endpoint.port).not.toBe(port);
  const res = await fetch(`${hub.hub.endpoint.origin}/api/clients.connect`, {
    method: 'POST',
    headers: { authorization: `Bearer ${hub.hub.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'cursor' }),
  });
  const answer = (await res.json()) as { ok: boolean; error?: { message: string } } & Record<string, unknown>;
  expect(JSON.stringify(answer)).toContain(`Spillway's port ${port} is taken by another program`);
  expect(JSON.stringify(answer)).not.toContain('picked at random');
});

it('keeps the other cases as they were', () => {
  expect(hubEndpoint(47821, 47821)).toEqual({ url: 'http://127.0.0.1:47821/mcp' });
  expect(hubEndpoint(5000, 0).unstable).toMatch(/picked at random at each start \(port 0\) \(port 5000 for this run only\)/);
  expect(hubEndpoint(5000, 47821).unstable).toMatch(/will use port 47821 from its next start/);
  expect(hubEndpoint(5000, 47821, true).unstable).toMatch(
    /^Spillway's port 47821 is taken by another program, so Spillway listens on port 5000 for this run only/,
  );
});

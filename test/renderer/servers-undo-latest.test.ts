/**
 * Undo after two removals in a row names and puts back the server removed last, also while the list is
 * still being read again after the second removal (the notice used to name the first one until then, and
 * Undo pressed meanwhile put back that one).
 */
import { afterEach, expect, it } from 'vitest';
import { ServersState } from '../../renderer/src/lib/servers.svelte.js';
import { FakeBackend } from './fake-backend.js';

let stop: (() => void) | undefined;
afterEach(() => stop?.());

it('offers Undo for the server removed last before the list is read again', async () => {
  const fake = new FakeBackend();
  fake.seedServer('files', { type: 'stdio', command: 'node', args: [], env: {}, enabled: true, prefix: true });
  fake.seedServer('weather', { type: 'http', url: 'https://weather.example.com/mcp', headers: {}, enabled: true, prefix: true });
  const servers = new ServersState(fake);
  stop = servers.start();
  await servers.refresh();
  expect(await servers.remove('files')).toBe(true);
  expect(servers.removed?.id).toBe('files');

  fake.hold('upstreams.list');
  const listed = fake.callsOf('upstreams.list').length;
  const removing = servers.remove('weather');
  // The removal is answered and the list is being read again (held).
  await expect.poll(() => fake.callsOf('upstreams.list').length).toBeGreaterThan(listed);
  expect(servers.removed?.id).toBe('weather');
  fake.release();
  expect(await removing).toBe(true);
  expect(servers.removed?.id).toBe('weather');
});

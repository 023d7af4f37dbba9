/**
 * A removed server is held with the keys of config.json under its entry and its policies that this
 * version does not know, and only those (not another server's, not one whose id merely starts the same):
 * Undo writes them back with it (audit s19).
 */
import { describe, expect, it } from 'vitest';
import { RemovedServers } from '../../electron/core/control/removed-servers.js';
import type { ServerConfig } from '../../shared/config.js';

const web: ServerConfig = { type: 'http', url: 'https://h/mcp', headers: {}, enabled: true, prefix: true } as ServerConfig;
const unknown = [
  { path: ['servers', 'web', 'futureField'], value: 1 },
  { path: ['policies', 'servers', 'web', 'futureSrv'], value: 'c' },
  { path: ['policies', 'tools', 'web', 't', 'pii', 'custom', '0', 'futureCustom'], value: 'f', entries: [{ at: 6, known: '{}' }] },
  { path: ['servers', 'web2', 'futureField'], value: 2 },
  { path: ['policies', 'tools', 'other', 't', 'futureTool'], value: 'd' },
  { path: ['settings', 'futureSetting'], value: true },
];

describe('a removed server and the unknown keys of config.json', () => {
  it('is held with its own unknown keys only, until it is taken back', async () => {
    const removed = new RemovedServers();
    await removed.keep('web', web, {}, undefined, unknown);
    expect(removed.held('web')?.unknown).toEqual(unknown.slice(0, 3));
    expect(removed.take('web')?.unknown).toEqual(unknown.slice(0, 3));
    expect(removed.take('web')).toBeUndefined();
  });

  it('is held without any when it had none', async () => {
    const removed = new RemovedServers();
    await removed.keep('solo', web, {}, undefined, unknown);
    expect(removed.take('solo')).toEqual({ config: web, signIn: {}, policies: {} });
  });
});

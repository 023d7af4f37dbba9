/**
 * One app's changes (connect, disconnect, import, restore, repair) run one at a time (audit s17, connect
 * item 6): a Disconnect made while a Connect is writing waits for it, so it never revokes the token that
 * Connect then writes into the app's file. Other apps' changes do not wait.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientTokens } from '../../electron/core/clients/client-tokens.js';
import { ClientsService } from '../../electron/core/clients/clients-service.js';
import { createClientRegistry, type ClientRegistry } from '../../electron/core/clients/index.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-one-at-a-time-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A flag set, and a promise to open, around the registry's connect: it holds a Connect in the middle of its write. */
function gated(registry: ClientRegistry) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const calls: string[] = [];
  const wrapped: ClientRegistry = {
    ...registry,
    async connect(id, entry, reason) {
      calls.push(`connect ${id}`);
      entered();
      await gate;
      return registry.connect(id, entry, reason);
    },
    async disconnect(id) {
      calls.push(`disconnect ${id}`);
      return registry.disconnect(id);
    },
  };
  return { wrapped, open, inside, calls };
}

async function service(registry: ClientRegistry) {
  const tokens = await ClientTokens.open(join(root, 'client-tokens.json'));
  const clients = new ClientsService({
    registry,
    tokens,
    host: {
      endpoint: () => ({ url: 'http://127.0.0.1:47821/mcp' }),
      upstreamConfigs: () => ({}),
      addUpstream: async () => ({ id: 'x' }),
      lastSeen: () => undefined,
    },
    bridge: { command: '/opt/Spillway/spillway', args: ['/opt/Spillway/spillway.js', 'bridge'] },
    dataDir: join(root, 'data'),
    platform: 'linux',
  });
  return { clients, tokens };
}

/** Lets every piece of work already queued run (promise callbacks, then one turn of the event loop). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("one app's changes, one at a time", () => {
  it('a Disconnect waits for the Connect under way, and the app ends disconnected with its token revoked', async () => {
    const home = join(root, 'home');
    await mkdir(join(home, '.gemini'), { recursive: true });
    await writeFile(join(home, '.gemini', 'settings.json'), '{}\n');
    const registry = createClientRegistry({ os: { home, platform: 'linux', env: { HOME: home } }, backupDir: join(root, 'backups') });
    const g = gated(registry);
    const { clients, tokens } = await service(g.wrapped);
    const connecting = clients.connect('gemini-cli');
    await g.inside;
    const token = tokens.get('gemini-cli');
    const disconnecting = clients.disconnect('gemini-cli');
    await settle();
    expect(g.calls).toEqual(['connect gemini-cli']); // it was disconnecting at once, revoking the token Connect then wrote
    g.open();
    expect((await connecting).changed).toBe(true);
    expect((await disconnecting).changed).toBe(true);
    expect(g.calls).toEqual(['connect gemini-cli', 'disconnect gemini-cli']);
    expect((await registry.get('gemini-cli')).entry).toBeNull();
    expect(tokens.get('gemini-cli')).toBeUndefined();
    expect(tokens.revokedHere('gemini-cli', token!)).toBe(true);
  });

  it("another app's change does not wait", async () => {
    const home = join(root, 'home');
    for (const dir of ['.gemini', '.cursor']) await mkdir(join(home, dir), { recursive: true });
    const registry = createClientRegistry({ os: { home, platform: 'linux', env: { HOME: home } }, backupDir: join(root, 'backups') });
    const g = gated(registry);
    const { clients } = await service(g.wrapped);
    const connecting = clients.connect('gemini-cli');
    await g.inside;
    const other = clients.disconnect('cursor');
    expect((await other).changed).toBe(false);
    g.open();
    await connecting;
  });
});

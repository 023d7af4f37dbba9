/**
 * Undo after Remove gives back exactly what was removed, also the keys of config.json under the server and
 * its policies that this version does not know (a newer Spillway's settings): they were left out of the
 * config in force, so the held server lacked them and Undo lost them (audit s19). A new server added under
 * the same id still gets none of them.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub | undefined;
afterEach(async () => {
  await hub?.stop();
  hub = undefined;
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const onDisk = async (h: TestHub): Promise<Json> => JSON.parse(await readFile(join(h.dir, 'config.json'), 'utf8'));
/** What config.json holds for server `id`: its entry and its policies. */
const heldFor = (file: Json, id: string) => ({ server: file.servers[id], policy: file.policies.servers[id], tools: file.policies.tools[id] });

const web = { type: 'http', url: 'http://127.0.0.1:1/mcp', enabled: false, futureServerField: { a: 1 } };
const config = {
  version: 1,
  settings: { port: 0 },
  servers: { web, other: { type: 'http', url: 'http://127.0.0.1:2/mcp', enabled: false } },
  policies: {
    servers: { web: { exposure: 'dispatch', futureSrv: 'c' } },
    tools: {
      web: {
        t: {
          description: 'x',
          futureTool: 'd',
          pii: { types: ['email'], futurePii: 'e', custom: [{ name: 'emp', pattern: 'EMP-\\d{6}', futureCustom: 'f' }] },
        },
      },
    },
  },
};

describe('Undo after Remove and keys this version does not know', () => {
  it('puts the server back with every key it had in config.json', async () => {
    hub = await startTestHub(config);
    // Saved once by Spillway first: the file then holds the entry in Spillway's own form.
    expect((await hub.api('policies.setServer', { server: 'other', policy: { prefix: false } })).ok).toBe(true);
    const before = heldFor(await onDisk(hub), 'web');
    for (const key of ['futureServerField', 'futureSrv', 'futureTool', 'futurePii', 'futureCustom']) expect(JSON.stringify(before)).toContain(key);

    expect((await hub.api('upstreams.remove', { id: 'web' })).value).toEqual({ removed: true, undoable: true });
    expect(JSON.stringify(await onDisk(hub))).not.toMatch(/future/);
    // Another save in between, then Undo.
    expect((await hub.api('policies.setServer', { server: 'other', policy: { exposure: 'dispatch' } })).ok).toBe(true);
    expect((await hub.api('upstreams.undoRemove', { id: 'web' })).value).toEqual({ id: 'web' });

    expect(heldFor(await onDisk(hub), 'web')).toEqual(before);
    // Still in the file at the next save, and still out of the config in force.
    expect((await hub.api('policies.setServer', { server: 'other', policy: { exposure: 'direct' } })).ok).toBe(true);
    expect(heldFor(await onDisk(hub), 'web')).toEqual(before);
    expect(JSON.stringify(hub.hub.config)).not.toMatch(/future/);
  });

  it('gives none of them to a new server added under the same id', async () => {
    hub = await startTestHub(config);
    expect((await hub.api('upstreams.remove', { id: 'web' })).ok).toBe(true);
    expect((await hub.api('upstreams.add', { id: 'web', config: { type: 'http', url: 'http://127.0.0.1:3/mcp', enabled: false } })).ok).toBe(true);
    expect((await hub.api('policies.setTool', { server: 'web', tool: 't', policy: { description: 'y' } })).ok).toBe(true);
    expect(JSON.stringify(await onDisk(hub))).not.toMatch(/future/);
  });
});

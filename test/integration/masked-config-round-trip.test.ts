/**
 * The on/off switch and the edit form send back the config `upstreams.list` showed, with its secrets
 * masked (`postgresql://alice:***@…`, `api_key=***`, `--api-key ***`). Through a real hub, config.json
 * must keep the stored secrets wherever the list masked them; a value typed over a mask is taken.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../shared/config.js';
import { NODE, fixture, startTestHub, type TestHub } from '../support/hub-harness.js';

const PG = 'postgresql://alice:s3cretPassw0rd@localhost/mydb';
const ARGS = [
  fixture('env-echo-server.mjs'),
  '-y',
  PG,
  'api_key=sk-abcdef123456',
  'TOKEN=ghp_abcdefabcdef123',
  '--token=abc123def456',
  '--api-key',
  'sk-live-abcdef123456',
  '--password',
  'x',
];
const URL_SECRETS = ['s3cretPassw0rd', 'sk-abcdef123456', 'ghp_abcdefabcdef123', 'abc123def456', 'sk-live-abcdef123456'];

let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub({
    version: 1,
    servers: {
      db: { type: 'stdio', command: NODE, args: ARGS, enabled: false },
      web: { type: 'http', url: 'https://bob:pw-bob-123@mcp.example.com/mcp?apitoken=abcdef123456&region=eu', enabled: false },
    },
  });
});
afterAll(() => hub?.stop());

const onDisk = async () => JSON.parse(await readFile(join(hub.dir, 'config.json'), 'utf8')) as { servers: Record<string, ServerConfig> };
async function listed(id: string): Promise<ServerConfig> {
  const list = await hub.api<{ id: string; config: ServerConfig }[]>('upstreams.list');
  return list.value!.find((u) => u.id === id)!.config;
}
const argsOf = (cfg: ServerConfig) => (cfg.type === 'stdio' ? cfg.args : []);
const urlOf = (cfg: ServerConfig) => (cfg.type === 'stdio' ? '' : cfg.url);

describe('a masked config sent back', () => {
  it('is listed without its secrets', async () => {
    const text = JSON.stringify(await hub.api('upstreams.list'));
    expect(URL_SECRETS.filter((s) => text.includes(s))).toEqual([]);
    expect(argsOf(await listed('db'))).toContain('postgresql://alice:***@localhost/mydb');
  });

  it('the on/off switch keeps every secret in the args', async () => {
    for (const enabled of [true, false]) {
      const r = await hub.api('upstreams.update', { id: 'db', config: { ...(await listed('db')), enabled } });
      expect(r.ok).toBe(true);
      const saved = (await onDisk()).servers.db!;
      expect(saved.enabled).toBe(enabled);
      expect(argsOf(saved)).toEqual(ARGS);
    }
  });

  it('the edit form: an edited word keeps the secret it still shows masked; a typed value is taken', async () => {
    const shown = await listed('db');
    const args = argsOf(shown).map((a) =>
      a.startsWith('postgresql:') ? a.replace('/mydb', '/otherdb') : a.startsWith('api_key=') ? 'api_key=sk-typed-999' : a,
    );
    // A word added before them moves every other one: they are matched by what the list showed.
    const r = await hub.api('upstreams.update', { id: 'db', config: { ...shown, args: [args[0]!, '--verbose', ...args.slice(1)] } });
    expect(r.ok).toBe(true);
    expect(argsOf((await onDisk()).servers.db!)).toEqual([
      ARGS[0],
      '--verbose',
      ARGS[1],
      'postgresql://alice:s3cretPassw0rd@localhost/otherdb',
      'api_key=sk-typed-999',
      ...ARGS.slice(4),
    ]);
  });

  it('a remote server: the sign-in in its address and an unknown key parameter survive a save', async () => {
    const before = await onDisk();
    // The sign-in moved into an Authorization header (kept in the secret store), out of the address.
    expect(before.servers.web).toMatchObject({ headers: { Authorization: '<secret>' } });
    expect(urlOf(before.servers.web!)).toBe('https://mcp.example.com/mcp?apitoken=abcdef123456&region=eu');
    const shown = await listed('web');
    expect(urlOf(shown)).not.toContain('abcdef123456');
    const r = await hub.api('upstreams.update', { id: 'web', config: { ...shown, label: 'Web search' } });
    expect(r.ok).toBe(true);
    const after = (await onDisk()).servers.web!;
    expect(after).toMatchObject({ label: 'Web search', headers: { Authorization: '<secret>' } });
    expect(urlOf(after)).toBe('https://mcp.example.com/mcp?apitoken=abcdef123456&region=eu');
    expect(await hub.hub.secretStore.get('web', 'header:Authorization')).toBe(`Basic ${Buffer.from('bob:pw-bob-123').toString('base64')}`);
  });

  it('config.json never holds a mask', async () => {
    expect(await readFile(join(hub.dir, 'config.json'), 'utf8')).not.toContain('***');
  });
});

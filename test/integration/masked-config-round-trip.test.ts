/**
 * The on/off switch and the edit form send back the config `upstreams.list` showed, with its secrets
 * masked. A secret word of a stdio server's arguments (`postgresql://alice:…@…`, `api_key=…`, the word
 * after `--api-key`) lives in the secret store, a `${SPILLWAY_SECRET_ARG_<n>}` placeholder in its place
 * and a masked env value under that name in the list. Through a real hub, config.json never holds a
 * secret or a mask, the server gets every word, and a value typed over a mask is taken.
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

/** The words of ARGS that hold a secret, in order: kept in the secret store, a placeholder in their place. */
const SECRET_WORDS = [PG, 'api_key=sk-abcdef123456', 'TOKEN=ghp_abcdefabcdef123', '--token=abc123def456', 'sk-live-abcdef123456', 'x'];
const PLACED = ARGS.map((a) => {
  const n = SECRET_WORDS.indexOf(a);
  return n < 0 ? a : `\${SPILLWAY_SECRET_ARG_${n + 1}}`;
});
/** The args as the server gets them: each placeholder filled from the store. */
async function started(args: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const a of args) {
    const name = /^\$\{(SPILLWAY_SECRET_ARG_\d+)\}$/.exec(a)?.[1];
    out.push(name ? ((await hub.hub.secretStore.get('db', `env:${name}`)) ?? a) : a);
  }
  return out;
}

describe('a masked config sent back', () => {
  it('is listed without its secrets: each secret word is in the store, a placeholder in config.json', async () => {
    const text = JSON.stringify(await hub.api('upstreams.list'));
    expect(URL_SECRETS.filter((s) => text.includes(s))).toEqual([]);
    expect(argsOf(await listed('db'))).toEqual(PLACED);
    const disk = JSON.stringify(await onDisk());
    expect(URL_SECRETS.filter((s) => disk.includes(s))).toEqual([]);
    expect(await started(argsOf((await onDisk()).servers.db!))).toEqual(ARGS);
  });

  it('the on/off switch keeps every secret in the args', async () => {
    for (const enabled of [true, false]) {
      const r = await hub.api('upstreams.update', { id: 'db', config: { ...(await listed('db')), enabled } });
      expect(r.ok).toBe(true);
      const saved = (await onDisk()).servers.db!;
      expect(saved.enabled).toBe(enabled);
      expect(argsOf(saved)).toEqual(PLACED);
      expect(await started(argsOf(saved))).toEqual(ARGS);
    }
  });

  it('the edit form: a secret word shown masked keeps its value; a typed value is taken; a word added moves nothing', async () => {
    const shown = await listed('db');
    if (shown.type !== 'stdio') throw new Error('db is a stdio server');
    const env = { ...shown.env, SPILLWAY_SECRET_ARG_2: 'api_key=sk-typed-999' };
    const r = await hub.api('upstreams.update', { id: 'db', config: { ...shown, args: [shown.args[0]!, '--verbose', ...shown.args.slice(1)], env } });
    expect(r.ok).toBe(true);
    const saved = argsOf((await onDisk()).servers.db!);
    expect(await started(saved)).toEqual([
      ARGS[0],
      '--verbose',
      ...ARGS.slice(1).map((a) => (a.startsWith('api_key=') ? 'api_key=sk-typed-999' : a)),
    ]);
    expect(JSON.stringify(await onDisk())).not.toContain('sk-typed-999');
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

/**
 * Keys of config.json Spillway does not know (a typo, a newer Spillway's setting, a note): named at load,
 * kept out of the config in force, and written back at each save, so a hand edit is never lost.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig, type Config } from '../../shared/config.js';
import { closestKey, withUnknownKeys } from '../../shared/config-unknown-keys.js';
import { ConfigFile } from '../../electron/core/files/config-file.js';
import { maskConfigSecrets } from '../../electron/core/secrets/mask-config-secrets.js';

const handWritten = {
  version: 1,
  settings: { port: 0, Port: 1234, futureSetting: true, spill: { quota: 5, quotaBytes: 2_097_152 }, compression: { modle: 'm' } },
  servers: {
    a: { type: 'stdio', command: 'x', env: { A: '<secret>' }, note: 'mine', enviroment: { B: '1' } },
    b: { type: 'http', url: 'https://mcp.example.com/mcp', futureField: { deep: [1, 2] }, header: { X: 'hdr' } },
  },
};

describe('parseConfig with keys Spillway does not know', () => {
  const parsed = parseConfig(JSON.stringify(handWritten), '/x/config.json');

  it('keeps them out of the config in force', () => {
    const settings: Record<string, unknown> = parsed.config.settings;
    expect(settings.Port).toBeUndefined();
    expect(settings.futureSetting).toBeUndefined();
    expect(parsed.config.settings.port).toBe(0);
    expect(Object.keys(parsed.config.settings.spill)).not.toContain('quota');
    expect(Object.keys(parsed.config.servers.a!)).not.toContain('note');
    expect(parsed.config.servers.a).toMatchObject({ env: { A: '<secret>' } });
  });

  it('lists each with where it was', () => {
    expect(parsed.unknown.map((k) => k.path.join('.'))).toEqual([
      'settings.Port',
      'settings.futureSetting',
      'settings.spill.quota',
      'settings.compression.modle',
      'servers.a.note',
      'servers.a.enviroment',
      'servers.b.futureField',
      'servers.b.header',
    ]);
  });

  it('names each in a warning, with the known key it was most likely meant to be, never its value', () => {
    const [port, future, quota, model, note, env, field, header] = parsed.warnings;
    expect(port).toBe(
      'Spillway does not know the setting settings.Port in /x/config.json, so it has no effect: did you mean "port"? Correct it in the file, then restart Spillway.',
    );
    expect(future).toContain(
      'the setting settings.futureSetting in /x/config.json, so it has no effect; it stays in the file (a newer Spillway may use it)',
    );
    expect(quota).toContain('did you mean "quotaBytes"?');
    expect(model).toContain('did you mean "model"?');
    expect(note).toContain('the server field servers.a.note');
    expect(note).not.toContain('did you mean');
    expect(env).toContain('the server field servers.a.enviroment');
    expect(field).toContain('servers.b.futureField');
    expect(header).toContain('servers.b.header in /x/config.json, so it has no effect: did you mean "headers"?');
    expect(parsed.warnings.join('\n')).not.toMatch(/1234|mine|deep|hdr/);
  });

  it('finds none in a file that has none, nor in an imported mcpServers file', () => {
    expect(parseConfig(JSON.stringify({ version: 1, settings: { port: 1 }, servers: { a: { type: 'stdio', command: 'x' } } })).unknown).toEqual([]);
    expect(parseConfig(JSON.stringify({ mcpServers: { a: { command: 'x' }, b: { url: 'https://h/mcp' } } })).warnings).toEqual([]);
  });
});

describe('putting unknown keys back', () => {
  it('adds them to a copy, leaving the config in force as it was', () => {
    const { config, unknown } = parseConfig(JSON.stringify(handWritten));
    const before = JSON.stringify(config);
    const { value, placed } = withUnknownKeys(config, unknown);
    expect(placed).toHaveLength(unknown.length);
    expect(JSON.stringify(config)).toBe(before);
    expect(value.settings).toMatchObject({ Port: 1234, spill: { quota: 5 } });
    expect(value.servers.b).toMatchObject({ futureField: { deep: [1, 2] } });
  });

  it('keeps a "__proto__" key as a key, never as the prototype', () => {
    const { config, unknown } = parseConfig('{"version":1,"settings":{"__proto__":{"paused":true}}}');
    expect(config.settings.paused).toBe(false);
    const { value } = withUnknownKeys(config, unknown);
    expect(value.settings.paused).toBe(false);
    expect(Object.getPrototypeOf(value.settings)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(value)).settings.__proto__).toEqual({ paused: true });
    expect(Object.hasOwn(JSON.parse(JSON.stringify(value)).settings, '__proto__')).toBe(true);
  });
});

describe('closestKey', () => {
  it.each([
    ['Port', 'port'],
    ['prot', 'port'],
    ['quota', 'quotaBytes'],
    ['paussed', 'paused'],
    ['xyz', undefined],
    ['note', undefined],
  ])('%s → %s', (key, meant) => {
    expect(closestKey(key, ['port', 'paused', 'quotaBytes', 'env', 'command'])).toBe(meant);
  });
});

describe('ConfigFile with keys Spillway does not know', () => {
  let dir: string;
  let path: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spillway-unknown-keys-'));
    path = join(dir, 'config.json');
    await writeFile(path, JSON.stringify(handWritten));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const paused = (config: Config): Config => ({ ...config, settings: { ...config.settings, paused: true } });
  const onDisk = async () => JSON.parse(await readFile(path, 'utf8'));

  it('names them after load and writes them back at every save', async () => {
    const file = new ConfigFile(path, { maskSecrets: maskConfigSecrets });
    await file.load();
    expect(file.warnings).toHaveLength(8);
    await file.save(paused(file.current));
    await file.save({ ...file.current, settings: { ...file.current.settings, port: 5 } });
    const saved = await onDisk();
    expect(saved.settings).toMatchObject({ port: 5, paused: true, Port: 1234, futureSetting: true, spill: { quota: 5, quotaBytes: 2_097_152 } });
    expect(saved.settings.compression.modle).toBe('m');
    expect(saved.servers.a).toMatchObject({ note: 'mine', enviroment: { B: '1' }, env: { A: '<secret>' } });
    expect(saved.servers.b.futureField).toEqual({ deep: [1, 2] });
    expect(Object.keys(file.current.settings)).not.toContain('Port');
    // The next load (a restart) finds them again, and the same.
    const again = new ConfigFile(path, { maskSecrets: maskConfigSecrets });
    await again.load();
    expect([...again.warnings].sort()).toEqual([...file.warnings].sort());
  });

  it("does not give a removed server's unknown fields to a new server of the same id", async () => {
    const file = new ConfigFile(path, { maskSecrets: maskConfigSecrets });
    await file.load();
    const { b, ...rest } = file.current.servers;
    await file.save({ ...file.current, servers: rest });
    expect((await onDisk()).servers.b).toBeUndefined();
    await file.save({ ...file.current, servers: { ...file.current.servers, b: b! } });
    expect((await onDisk()).servers.b).not.toHaveProperty('futureField');
    expect((await onDisk()).servers.a.note).toBe('mine');
  });

  it('drops an unknown field once the same name is a known one (a server changed to another kind)', async () => {
    await writeFile(path, JSON.stringify({ version: 1, servers: { a: { type: 'stdio', command: 'x', url: 'https://old/mcp' } } }));
    const file = new ConfigFile(path, { maskSecrets: maskConfigSecrets });
    await file.load();
    await file.save({ ...file.current, servers: { a: { type: 'http', url: 'https://new/mcp', headers: {}, enabled: true, prefix: true } } });
    await file.save({ ...file.current, servers: { a: { type: 'stdio', command: 'y', args: [], env: {}, enabled: true, prefix: true } } });
    expect((await onDisk()).servers.a).toEqual({ type: 'stdio', command: 'y', args: [], env: {}, enabled: true, prefix: true });
  });
});

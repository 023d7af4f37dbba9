/**
 * ConfigFile on real files in a temp folder: a save never writes over an edit made outside it since it
 * last loaded or wrote the file (a hand edit, a broken one, another process's save), its own saves go
 * through, and the backup of an `mcpServers` file keeps no secret value in plain text.
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig, type Config } from '../../shared/config.js';
import { ConfigChangedError, ConfigFile } from '../../electron/core/files/config-file.js';
import { maskConfigSecrets } from '../../electron/core/secrets/mask-config-secrets.js';

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-config-file-'));
  path = join(dir, 'config.json');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const paused = (config: Config, value: boolean): Config => ({ ...config, settings: { ...config.settings, paused: value } });
const onDisk = async () => parseConfig(await readFile(path, 'utf8')).config;

describe('ConfigFile', () => {
  it('saves one after another, each over its own last write', async () => {
    await writeFile(path, JSON.stringify({ version: 1, servers: {} }));
    const file = new ConfigFile(path, { maskSecrets: maskConfigSecrets });
    const loaded = await file.load();
    await Promise.all([file.save(paused(loaded, true)), file.save(paused(loaded, false)), file.save(paused(loaded, true))]);
    await file.save(paused(file.current, false));
    expect((await onDisk()).settings.paused).toBe(false);
    expect(file.current.settings.paused).toBe(false);
  });

  it('refuses to write over a server added by hand since it loaded, and leaves the edit', async () => {
    await writeFile(path, JSON.stringify({ version: 1, servers: {} }));
    const file = new ConfigFile(path, { maskSecrets: maskConfigSecrets });
    const loaded = await file.load();
    const edited = `${JSON.stringify({ version: 1, servers: { handmade: { type: 'http', url: 'http://127.0.0.1:1/mcp' } } }, undefined, 2)}\n`;
    await writeFile(path, edited);
    const refused = await file.save(paused(loaded, true)).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ConfigChangedError);
    expect((refused as Error).message).toMatch(
      /changed outside Spillway since Spillway read it.*Restart Spillway to pick up the edit, then make the change again/,
    );
    expect(await readFile(path, 'utf8')).toBe(edited);
    expect(file.current.settings.paused).toBe(false);
    // Loaded again (a restart), the edit is in force and the next save keeps it.
    await file.save(paused(await file.load(), true)).then(() => undefined);
    expect(Object.keys((await onDisk()).servers)).toEqual(['handmade']);
    expect((await onDisk()).settings.paused).toBe(true);
  });

  it('refuses to write over a file broken by hand, leaving it byte for byte, and names the fault without quoting it', async () => {
    await writeFile(path, JSON.stringify({ version: 1 }));
    const file = new ConfigFile(path, { maskSecrets: maskConfigSecrets });
    const loaded = await file.load();
    const broken = '{ "version": 1, "servers": { "gh": { "type": "stdio", "command": "x", "env": { "T": ghp_S3cr3t } } } }';
    await writeFile(path, broken);
    const refused = await file.save(paused(loaded, true)).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ConfigChangedError);
    expect((refused as Error).message).toMatch(
      /can no longer be read \(The config is not valid JSON in .*, at line 1, column \d+: .*\)\. Your edit is left as it is/,
    );
    expect((refused as Error).message).not.toContain('S3cr3t');
    expect(await readFile(path, 'utf8')).toBe(broken);
  });

  it('refuses to write over a file made since it found none, and writes again a file removed meanwhile', async () => {
    const file = new ConfigFile(path, { maskSecrets: maskConfigSecrets });
    const loaded = await file.load();
    await writeFile(path, JSON.stringify({ version: 1, settings: { port: 5555 } }));
    await expect(file.save(paused(loaded, true))).rejects.toBeInstanceOf(ConfigChangedError);
    expect((await onDisk()).settings.port).toBe(5555);
    await file.save(paused(await file.load(), true));
    await rm(path);
    await file.save(paused(file.current, false));
    expect((await onDisk()).settings).toMatchObject({ port: 5555, paused: false });
  });

  it('takes the writes of another ConfigFile on the same path (the CLI with no hub) as edits made outside it', async () => {
    await writeFile(path, JSON.stringify({ version: 1 }));
    const hub = new ConfigFile(path, { maskSecrets: maskConfigSecrets });
    const cli = new ConfigFile(path, { maskSecrets: maskConfigSecrets });
    const loaded = await hub.load();
    await cli.save(paused(await cli.load(), true));
    await cli.save(paused(await cli.load(), false));
    await expect(hub.save(paused(loaded, true))).rejects.toBeInstanceOf(ConfigChangedError);
  });

  it('backs up an mcpServers file before its first write with its secret values masked, readable by its owner only', async () => {
    const original = {
      mcpServers: {
        gh: { command: 'npx', args: ['-y', 'gh'], env: { GITHUB_TOKEN: 'ghp_SUPERSECRET123', EMPTY: '' } },
        db: { command: 'npx', args: ['-y', 'pg', '--api-key', 'argKEY-55', 'postgres://al:pgPW-66@h/db'] },
        web: { url: 'https://mcp.example.com/mcp?api_key=KEY-789&region=eu', headers: { Authorization: 'Bearer tok-456' } },
        basic: { url: 'https://me:pa55word@mcp.example.com/sse' },
        gem: { httpUrl: 'https://x.example.com/mcp?token=TOK-321' },
      },
    };
    await writeFile(path, JSON.stringify(original));
    const file = new ConfigFile(path, { maskSecrets: maskConfigSecrets, now: () => new Date('2026-01-02T03:04:05.678Z') });
    const loaded = await file.load();
    await file.save(paused(loaded, true));
    await file.save(paused(file.current, false));
    const backups = (await readdir(dir)).filter((f) => f.endsWith('.bak'));
    expect(backups).toEqual(['config.json.2026-01-02T03-04-05-678Z.bak']);
    const backup = join(dir, backups[0]!);
    const text = await readFile(backup, 'utf8');
    for (const secret of ['ghp_SUPERSECRET123', 'pa55word', 'KEY-789', 'tok-456', 'TOK-321', 'argKEY-55', 'pgPW-66'])
      expect(text).not.toContain(secret);
    expect(JSON.parse(text)).toEqual({
      mcpServers: {
        gh: { command: 'npx', args: ['-y', 'gh'], env: { GITHUB_TOKEN: '<secret>', EMPTY: '' } },
        db: { command: 'npx', args: ['-y', 'pg', '--api-key', '<secret>', '<secret>'] },
        web: { url: 'https://mcp.example.com/mcp?api_key=<secret>&region=eu', headers: { Authorization: '<secret>' } },
        basic: { url: 'https://<secret>@mcp.example.com/sse' },
        gem: { httpUrl: 'https://x.example.com/mcp?token=<secret>' },
      },
    });
    if (process.platform !== 'win32') expect((await stat(backup)).mode & 0o777).toBe(0o600);
  });

  it('backs up an mcpServers file without secrets byte for byte', async () => {
    const original = '{\n  "mcpServers": { "fs": { "command": "npx", "args": ["fs"] } }\n}\n';
    await writeFile(path, original);
    const file = new ConfigFile(path, { maskSecrets: maskConfigSecrets, now: () => new Date('2026-01-02T03:04:05.678Z') });
    await file.save(paused(await file.load(), true));
    expect(await readFile(join(dir, 'config.json.2026-01-02T03-04-05-678Z.bak'), 'utf8')).toBe(original);
  });
});

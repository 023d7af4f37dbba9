/**
 * A settings change saved while the disk holding the data folder is full (or read-only, or not writable
 * by the user): the answer says so in words, names the folder and the next step, and config.json stays
 * as it was. The error is injected at the write (tests run as root, where a read-only folder is no bar).
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../shared/config.js';
import { writeAtomically } from '../../electron/core/files/atomic-file.js';
import { ConfigFile, ConfigSaveError } from '../../electron/core/files/config-file.js';
import { toApiError } from '../../electron/core/control/control-handlers.js';
import { maskConfigSecrets } from '../../electron/core/secrets/mask-config-secrets.js';

let dir: string;
let path: string;
const original = `${JSON.stringify({ version: 1, settings: { port: 0 }, servers: {} })}\n`;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-full-disk-'));
  path = join(dir, 'config.json');
  await writeFile(path, original);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const failing = (code: string, message: string) => async () => {
  throw Object.assign(new Error(`${code}: ${message}, write`), { code });
};
const paused = (config: Config): Config => ({ ...config, settings: { ...config.settings, paused: true } });

describe('saving the config when the disk refuses the write', () => {
  it.each([
    ['ENOSPC', 'no space left on device', 'the disk holding DIR is full. Free some space on it, then make the change again'],
    ['EDQUOT', 'disk quota exceeded', 'your disk quota for DIR is used up'],
    ['EROFS', 'read-only file system', 'DIR is on a disk that is read-only'],
    ['EACCES', 'permission denied', 'Spillway is not allowed to write in DIR. Give your user write access'],
    ['EPERM', 'operation not permitted', 'Spillway is not allowed to write in DIR'],
  ])('%s: says what is wrong with which folder and what to do', async (code, words, said) => {
    const file = new ConfigFile(path, { maskSecrets: maskConfigSecrets, write: failing(code, words) });
    await file.load();
    const error = await file.save(paused(file.current)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigSaveError);
    const message = (error as Error).message;
    expect(message.startsWith(`This change was not saved: ${said.replace('DIR', dir)}`)).toBe(true);
    expect(message).toContain(`${path} is left as it was.`);
    expect(message).not.toContain(code);
    // What the window gets: the sentence, as a lasting condition, not an internal error.
    expect(toApiError(error)).toEqual({ ok: false, code: 'unavailable', message });
    expect(await readFile(path, 'utf8')).toBe(original);
    expect(file.current.settings.paused).toBe(false);
  });

  it('saves the next change once the disk has room again', async () => {
    let full = true;
    const write = (f: string, data: Buffer, mode: number) => (full ? failing('ENOSPC', 'no space left on device')() : writeAtomically(f, data, mode));
    const file = new ConfigFile(path, { maskSecrets: maskConfigSecrets, write });
    await file.load();
    await expect(file.save(paused(file.current))).rejects.toBeInstanceOf(ConfigSaveError);
    full = false;
    await file.save(paused(file.current));
    expect(JSON.parse(await readFile(path, 'utf8')).settings.paused).toBe(true);
    expect(await readdir(dir)).toEqual(['config.json']);
  });

  it('passes any other error on as it was', async () => {
    const file = new ConfigFile(path, { maskSecrets: maskConfigSecrets, write: failing('EIO', 'i/o error') });
    await file.load();
    const error = await file.save(paused(file.current)).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(ConfigSaveError);
    expect((error as NodeJS.ErrnoException).code).toBe('EIO');
  });
});

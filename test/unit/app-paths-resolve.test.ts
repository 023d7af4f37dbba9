/**
 * resolvePaths: relative paths are made absolute (they are written into AI apps' entries, which run from
 * folders of their own), and an empty SPILLWAY_DATA_DIR or SPILLWAY_CONFIG counts as not set, as the
 * desktop app takes it.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { defaultDataDir, resolvePaths } from '../../electron/core/files/app-paths.js';

const os = (env: Record<string, string | undefined> = {}) => ({ home: '/home/u', platform: process.platform, env });

it('makes a relative --data-dir and --config absolute from the current folder', () => {
  const p = resolvePaths({ dataDir: 'reldata', configFile: 'my-servers.json', os: os() });
  expect(p.dataDir).toBe(join(process.cwd(), 'reldata'));
  expect(p.configFile).toBe(join(process.cwd(), 'my-servers.json'));
  expect(p.tokenFile).toBe(join(process.cwd(), 'reldata', 'token'));
});

it('makes relative SPILLWAY_DATA_DIR and SPILLWAY_CONFIG absolute too', () => {
  const p = resolvePaths({ os: os({ SPILLWAY_DATA_DIR: 'd', SPILLWAY_CONFIG: 'c.json' }) });
  expect(p.dataDir).toBe(join(process.cwd(), 'd'));
  expect(p.configFile).toBe(join(process.cwd(), 'c.json'));
});

it('takes an empty SPILLWAY_DATA_DIR and SPILLWAY_CONFIG as not set', () => {
  const p = resolvePaths({ os: os({ SPILLWAY_DATA_DIR: '', SPILLWAY_CONFIG: '' }) });
  expect(p.dataDir).toBe(defaultDataDir(os()));
  expect(p.configFile).toBe(join(defaultDataDir(os()), 'config.json'));
});

it('keeps absolute paths as they are', () => {
  const p = resolvePaths({ dataDir: '/a/b', configFile: '/c/d.json', os: os() });
  expect(p.dataDir).toBe('/a/b');
  expect(p.configFile).toBe('/c/d.json');
});

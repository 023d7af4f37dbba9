/**
 * Installs no server uses are removed as the hub starts (issue 16: a bundle downloaded to read its settings
 * for a form that was then cancelled, a removed server's package, an update's old version): through a real
 * hub, the folders servers run from stay — a disabled server's too — and everything else that is not an
 * install stays untouched.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import { createAppHub } from '../../electron/core/app/app-hub.js';
import { resolvePaths } from '../../electron/core/files/app-paths.js';
import { NODE, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
const folder = (...parts: string[]) => join(hub.dir, ...parts);
const FOLDERS = {
  usedBundle: ['bundles', 'io.github.acme+notes@1.2.0'],
  unusedBundle: ['bundles', 'io.github.acme+weather@0.3.0'],
  usedPackage: ['packages', '@acme+files@2.0.0'],
  unusedPackage: ['packages', 'old-server@1.0.0'],
  notAnInstall: ['packages', '.cache'],
};

beforeAll(async () => {
  hub = await startTestHub(async (dir: string) => {
    for (const parts of Object.values(FOLDERS)) {
      await mkdir(join(dir, ...parts), { recursive: true });
      await writeFile(join(dir, ...parts, 'marker.txt'), 'x');
    }
    const server = (script: string) => ({ type: 'stdio', command: NODE, args: [script], enabled: false });
    return {
      version: 1,
      servers: {
        notes: server(join(dir, ...FOLDERS.usedBundle, 'server', 'index.js')),
        files: server(join(dir, ...FOLDERS.usedPackage, 'node_modules', '@acme', 'files', 'dist', 'index.js')),
      },
    };
  });
});
afterAll(async () => {
  await hub?.stop();
});

describe('installs no server uses', () => {
  it('are removed at start and logged; used ones (of a disabled server too) and other folders stay', async () => {
    const removed = (e: HubEvent) => e.type === 'log' && /^Removed 2 downloaded server packages no server uses any more/.test(e.message);
    if (!hub.hub.events.recent().some(removed)) await hub.waitFor(removed, 'the removal logged');
    expect(existsSync(folder(...FOLDERS.unusedBundle))).toBe(false);
    expect(existsSync(folder(...FOLDERS.unusedPackage))).toBe(false);
    expect(existsSync(folder(...FOLDERS.usedBundle, 'marker.txt'))).toBe(true);
    expect(existsSync(folder(...FOLDERS.usedPackage, 'marker.txt'))).toBe(true);
    expect(existsSync(folder(...FOLDERS.notAnInstall, 'marker.txt'))).toBe(true);
  });

  it('are left alone by a hub started with another config file (it does not see every server using them)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'spillway-other-config-'));
    try {
      const unused = join(dir, 'packages', 'old-server@1.0.0');
      await mkdir(unused, { recursive: true });
      const configFile = join(dir, 'elsewhere.json');
      await writeFile(configFile, JSON.stringify({ version: 1, servers: {} }));
      const paths = resolvePaths({ dataDir: dir, configFile, os: { home: homedir(), platform: process.platform, env: {} } });
      const app = await createAppHub({ paths, platform: process.platform, env: process.env, port: 0 });
      await app.hub.start();
      const status = await app.dispatcher.dispatch('registry.installed', {}); // a registry call: the installers are up
      await app.hub.stop();
      expect(status).toBeDefined();
      expect(existsSync(unused)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

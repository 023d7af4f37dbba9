/**
 * Windows refuses a rename for a moment while another program holds the file (antivirus scanning a new
 * file, the search indexer, an editor): EPERM, EBUSY or EACCES. Every save and install renames at its
 * end, so each tries again briefly (renameOver) instead of failing: the data folder's files (config,
 * hub record, secrets file), an npm package and an MCPB bundle moved into place. The refusals come from
 * Node's own rename, made to refuse the first tries; everything else is real (files, registry, installs).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { zipSync } from 'fflate';
import { renameOver, writeAtomically } from '../../electron/core/files/atomic-file.js';
import { installNpmPackage } from '../../electron/core/registry/install/npm-install.js';
import { installBundle } from '../../electron/core/registry/mcpb/mcpb-bundle.js';
import { fixture, ROOT } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';

/** The renames onto `target` to refuse, as Windows does while the file is held, and how many were. */
const held = vi.hoisted(() => ({ target: '', left: 0, code: 'EPERM', refused: 0 }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    rename: async (from: string, to: string) => {
      if (held.left > 0 && to === held.target) {
        held.left--;
        held.refused++;
        throw Object.assign(new Error(`${held.code}: operation not permitted, rename '${from}' -> '${to}'`), { code: held.code });
      }
      return real.rename(from, to);
    },
  };
});

/** From now on, the next `times` renames onto `target` are refused with `code`. */
function hold(target: string, times: number, code = 'EPERM'): void {
  Object.assign(held, { target, left: times, code, refused: 0 });
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-held-'));
});
afterEach(async () => {
  hold('', 0);
  await rm(dir, { recursive: true, force: true });
});

describe('renameOver', () => {
  /** fs's rename, refusing the first `refusals` calls with `code`; counts the calls. */
  const refusing = (refusals: number, code: string) => {
    const calls = { count: 0 };
    const impl = async (from: string, to: string) => {
      if (++calls.count <= refusals) throw Object.assign(new Error(`${code}: rename '${from}' -> '${to}'`), { code });
      await rename(from, to);
    };
    return { impl, calls };
  };

  it('tries again while the file is held, then renames', async () => {
    for (const code of ['EPERM', 'EBUSY', 'EACCES']) {
      await writeFile(join(dir, 'new'), code);
      const { impl, calls } = refusing(2, code);
      await renameOver(join(dir, 'new'), join(dir, 'file'), impl);
      expect(calls.count).toBe(3);
      expect(await readFile(join(dir, 'file'), 'utf8')).toBe(code);
    }
  });

  it('throws other errors at once, and a hold that lasts after a few tries', async () => {
    const missing = refusing(0, 'EPERM');
    await expect(renameOver(join(dir, 'missing'), join(dir, 'file'), missing.impl)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(missing.calls.count).toBe(1);
    const lasting = refusing(100, 'EPERM');
    await expect(renameOver(join(dir, 'a'), join(dir, 'b'), lasting.impl)).rejects.toMatchObject({ code: 'EPERM' });
    expect(lasting.calls.count).toBe(7);
  });
});

describe('saves and installs while Windows holds the file for a moment', () => {
  it('an atomic save (config, hub record, secrets file) lands, and no temp file is left', async () => {
    const file = join(dir, 'config.json');
    await writeFile(file, '{"old":true}');
    hold(file, 2);
    await writeAtomically(file, Buffer.from('{"new":true}'), 0o600);
    expect(held.refused).toBe(2);
    expect(await readFile(file, 'utf8')).toBe('{"new":true}');
    expect(await readdir(dir)).toEqual(['config.json']);
  });

  it('an MCPB bundle is moved into place', async () => {
    const manifest = {
      manifest_version: '0.3',
      name: 'held-bundle',
      version: '1.0.0',
      description: 'A bundle installed while its folder is held.',
      author: { name: 'Spillway tests' },
      server: { type: 'node', entry_point: 'server/index.mjs', mcp_config: { command: 'node', args: ['${__dirname}/server/index.mjs'] } },
    };
    const zip = Buffer.from(
      zipSync({ 'manifest.json': Buffer.from(JSON.stringify(manifest)), 'server/index.mjs': Buffer.from('process.exit(0);\n') }),
    );
    const sha256 = createHash('sha256').update(zip).digest('hex');
    const bundles = join(dir, 'bundles');
    hold(join(bundles, 'held-bundle@1.0.0'), 2, 'EBUSY');
    const bundle = await installBundle(
      bundles,
      { url: 'https://example.test/held.mcpb', sha256, folder: 'held-bundle@1.0.0' },
      async () => new Response(zip),
    );
    expect(held.refused).toBe(2);
    expect(bundle.manifest.name).toBe('held-bundle');
    expect(await readdir(bundles)).toEqual(['held-bundle@1.0.0']);
  });

  describe('from the npm registry', () => {
    let npm: Started & { url: string };
    afterAll(async () => {
      await npm?.stop();
    });

    it('an npm package is moved into place', async () => {
      const started = await spawnUntil(process.execPath, [fixture('npm-registry-fixture.mjs'), '--port', '0'], /NPM-REGISTRY-FIXTURE (http:\/\/\S+)/);
      npm = { ...started, url: started.match[1] };
      const packages = join(dir, 'packages');
      const name = '@modelcontextprotocol/server-memory';
      const version = JSON.parse(await readFile(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version as string;
      hold(join(packages, `@modelcontextprotocol+server-memory@${version}`), 2);
      const installed = await installNpmPackage({ dir: packages, registry: npm.url }, name, version);
      expect(held.refused).toBe(2);
      expect(existsSync(installed.script)).toBe(true);
      expect((await readdir(packages)).filter((f) => !f.startsWith('.npm-cache'))).toEqual([`@modelcontextprotocol+server-memory@${version}`]);
    }, 120_000);
  });
});

/**
 * electron-builder.yml, checked without building (the build needs Electron's binary from the network):
 * loaded with the YAML parser electron-builder itself uses, validated by electron-builder's own
 * `validateConfiguration` (its scheme.json through its ajv setup), and the points the app relies on.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { APP_ID } from '../../electron/main/shell-paths.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
// Resolve from app-builder-lib so the test uses the same js-yaml and ajv electron-builder does.
const builderRequire = createRequire(join(root, 'node_modules/app-builder-lib/package.json'));
const yaml = builderRequire('js-yaml') as { load(text: string): unknown };
const { minimatch } = builderRequire('minimatch') as { minimatch(file: string, pattern: string, options: { dot: boolean }): boolean };
const { validateConfiguration } = builderRequire('./out/util/config/config.js') as {
  validateConfiguration(config: unknown, debugLogger: { isEnabled: boolean; add(k: string, v: unknown): void }): Promise<void>;
};

interface Target {
  target: string;
}
interface BuilderConfig {
  appId: string;
  productName: string;
  directories: { output: string; buildResources: string };
  files: string[];
  asar: boolean;
  asarUnpack: string[];
  electronFuses: Record<string, boolean>;
  mac: { target: Target[]; icon: string };
  win: { target: Target[]; icon: string };
  linux: { target: Target[]; icon: string; maintainer?: string };
  deb?: { maintainer?: string };
}

const config = yaml.load(readFileSync(join(root, 'electron-builder.yml'), 'utf8')) as BuilderConfig;
const debugLogger = { isEnabled: false, add: () => {} };

/** electron-builder's file patterns: a leading "!" excludes; later patterns win. */
function included(patterns: readonly string[], file: string): boolean {
  let hit = false;
  for (const p of patterns) {
    if (p.startsWith('!')) {
      if (minimatch(file, p.slice(1), { dot: true })) hit = false;
    } else if (minimatch(file, p, { dot: true })) hit = true;
  }
  return hit;
}

describe('electron-builder.yml', () => {
  it("passes electron-builder's own schema validation", async () => {
    await expect(validateConfiguration(config, debugLogger)).resolves.toBeUndefined();
  });

  it('the validation is real: a misspelt key is refused', async () => {
    await expect(validateConfiguration({ ...config, asarUnpak: ['x'] }, debugLogger)).rejects.toThrow(/asarUnpak|additional/i);
    await expect(validateConfiguration({ ...config, electronFuses: { runAsNodes: true } }, debugLogger)).rejects.toThrow();
  });

  it('names the app as the shell does', () => {
    expect(config.appId).toBe(APP_ID);
    expect(config.productName).toBe('Spillway');
  });

  it('builds dmg + zip on macOS, nsis on Windows, AppImage on Linux', () => {
    expect(config.mac.target.map((t) => t.target).sort()).toEqual(['dmg', 'zip']);
    expect(config.win.target.map((t) => t.target)).toEqual(['nsis']);
    expect(config.linux.target.map((t) => t.target).sort()).toEqual(['AppImage']);
  });

  it('writes installers outside dist/, where the compiled app lives', () => {
    expect(config.directories.output).not.toMatch(/^dist\/?$/);
    expect(config.directories.buildResources).toBe('build');
  });

  it('takes every icon from the one image in build/, which exists and is large enough', () => {
    for (const platform of [config.mac, config.win, config.linux]) expect(platform.icon).toBe('build/icon.png');
    const png = readFileSync(join(root, 'build/icon.png'));
    expect(png.readUInt32BE(16)).toBeGreaterThanOrEqual(512); // IHDR width; icns needs 512+
  });

  it('packs the compiled app, the renderer, the CLI launcher and the runtime tray icons', () => {
    for (const file of [
      'package.json',
      'dist/electron/main/main.js',
      'dist/electron/preload/preload.cjs',
      'dist/electron/core/hub.js',
      'dist/shared/api.js',
      'dist/renderer/index.html',
      'electron/cli/spillway.js',
      'electron/assets/trayTemplate.png',
      'electron/assets/tray@2x.png',
    ]) {
      expect(included(config.files, file), file).toBe(true);
    }
    expect(included(config.files, 'dist/electron/main/main.js.map')).toBe(false);
    expect(included(config.files, 'electron/main/main.ts')).toBe(false);
    expect(included(config.files, 'build/icon-art.ts')).toBe(false);
  });

  it('unpacks the bridge and everything it loads from the asar', () => {
    expect(config.asar).toBe(true);
    for (const file of [
      'electron/cli/spillway.js',
      'dist/electron/cli/main.js',
      'dist/electron/core/hub.js',
      'dist/shared/config.js',
      // Without package.json beside them the unpacked .js files would not load as ES modules.
      'package.json',
      // An unpacked script resolves bare imports on disk, not inside app.asar.
      'node_modules/@modelcontextprotocol/sdk/package.json',
      'node_modules/zod/package.json',
    ]) {
      expect(included(config.asarUnpack, file), file).toBe(true);
    }
    expect(included(config.asarUnpack, 'dist/renderer/index.html')).toBe(false);
  });

  it('the launcher the bridge runs exists where the config expects it', () => {
    expect(existsSync(join(root, 'electron/cli/spillway.js'))).toBe(true);
  });

  it('deb: has the maintainer electron-builder requires (package.json has no author with an email)', () => {
    expect(config.deb?.maintainer ?? config.linux.maintainer).toMatch(/^[^<>]+ <[^<>@\s]+@[^<>\s]+>$/);
  });

  // electron-builder refuses to build a deb without the project's address ("Please specify project
  // homepage"): package.json `homepage`, else a GitHub `repository` (app-builder-lib appInfo.js
  // computePackageUrl); nothing in electron-builder.yml stands in for it.
  it('builds a deb only when the project has an address (package.json homepage or a GitHub repository)', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { homepage?: string; repository?: string | { url?: string } };
    const repository = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
    const address = pkg.homepage || (repository && /github/.test(repository) ? repository : undefined);
    const targets = config.linux.target.map((t) => t.target);
    if (!address) expect(targets).not.toContain('deb');
    else expect(address).toMatch(/^https:\/\//);
  });

  it('leaves the RunAsNode fuse on (the bridge) and hardens the others', () => {
    const fuses = config.electronFuses;
    expect(fuses.runAsNode).toBe(true);
    expect(fuses.enableNodeOptionsEnvironmentVariable).toBe(false);
    expect(fuses.enableNodeCliInspectArguments).toBe(false);
    expect(fuses.onlyLoadAppFromAsar).toBe(true);
    expect(fuses.enableEmbeddedAsarIntegrityValidation).toBe(true);
    expect(fuses.enableCookieEncryption).toBe(true);
  });
});

/**
 * The bridge entry written into AI apps' configs when Spillway runs from a Linux AppImage. The executable
 * and resources of a run are inside the AppImage's mount (/tmp/.mount_XXXXXX), a new folder each run that
 * is gone once the app quits; the entry must name the AppImage file and still reach the unpacked bridge
 * script, through the AppRun electron-builder puts in the AppImage (it adds --no-sandbox, which Node
 * refuses, on systems without unprivileged user namespaces).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { launchCommand } from '../../electron/main/login-item.js';
import { bridgeLaunch } from '../../electron/main/shell-paths.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const mount = '/tmp/.mount_SpillwAbC123';
const appImageRun = {
  execPath: `${mount}/spillway`,
  resourcesPath: `${mount}/resources`,
  appRoot: `${mount}/resources/app.asar`,
  isPackaged: true,
  platform: 'linux' as const,
};
// What the AppImage runtime sets for the program it starts.
const env = { APPIMAGE: '/home/u/Applications/Spillway-0.1.0.AppImage', APPDIR: mount };

describe('bridge entry from an AppImage', () => {
  it('the login item uses the AppImage file (the same rule)', () => {
    expect(launchCommand({ ...appImageRun, appPath: appImageRun.appRoot, env })).toEqual([env.APPIMAGE]);
  });

  it('runs the AppImage file as Node, naming nothing inside the mount', () => {
    const launch = bridgeLaunch({ ...appImageRun, env });
    expect(launch.command).toBe(env.APPIMAGE);
    expect(launch.env).toEqual({ ELECTRON_RUN_AS_NODE: '1' });
    expect(launch.args).toContain('bridge');
    for (const arg of [launch.command, ...launch.args]) expect(arg, 'an argument in the client config').not.toContain('/tmp/.mount_');
  });

  it('AppImage variables inherited from another AppImage (an AI app packaged so) do not count', () => {
    const installed = { ...appImageRun, execPath: '/opt/Spillway/spillway', resourcesPath: '/opt/Spillway/resources' };
    const launch = bridgeLaunch({ ...installed, env: { APPIMAGE: '/home/u/Cursor.AppImage', APPDIR: '/tmp/.mount_CursorXyZ' } });
    expect(launch.command).toBe('/opt/Spillway/spillway');
    expect(launch.args).toEqual(['/opt/Spillway/resources/app.asar.unpacked/electron/cli/spillway.js', 'bridge']);
  });
});

// The AppRun script electron-builder writes into the AppImage (app-builder-lib, the version packaging uses).
const builderRequire = createRequire(join(root, 'node_modules/app-builder-lib/package.json'));
const { generateAppRunScript } = builderRequire('./out/targets/appimage/appImageUtil.js') as {
  generateAppRunScript(config: { ExecutableName: string; ProductName: string; ProductFilename: string }): string;
};

describe.skipIf(process.platform === 'win32')('the entry run through the AppImage’s AppRun', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spillway-appimage-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /**
   * A mounted AppImage: AppRun; the executable, here Node told (by a preloaded file) that its path is the
   * executable's, as Electron's would be; the unpacked launcher, here one that prints what it was given.
   */
  function mountedAppImage(name: string): string {
    const appDir = join(dir, name);
    const script = join(appDir, 'resources', 'app.asar.unpacked', 'electron', 'cli', 'spillway.js');
    mkdirSync(join(script, '..'), { recursive: true });
    writeFileSync(
      script,
      'process.stdout.write(JSON.stringify({ script: process.argv[1], args: process.argv.slice(2), runAsNode: process.env.ELECTRON_RUN_AS_NODE }));\n',
    );
    const preload = join(appDir, 'exec-path.cjs');
    writeFileSync(preload, `process.execPath = ${JSON.stringify(join(appDir, 'spillway'))};\n`);
    writeFileSync(join(appDir, 'spillway'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --require ${JSON.stringify(preload)} "$@"\n`);
    chmodSync(join(appDir, 'spillway'), 0o755);
    writeFileSync(join(appDir, 'AppRun'), generateAppRunScript({ ExecutableName: 'spillway', ProductName: 'Spillway', ProductFilename: 'Spillway' }));
    chmodSync(join(appDir, 'AppRun'), 0o755);
    return appDir;
  }

  it.each([
    ['without unprivileged user namespaces (AppRun adds --no-sandbox)', 1],
    ['with them', 0],
  ])('reaches the unpacked launcher with the bridge’s arguments, %s', (_case, unshareExit) => {
    const appDir = mountedAppImage(`mount-${unshareExit}`);
    // AppRun asks `unshare -Ur true` whether the sandbox can work.
    const bin = join(dir, `bin-${unshareExit}`);
    mkdirSync(bin);
    writeFileSync(join(bin, 'unshare'), `#!/bin/sh\nexit ${unshareExit}\n`);
    chmodSync(join(bin, 'unshare'), 0o755);
    const launch = bridgeLaunch({ ...appImageRun, execPath: join(appDir, 'spillway'), env: { ...env, APPDIR: appDir } });
    const out = execFileSync(join(appDir, 'AppRun'), [...launch.args, '--data-dir', '/home/u/.config/Spillway'], {
      env: { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: dir, APPDIR: appDir, APPIMAGE: env.APPIMAGE, ...launch.env },
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual({
      script: join(appDir, 'resources', 'app.asar.unpacked', 'electron', 'cli', 'spillway.js'),
      args: ['bridge', '--data-dir', '/home/u/.config/Spillway'],
      runAsNode: '1',
    });
  });
});

/**
 * How a bridge running inside the app's executable (ELECTRON_RUN_AS_NODE) starts the app when no hub
 * answers: unpacked (`npm start`, Electron on the repo) Electron needs the app folder, or it starts its own
 * default app; from an AppImage the AppImage file starts it, a run of its own that outlives the bridge's
 * mount and knows it is an AppImage. Every way passes `--hidden`: the app starts in the tray, as no one
 * asked for its window. Fake executables record what they were started with.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appLaunch, hubLauncher } from '../../electron/cli/bridge/launcher.js';
import { bridgeLaunch } from '../../electron/main/shell-paths.js';

const dir = mkdtempSync(join(tmpdir(), 'spillway-applaunch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * An executable that writes its argument count, arguments and some of its environment to `<name>.txt`
 * (whole, by a rename); `seen` resolves with them once the file is there.
 */
function recorder(name: string): { path: string; seen: () => Promise<string> } {
  const path = join(dir, name);
  const file = `${path}.txt`;
  const line = 'echo "argc=$# $* run-as-node=$ELECTRON_RUN_AS_NODE appdir=$APPDIR"';
  writeFileSync(path, `#!/bin/sh\n${line} > ${JSON.stringify(`${file}.part`)} && mv ${JSON.stringify(`${file}.part`)} ${JSON.stringify(file)}\n`);
  chmodSync(path, 0o755);
  return {
    path,
    seen: () =>
      new Promise((resolve) => {
        const check = () => {
          if (!existsSync(file)) return;
          watcher.close();
          resolve(readFileSync(file, 'utf8').trim());
        };
        const watcher = watch(dir, (_event, changed) => changed === basename(file) && check());
        // It may have been written before the watch began.
        check();
      }),
  };
}

describe.skipIf(process.platform === 'win32')('a bridge that finds no hub, inside the app’s executable', () => {
  it('unpacked: starts Electron with the app folder', async () => {
    const electron = recorder('electron');
    const appRoot = '/repo';
    // The entry the app writes into clients when it is not packaged, run by a client.
    const launch = bridgeLaunch({ execPath: electron.path, isPackaged: false, resourcesPath: '/x', appRoot, platform: 'linux', env: {} });
    const start = await hubLauncher({
      dataDir: dir,
      execPath: launch.command,
      script: launch.args[0],
      env: { PATH: process.env.PATH, ...launch.env },
    })();
    const seen = await electron.seen();
    start?.dispose();
    expect(seen).toBe(`argc=2 ${appRoot} --hidden run-as-node= appdir=`);
  });

  it('from an AppImage: starts the AppImage file, not the executable in the bridge’s mount', async () => {
    const appImage = recorder('Spillway.AppImage');
    const mount = '/tmp/.mount_SpillwAbC123';
    const start = await hubLauncher({
      dataDir: dir,
      execPath: `${mount}/spillway`,
      script: `${mount}/resources/app.asar.unpacked/electron/cli/spillway.js`,
      env: { PATH: process.env.PATH, ELECTRON_RUN_AS_NODE: '1', APPIMAGE: appImage.path, APPDIR: mount },
    })();
    const seen = await appImage.seen();
    start?.dispose();
    expect(seen).toBe('argc=1 --hidden run-as-node= appdir=');
  });
});

describe('the app’s command', () => {
  it('packaged: the executable, in the tray', () => {
    expect(appLaunch('/opt/Spillway/spillway', '/opt/Spillway/resources/app.asar.unpacked/electron/cli/spillway.js', {})).toEqual({
      command: '/opt/Spillway/spillway',
      args: ['--hidden'],
    });
    const exe = 'C:\\Program Files\\Spillway\\Spillway.exe';
    expect(appLaunch(exe, 'C:\\Program Files\\Spillway\\resources\\app.asar.unpacked\\electron\\cli\\spillway.js', {})).toEqual({
      command: exe,
      args: ['--hidden'],
    });
  });

  it('AppImage variables inherited from an AI app packaged as an AppImage do not count', () => {
    const env = { APPIMAGE: '/home/u/Cursor.AppImage', APPDIR: '/tmp/.mount_CursorXyZ' };
    expect(appLaunch('/opt/Spillway/spillway', '/opt/Spillway/resources/app.asar.unpacked/electron/cli/spillway.js', env)).toEqual({
      command: '/opt/Spillway/spillway',
      args: ['--hidden'],
    });
  });
});

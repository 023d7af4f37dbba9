/**
 * Which AppImage this executable runs from is one rule, in one module (electron/core/files/app-image.ts),
 * which its three users follow alike: the bridge entry written into AI apps' configs and the login item
 * (electron/main) name that file, and the bridge runs it to start the app (electron/cli).
 */
import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appLaunch } from '../../electron/cli/bridge/launcher.js';
import { runningAppImage } from '../../electron/core/files/app-image.js';
import { launchCommand } from '../../electron/main/login-item.js';
import { bridgeLaunch } from '../../electron/main/shell-paths.js';

const mount = '/tmp/.mount_SpillwAbC123';
const own = '/home/u/Applications/Spillway-0.1.0.AppImage';
const inMount = `${mount}/spillway`;
const installed = '/opt/Spillway/spillway';

/** [what the case is, the executable, its environment, the AppImage it runs from]. */
const cases: [string, string, Record<string, string>, string | undefined][] = [
  ['its own AppImage', inMount, { APPIMAGE: own, APPDIR: mount }, own],
  ['its own AppImage, the mount given with a trailing slash', inMount, { APPIMAGE: own, APPDIR: `${mount}/` }, own],
  [
    'another AppImage’s variables (an AI app packaged so)',
    installed,
    { APPIMAGE: '/home/u/Cursor.AppImage', APPDIR: '/tmp/.mount_CursorXyZ' },
    undefined,
  ],
  ['a mount whose name begins like its own', `${mount}x/spillway`, { APPIMAGE: own, APPDIR: mount }, undefined],
  ['APPIMAGE without APPDIR', installed, { APPIMAGE: own }, undefined],
  ['APPDIR without APPIMAGE', inMount, { APPDIR: mount }, undefined],
  ['no AppImage variables', installed, {}, undefined],
];

describe('the AppImage this executable runs from', () => {
  it.each(cases)('%s', (_what, execPath, env, expected) => {
    expect(runningAppImage(execPath, env)).toBe(expected);
  });

  it.each(cases)('the bridge entry, the login item and the bridge’s start of the app agree: %s', (_what, execPath, env, expected) => {
    const resourcesPath = posix.join(posix.dirname(execPath), 'resources');
    const entry = bridgeLaunch({ execPath, isPackaged: true, resourcesPath, appRoot: `${resourcesPath}/app.asar`, platform: 'linux', env });
    expect(entry.command).toBe(expected ?? execPath);
    expect(launchCommand({ execPath, isPackaged: true, appPath: `${resourcesPath}/app.asar`, env })).toEqual([expected ?? execPath]);
    const script = `${resourcesPath}/app.asar.unpacked/electron/cli/spillway.js`;
    expect(appLaunch(execPath, script, env).command).toBe(expected ?? execPath);
  });
});

/**
 * The login item from a Linux AppImage names the AppImage file, by the rule the bridge entry follows
 * (electron/core/files/app-image.ts runningAppImage): APPIMAGE counts only when the executable is inside
 * APPDIR, the mount the AppImage runtime made for it. An AI app packaged as an AppImage (Cursor) hands its
 * own APPIMAGE and APPDIR to the programs it starts; Spillway started from it must not register Cursor at
 * login.
 */
import { describe, expect, it } from 'vitest';
import { launchCommand, loginItemPlan } from '../../electron/main/login-item.js';

const installed = { execPath: '/opt/Spillway/spillway', isPackaged: true, appPath: '/opt/Spillway/resources/app.asar' };
const fromCursor = { APPIMAGE: '/home/u/Applications/Cursor.AppImage', APPDIR: '/tmp/.mount_CursorXyZ' };

describe('the login item and AppImage variables', () => {
  it('registers its own executable when the AppImage variables are another AppImage’s', () => {
    expect(launchCommand({ ...installed, env: fromCursor })).toEqual(['/opt/Spillway/spillway']);
    const plan = loginItemPlan(true, {
      platform: 'linux',
      home: '/home/u',
      env: fromCursor,
      command: launchCommand({ ...installed, env: fromCursor }),
    });
    expect(plan).toMatchObject({ kind: 'autostart-file', content: expect.stringContaining('Exec=/opt/Spillway/spillway --hidden') });
    expect(JSON.stringify(plan)).not.toContain('Cursor');
  });

  it('registers its own AppImage file when it runs from it', () => {
    const mount = '/tmp/.mount_SpillwAbC123';
    const env = { APPIMAGE: '/home/u/Applications/Spillway-0.1.0.AppImage', APPDIR: mount };
    expect(launchCommand({ execPath: `${mount}/spillway`, isPackaged: true, appPath: `${mount}/resources/app.asar`, env })).toEqual([env.APPIMAGE]);
  });

  it('an APPIMAGE without the mount it belongs to does not count', () => {
    expect(launchCommand({ ...installed, env: { APPIMAGE: '/home/u/Applications/Cursor.AppImage' } })).toEqual(['/opt/Spillway/spillway']);
  });
});

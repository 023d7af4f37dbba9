/**
 * The Electron shell, run (see electron-shell-lifecycle.test.ts): Quit stops the hub while the window is
 * still open, so the page may still call. A call then is refused: served, a Restart would start a server
 * after the hub reaped its children, and that process would outlive the app.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { until, type DoubleBrowserWindow, type ElectronDouble } from '../support/electron-double.js';
import { fixtureServerConfig, shellFolders, type ShellFolders } from '../support/shell-folders.js';
import { callFromPage, loadShell, newestTray, quitApp, trayLabels } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

/** Names this test's upstream child on its command line, to find it in /proc. */
const MARKER = `shell-quit-fx-${process.pid}-${Date.now()}`;

let folders: ShellFolders | undefined;
let electron: ElectronDouble;

const readProc = (pid: number, file: string) => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return '';
  }
};
/** Live (not zombie) processes whose command line carries `text` as an argument (Linux /proc). */
const pidsMentioning = (text: string) =>
  readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((pid) => {
      const stat = readProc(pid, 'stat');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z' && readProc(pid, 'cmdline').split('\0').includes(text);
    });

const tray = () => newestTray(electron);
const labels = () => trayLabels(electron);
const call = (win: DoubleBrowserWindow, method: string, req?: unknown) => callFromPage(electron, win, method, req);

beforeAll(async () => {
  folders = await shellFolders('quit', fixtureServerConfig(0, ['--name', MARKER]), { dataDir: join('appData', 'Spillway') });
  electron = await loadShell(folders, { appData: join(folders.tmp, 'appData') });
  electron.app.emitReady();
});

afterAll(async () => {
  await quitApp(electron);
  for (const pid of pidsMentioning(MARKER)) process.kill(pid, 'SIGKILL');
  await folders?.end(electron);
});

describe('calls that arrive while Quit stops the hub', () => {
  it('a Restart clicked in the window after Quit is refused, and no server process outlives the app', async () => {
    await until(() => labels().includes('Server ready'), 'the tray to report the server ready');
    const win = await until(() => electron.BrowserWindow.getAllWindows().find((w) => w.visible), 'the window to show');
    expect(await call(win, 'status')).toMatchObject({ ok: true });
    expect(pidsMentioning(MARKER)).toHaveLength(1);

    tray().menu!.item('Quit Spillway').click();
    // The window stays open (and trusted) until the hub has stopped: a click in flight still reaches the shell.
    await Promise.resolve();
    expect(win.isDestroyed()).toBe(false);
    const refused = { ok: false, code: 'unavailable', message: 'Spillway is quitting. Start it again to make changes.' };
    expect(await call(win, 'upstreams.restart', { id: 'fx' })).toEqual(refused);
    expect(await call(win, 'status')).toEqual(refused);

    await until(() => electron.app.exitCode !== undefined, 'the app to quit');
    expect(electron.app.exitCode).toBe(0);
    // The hub's stop (awaited before the exit) reaped its children, and a refused restart starts none later.
    expect(pidsMentioning(MARKER)).toEqual([]);
  });
});

/**
 * The Electron shell, run (see electron-shell-lifecycle.test.ts): the window's page process ends (a crash,
 * out of memory). The page is loaded again instead of staying blank; a second crash soon after closes the
 * window (no reload loop) and "Open Spillway" builds a new one.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { until, type DoubleBrowserWindow, type ElectronDouble } from '../support/electron-double.js';
import { fixtureServerConfig, shellFolders, type ShellFolders } from '../support/shell-folders.js';
import { callFromPage, loadShell, newestTray, trayLabels } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

let folders: ShellFolders | undefined;
let electron: ElectronDouble;

const windows = () => electron.BrowserWindow.getAllWindows();
const tray = () => newestTray(electron);
const labels = () => trayLabels(electron);
const call = (win: DoubleBrowserWindow, method: string, req?: unknown) => callFromPage(electron, win, method, req);
const loaded = (win: DoubleBrowserWindow) => !win.contents.isLoading() && !win.contents.isCrashed();

beforeAll(async () => {
  folders = await shellFolders('crash', fixtureServerConfig(0), { dataDir: join('appData', 'Spillway') });
  electron = await loadShell(folders, { appData: join(folders.tmp, 'appData') });
  electron.app.emitReady();
});

afterAll(async () => {
  vi.restoreAllMocks();
  await folders?.end(electron);
});

describe('a crashed window page', () => {
  it('is loaded again, and Open brings the reloading window to the front', async () => {
    const logged = vi.spyOn(console, 'log');
    await until(() => labels().includes('Server ready'), 'the tray to report the server ready');
    const win = await until(() => windows().find((w) => w.visible && w.isFocused()), 'the window to show');
    const page = win.contents.getURL();
    expect(win.contents.loads).toBe(1);

    win.minimize();
    win.contents.renderProcessGone('crashed', 133);
    expect(win.contents.loads).toBe(2);
    expect(logged).toHaveBeenCalledWith(expect.stringContaining("The window's page stopped (crashed, exit code 133); loading it again."));
    // Open while the page still loads: a shown window gets no 'ready-to-show', so Open must not wait for one.
    tray().menu!.item('Open Spillway').click();
    await until(() => win.isFocused() && !win.isMinimized(), 'the reloading window in front');
    await until(() => loaded(win), 'the page loaded again');
    expect(windows()).toEqual([win]);
    expect(win.contents.getURL()).toBe(page);
    expect(await call(win, 'status')).toMatchObject({ ok: true, value: { upstreams: [{ id: 'fx' }] } });

    // A page process that ends cleanly (the window closing) is no crash.
    win.contents.renderProcessGone('clean-exit', 0);
    expect(win.contents.loads).toBe(2);
  });

  it('crashing again soon after closes the window instead of reloading it; Open builds a new one', async () => {
    const [win] = windows();
    win.contents.renderProcessGone('oom');
    expect(win.isDestroyed()).toBe(true);
    expect(win.contents.loads).toBe(2);
    expect(windows()).toEqual([]);
    expect(electron.app.exitCode).toBeUndefined();
    expect(tray().isDestroyed()).toBe(false);

    tray().menu!.item('Open Spillway').click();
    const again = await until(() => windows().find((w) => w.visible && w.isFocused()), 'a new window');
    expect(again).not.toBe(win);
    await until(() => loaded(again), 'the new window loaded');
    expect(await call(again, 'status')).toMatchObject({ ok: true });
  });
});

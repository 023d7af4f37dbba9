/**
 * The Electron shell, run: the built main process (dist/electron/main/main.js, package.json "main") in
 * Node against the electron double (test/support/electron-double.ts), with the real hub it starts on a
 * data folder that does not exist yet and a real stdio upstream from test/fixtures. One app lifetime, in
 * order: start, tray, window, IPC, pause from the tray, close to the tray, a second instance, quit.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { api } from '../../shared/api.js';
import { BRIDGE_ARG_PREFIX, IPC_CHANNELS } from '../../electron/main/ipc-binding.js';
import { cspWeaknesses, WINDOW_BACKGROUND } from '../../electron/main/window-options.js';
import {
  callsTo,
  DoubleEvent,
  DoubleWebContents,
  until,
  type DoubleBrowserWindow,
  type DoubleFrame,
  type ElectronDouble,
} from '../support/electron-double.js';
import { ROOT } from '../support/hub-harness.js';
import { alive } from '../support/processes.js';
import { fixtureServerConfig, shellFolders, type ShellFolders } from '../support/shell-folders.js';
import { loadShell, newestTray, trayLabels } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

/** Names this test's upstream child on its command line, to find it in /proc. */
const MARKER = `shell-fx-${process.pid}-${Date.now()}`;

let folders: ShellFolders | undefined;
let dataDir: string;
let configFile: string;
let electron: ElectronDouble;

const procIds = () =>
  readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(Number);
const readProc = (pid: number, file: string) => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return '';
  }
};
/** Processes whose command line carries `text` as an argument (Linux /proc). */
const pidsMentioning = (text: string) => procIds().filter((pid) => readProc(pid, 'cmdline').split('\0').includes(text));
/** Live (not zombie) children of this process: /proc/<pid>/stat, after the name, is "state ppid ...". */
const childrenOfThisProcess = () =>
  procIds().filter((pid) => {
    const stat = readProc(pid, 'stat');
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(ppid) === process.pid && state !== 'Z';
  });

const windows = () => electron.BrowserWindow.getAllWindows();
const tray = () => newestTray(electron);
const labels = () => trayLabels(electron);
const shownWindow = (what: string) => until(() => windows().find((w) => w.visible && w.isFocused()), what);
/** Our page's main frame, as Electron reports an IPC sender's frame. */
const pageFrame = (win: DoubleBrowserWindow): DoubleFrame => ({ url: win.contents.getURL(), parent: null });
const callFrom = (sender: DoubleWebContents, frame: DoubleFrame | null, method: string, req: unknown = {}) =>
  electron.ipcMain.invokeFrom(sender, frame, IPC_CHANNELS.call, { method, req });
const call = (win: DoubleBrowserWindow, method: string, req: unknown = {}) => callFrom(win.webContents, pageFrame(win), method, req);

let endpoint: string;

beforeAll(async () => {
  // A first start: the data folder does not exist yet. The config lives elsewhere (SPILLWAY_CONFIG) so
  // the hub can listen on a free port.
  folders = await shellFolders('lifecycle', fixtureServerConfig(0, ['--name', MARKER]), { dataDir: join('appData', 'Spillway') });
  ({ dataDir, configFile } = folders);
  electron = await loadShell(folders, { appData: join(folders.tmp, 'appData') });
});

afterAll(() => folders?.end(electron));

describe('the Electron shell, run in Node', () => {
  it('before ready: names the app, keeps userData in the (new) data folder and asks for the single-instance lock', () => {
    expect(electron.app.getName()).toBe('Spillway');
    expect(electron.app.getPath('userData')).toBe(dataDir);
    expect(existsSync(dataDir)).toBe(true);
    expect(electron.app.lockRequested).toBe(true);
    expect(windows()).toEqual([]);
    expect(electron.Tray.all).toEqual([]);
  });

  it('app ready → a tray with its menu, its status and an icon that exists', async () => {
    electron.app.emitReady();
    await until(() => labels().includes('Server ready'), 'the tray to report the server ready');
    expect(labels()).toEqual(['Server ready', '---', 'Open Spillway', 'Pause', 'Copy endpoint', '---', 'Start at login', '---', 'Quit Spillway']);
    expect(tray().tooltip).toBe('Spillway\nServer ready');
    expect(basename(tray().image.path)).toBe(process.platform === 'darwin' ? 'trayTemplate.png' : 'tray.png');
    expect(tray().image.isEmpty()).toBe(false);
    // electron-store (loaded natively, not through vitest) got the same double: its IPC listener is here.
    expect(electron.ipcMain.listenerCount('electron-store-get-data')).toBe(1);

    tray().menu!.item('Copy endpoint').click();
    [[endpoint]] = callsTo('clipboard.writeText') as [[string]];
    expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect((await fetch(endpoint, { method: 'GET' })).status).toBeGreaterThanOrEqual(200); // a real hub answers
  });

  it('opens the window with the hardened options on the built page, once it has painted', async () => {
    const win = await shownWindow('the window to show');
    expect(win.options.show).toBe(false);
    expect(win.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      devTools: true, // an unpackaged run
    });
    const preload = String(win.options.webPreferences?.preload);
    expect(preload).toBe(join(ROOT, 'dist/electron/preload/preload.cjs'));
    expect(existsSync(preload)).toBe(true);
    expect(win.loadedFile).toBe(join(ROOT, 'dist/renderer/index.html'));
    // A file:// page gets no headers: its policy is the meta tag of the page the window loaded.
    const csp = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(readFileSync(win.loadedFile!, 'utf8'))?.[1];
    expect(csp).toContain("script-src 'self'");
    expect(cspWeaknesses(csp!)).toEqual([]);
  });

  it('the window never navigates away or opens another; only checked http(s) links reach the browser', async () => {
    const [win] = windows();
    const page = win.contents.getURL();
    const opened = () => callsTo('shell.openExternal').map(([url]) => url);
    expect(win.webContents.navigate('https://example.com/docs', { initiatorUrl: page })).toBe(false);
    expect(opened()).toEqual(['https://example.com/docs']);
    expect(win.webContents.navigate('file:///etc/passwd', { initiatorUrl: page })).toBe(false);
    expect(win.webContents.navigate('https://evil.example/', { initiatorUrl: 'https://evil.example/' })).toBe(false);
    expect(win.webContents.navigate('https://example.com/frame', { isMainFrame: false, initiatorUrl: page })).toBe(false);
    expect(win.webContents.navigate(page, { initiatorUrl: page })).toBe(true); // a reload of our page
    expect(win.webContents.openWindow({ url: 'https://example.com/new', disposition: 'foreground-tab' })).toEqual({ action: 'deny' });
    expect(win.webContents.openWindow({ url: 'javascript:alert(1)', disposition: 'foreground-tab' })).toEqual({ action: 'deny' });
    expect(win.webContents.openWindow({ url: 'https://user:pw@example.com/', disposition: 'new-window' })).toEqual({ action: 'deny' });
    expect(win.webContents.openWindow({ url: 'https://example.com/popup', disposition: 'other' })).toEqual({ action: 'deny' });
    expect(win.webContents.attachWebview('https://example.com/')).toBe(false);
    expect(opened()).toEqual(['https://example.com/docs', 'https://example.com/new']);

    const session = electron.session.defaultSession;
    expect(await session.request(win.webContents, 'notifications', page)).toBe(false);
    expect(await session.request(win.webContents, 'media', page)).toBe(false);
    expect(await session.request(win.webContents, 'clipboard-sanitized-write', page)).toBe(true);
    expect(await session.request(win.webContents, 'clipboard-sanitized-write', 'https://evil.example/')).toBe(false);
    expect(session.checkHandler?.(win.webContents, 'geolocation', page, {})).toBe(false);
  });

  it('binds IPC from the contract and answers only our page, in its main frame', async () => {
    const [win] = windows();
    const page = win.contents.getURL();
    expect([...electron.ipcMain.handlers.keys()]).toEqual([IPC_CHANNELS.call]);
    const [bridge] = win.options.webPreferences?.additionalArguments as string[];
    expect(JSON.parse(decodeURIComponent(bridge.slice(BRIDGE_ARG_PREFIX.length)))).toEqual({
      call: IPC_CHANNELS.call,
      event: IPC_CHANNELS.event,
      methods: Object.keys(api),
    });

    expect(await call(win, 'status')).toMatchObject({ ok: true, value: { paused: false, upstreams: [{ id: 'fx', status: 'ready' }] } });
    expect(await call(win, 'no.such.method')).toMatchObject({ ok: false });
    expect(await call(win, 'settings.set', { port: 'x' })).toMatchObject({ ok: false, code: 'invalid' });

    const refused = { ok: false, code: 'unauthorized' };
    expect(await callFrom(new DoubleWebContents(), { url: page, parent: null }, 'status')).toMatchObject(refused);
    expect(await callFrom(win.webContents, { url: page, parent: { url: page, parent: null } }, 'status')).toMatchObject(refused);
    expect(await callFrom(win.webContents, { url: 'https://evil.example/', parent: null }, 'status')).toMatchObject(refused);
    expect(await callFrom(win.webContents, null, 'status')).toMatchObject(refused);
  });

  it('Pause and Resume from the tray reach the hub; a pause made in the window shows in the tray', async () => {
    const [win] = windows();
    const sentBefore = win.contents.sent.length;
    tray().menu!.item('Pause').click();
    await until(() => labels().includes('Resume'), 'the tray to offer Resume');
    expect(labels()).toContain('Paused: results pass through untouched');
    expect(basename(tray().image.path)).toBe(process.platform === 'darwin' ? 'trayPausedTemplate.png' : 'tray-paused.png');
    expect(await call(win, 'status')).toMatchObject({ ok: true, value: { paused: true } });
    expect(JSON.parse(await readFile(configFile, 'utf8')).settings.paused).toBe(true);
    // The window hears about it as a pushed hub event.
    expect(win.contents.sent.slice(sentBefore).some((m) => m.channel === IPC_CHANNELS.event)).toBe(true);

    tray().menu!.item('Resume').click();
    await until(() => labels().includes('Pause'), 'the tray to offer Pause again');
    expect(await call(win, 'status')).toMatchObject({ ok: true, value: { paused: false } });

    expect(await call(win, 'settings.set', { paused: true })).toMatchObject({ ok: true });
    await until(() => labels().includes('Resume'), 'the tray to follow a pause made in the window');
    expect(await call(win, 'settings.set', { paused: false })).toMatchObject({ ok: true });
    await until(() => labels().includes('Pause'), 'the tray to follow a resume made in the window');
  });

  it('closing the window keeps the app and the hub in the tray; Open builds the window again where it was', async () => {
    const [win] = windows();
    const page = win.contents.getURL();
    win.setBounds({ x: 40, y: 30, width: 900, height: 650 });
    win.close();
    expect(win.isDestroyed()).toBe(true);
    expect(windows()).toEqual([]);
    expect(callsTo('app.quit')).toEqual([]);
    expect(electron.app.exitCode).toBeUndefined();
    expect(tray().isDestroyed()).toBe(false);
    expect((await fetch(endpoint)).status).toBeGreaterThanOrEqual(200);
    const state = JSON.parse(await readFile(join(dataDir, 'app-state.json'), 'utf8'));
    expect(state.window).toEqual({ bounds: { x: 40, y: 30, width: 900, height: 650 }, maximized: false });
    // The closed window's page is no longer trusted.
    expect(await callFrom(win.contents, { url: page, parent: null }, 'status')).toMatchObject({ ok: false, code: 'unauthorized' });

    tray().menu!.item('Open Spillway').click();
    const again = await shownWindow('a new window');
    expect(again).not.toBe(win);
    expect(again.getNormalBounds()).toEqual({ x: 40, y: 30, width: 900, height: 650 });
    expect(await call(again, 'status')).toMatchObject({ ok: true });
  });

  it('a second instance brings the window back: restored and focused, or built again', async () => {
    const [win] = windows();
    win.minimize();
    expect(win.isFocused()).toBe(false);
    electron.app.emit('second-instance', new DoubleEvent(), ['spillway'], ROOT, {});
    await until(() => win.isFocused() && !win.isMinimized() && win.visible, 'the window restored and focused');

    win.close();
    electron.app.emit('second-instance', new DoubleEvent(), ['spillway'], ROOT, {});
    const built = await shownWindow('a window for the second instance');
    expect(built).not.toBe(win);
  });

  it('follows the system theme with the window background', () => {
    const [win] = windows();
    electron.nativeTheme.shouldUseDarkColors = true;
    electron.nativeTheme.emit('updated');
    expect(win.backgroundColor).toBe(WINDOW_BACKGROUND.dark);
    electron.nativeTheme.shouldUseDarkColors = false;
    electron.nativeTheme.emit('updated');
    expect(win.backgroundColor).toBe(WINDOW_BACKGROUND.light);
  });

  it.runIf(process.platform === 'linux')('Start at login from the tray writes and removes the autostart entry', async () => {
    const entry = join(process.env.XDG_CONFIG_HOME!, 'autostart', 'spillway.desktop');
    // A checkbox flips as it is clicked; the menu is rebuilt once the action has been carried out.
    const toggle = async (on: boolean) => {
      const menu = tray().menu;
      menu!.item('Start at login').click();
      await until(() => tray().menu !== menu && tray().menu?.item('Start at login').checked === on, `Start at login ${on}`);
    };
    await toggle(true);
    expect(readFileSync(entry, 'utf8')).toContain(`Exec=${process.execPath} ${ROOT} --hidden`);
    expect(JSON.parse(await readFile(join(dataDir, 'app-state.json'), 'utf8')).startAtLogin).toBe(true);
    await toggle(false);
    expect(existsSync(entry)).toBe(false);
  });

  it('Quit from the tray stops the hub and leaves no child process', async () => {
    const [upstream] = pidsMentioning(MARKER);
    expect(upstream).toBeGreaterThan(0);
    expect(childrenOfThisProcess()).toContain(upstream);

    tray().menu!.item('Quit Spillway').click();
    await until(() => electron.app.exitCode !== undefined, 'the app to quit');
    expect(electron.app.exitCode).toBe(0);
    // The quit waited for the hub: by now the upstream is gone, not merely asked to go.
    expect(alive(upstream)).toBe(false);
    expect(pidsMentioning(MARKER)).toEqual([]);
    expect(childrenOfThisProcess()).toEqual([]);
    expect(windows()).toEqual([]);
    expect(tray().isDestroyed()).toBe(true);
    await expect(fetch(endpoint)).rejects.toThrow();
    expect(JSON.parse(await readFile(join(dataDir, 'hub.json'), 'utf8'))).toMatchObject({ state: 'stopped' });
  });
});

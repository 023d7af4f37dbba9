/**
 * Sign-in from the desktop app (issue 15): the built main process runs in Node against the electron
 * double, with the real hub and, as its HTTP upstream, the OAuth-protected fixture server. The window's
 * `upstreams.signIn` call makes the main process open the hub's authorization URL in the system browser
 * (shell.openExternal) — that URL, for that call, and only when it is http(s); a call from anything but
 * our page's main frame is refused and opens nothing. Following the opened page as a browser would signs
 * the server in without a restart. The opener's refusal of a non-web URL is checked on the double's IPC
 * with a hub answer no real server would give.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApiResult } from '../../shared/api.js';
import { bindControlIpc, IPC_CHANNELS, type InvokeEventLike } from '../../electron/main/ipc-binding.js';
import {
  callsTo,
  DoubleIpcMain,
  DoubleWebContents,
  until,
  type DoubleBrowserWindow,
  type DoubleFrame,
  type ElectronDouble,
} from '../support/electron-double.js';
import { remoteConfig, startOAuthFixture, type OAuthFixture } from '../support/oauth-flow.js';
import { shellFolders, type ShellFolders } from '../support/shell-folders.js';
import { loadShell, quitApp } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

let folders: ShellFolders | undefined;
let electron: ElectronDouble;
let oauth: OAuthFixture;

const opened = () => callsTo('shell.openExternal').map(([url]) => String(url));
const pageFrame = (win: DoubleBrowserWindow): DoubleFrame => ({ url: win.contents.getURL(), parent: null });
const callFrom = (sender: DoubleWebContents, frame: DoubleFrame | null, method: string, req: unknown) =>
  electron.ipcMain.invokeFrom(sender, frame, IPC_CHANNELS.call, { method, req }) as Promise<ApiResult<Record<string, unknown>>>;
const listed = async (win: DoubleBrowserWindow) => {
  const answer = (await callFrom(win.webContents, pageFrame(win), 'upstreams.list', {})) as ApiResult<
    Array<{ id: string; status: string; auth?: { state: string } }>
  >;
  return answer.ok ? answer.value.find((u) => u.id === 'remote') : undefined;
};

beforeAll(async () => {
  oauth = await startOAuthFixture('--token-lifetime', '60');
  folders = await shellFolders('sign-in', remoteConfig(oauth.url, { port: 0 }));
  electron = await loadShell(folders);
  electron.app.emitReady();
});

afterAll(async () => {
  await quitApp(electron);
  await oauth?.stop();
  await folders?.end(electron);
});

describe('signing in from the desktop app', () => {
  it('opens the hub’s authorization URL in the system browser, for our page only, and the server signs in', async () => {
    const win = await until(() => electron.BrowserWindow.getAllWindows().find((w) => w.visible), 'the window');
    await vi.waitFor(async () => expect((await listed(win))?.status).toBe('needs-sign-in'), { timeout: 20_000, interval: 100 });

    // Another webContents, a subframe, a page that is not ours: refused, nothing opened.
    const stranger = new DoubleWebContents();
    expect(await callFrom(stranger, { url: win.contents.getURL(), parent: null }, 'upstreams.signIn', { id: 'remote' })).toMatchObject({
      ok: false,
      code: 'unauthorized',
    });
    expect(
      await callFrom(win.webContents, { url: win.contents.getURL(), parent: pageFrame(win) }, 'upstreams.signIn', { id: 'remote' }),
    ).toMatchObject({
      ok: false,
      code: 'unauthorized',
    });
    expect(await callFrom(win.webContents, { url: 'https://evil.example/', parent: null }, 'upstreams.signIn', { id: 'remote' })).toMatchObject({
      ok: false,
      code: 'unauthorized',
    });
    expect(opened()).toEqual([]);

    const answer = await callFrom(win.webContents, pageFrame(win), 'upstreams.signIn', { id: 'remote' });
    expect(answer).toMatchObject({ ok: true, value: { openedInBrowser: true } });
    const authorizationUrl = String(answer.ok && answer.value.authorizationUrl);
    expect(opened()).toEqual([authorizationUrl]);
    expect(new URL(authorizationUrl).origin).toBe(new URL(oauth.url).origin);

    // The browser: the fixture approves at once and redirects to the hub's callback.
    const authorize = await fetch(authorizationUrl, { redirect: 'manual' });
    const callback = authorize.headers.get('location');
    expect(callback).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/callback\?/);
    const page = await fetch(callback!);
    expect(page.status).toBe(200);
    await page.body?.cancel();
    await vi.waitFor(async () => expect(await listed(win)).toMatchObject({ status: 'ready', auth: { state: 'signed-in' } }), {
      timeout: 20_000,
      interval: 100,
    });
    expect(opened()).toHaveLength(1);
  });
});

describe('the sign-in opener on the IPC channel', () => {
  const page = 'file:///app/dist/renderer/index.html';
  function bound(authorizationUrl: string) {
    const ipcMain = new DoubleIpcMain();
    const contents = new DoubleWebContents();
    const openedHere: string[] = [];
    const unbind = bindControlIpc({
      // The double hands handlers Electron's event object; the binding reads it through its structural view.
      ipcMain: {
        handle: (channel, listener) => ipcMain.handle(channel, (event, ...args) => listener(event as InvokeEventLike, ...args)),
        removeHandler: (channel) => ipcMain.removeHandler(channel),
      },
      dispatch: async (method): Promise<ApiResult<unknown>> =>
        method === 'upstreams.signIn'
          ? { ok: true, value: { authorizationUrl } }
          : { ok: true, value: { authorizationUrl: 'https://not.a.sign-in/' } },
      trustedSenderId: () => contents.id,
      location: { kind: 'file', url: page },
      subscribe: () => () => undefined,
      eventTarget: () => undefined,
      openExternal: async (url) => void openedHere.push(url),
    });
    const invoke = (method: string) =>
      ipcMain.invokeFrom(contents, { url: page, parent: null }, IPC_CHANNELS.call, { method, req: { id: 'remote' } });
    return { invoke, openedHere, unbind };
  }

  it.each(['javascript:alert(1)', 'file:///etc/passwd', 'spillway://x', 'https://user:pw@auth.example/authorize', 'not a url'])(
    'refuses %s, unopened',
    async (url) => {
      const { invoke, openedHere, unbind } = bound(url);
      expect(await invoke('upstreams.signIn')).toMatchObject({ ok: false, code: 'invalid', message: expect.stringContaining('not a web address') });
      expect(openedHere).toEqual([]);
      unbind();
    },
  );

  it('opens an https authorization URL, and nothing for any other method’s answer', async () => {
    const { invoke, openedHere, unbind } = bound('https://auth.example/authorize?state=s1');
    expect(await invoke('upstreams.restart')).toEqual({ ok: true, value: { authorizationUrl: 'https://not.a.sign-in/' } });
    expect(openedHere).toEqual([]);
    expect(await invoke('upstreams.signIn')).toEqual({
      ok: true,
      value: { authorizationUrl: 'https://auth.example/authorize?state=s1', openedInBrowser: true },
    });
    expect(openedHere).toEqual(['https://auth.example/authorize?state=s1']);
    unbind();
  });
});

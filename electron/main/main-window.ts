/**
 * The one app window (Electron glue). Closing it destroys it — the app stays in the tray and a long-running
 * tray app does not keep a renderer alive for nothing; "Open" builds it again. On macOS the dock icon is
 * shown only while the window exists. Decisions live in window-options.ts, window-bounds.ts and
 * navigation-guard.ts; this file only wires them to Electron.
 */
import { app, BrowserWindow, nativeTheme, screen, session, shell, type RenderProcessGoneDetails, type WebContents } from 'electron';
import type { AppStateStore } from './app-state.js';
import { decideNavigation, decideWindowOpen, isRendererUrl, type RendererLocation } from './navigation-guard.js';
import type { ShellFiles } from './shell-paths.js';
import { restoreBounds } from './window-bounds.js';
import { mainWindowOptions, WINDOW_BACKGROUND } from './window-options.js';

export interface MainWindowDeps {
  files: ShellFiles;
  location: RendererLocation;
  appState: AppStateStore;
  bridgeArgument: string;
  platform: NodeJS.Platform;
  devTools: boolean;
  iconPath?: string;
  log(message: string): void;
}

/** A page that crashes again this soon after it was reloaded is not reloaded again (no crash loop). */
export const CRASH_RELOAD_PAUSE_MS = 60_000;

export class MainWindow {
  #win: BrowserWindow | undefined;

  constructor(private readonly deps: MainWindowDeps) {
    nativeTheme.on('updated', () => {
      this.#win?.setBackgroundColor(nativeTheme.shouldUseDarkColors ? WINDOW_BACKGROUND.dark : WINDOW_BACKGROUND.light);
    });
  }

  /** The window's webContents id: the only sender the IPC binding trusts. */
  get webContentsId(): number | undefined {
    return this.#win && !this.#win.isDestroyed() ? this.#win.webContents.id : undefined;
  }

  get webContents(): WebContents | undefined {
    return this.#win && !this.#win.isDestroyed() ? this.#win.webContents : undefined;
  }

  /** Opens the window, or brings the existing one to the front. */
  show(): void {
    if (this.deps.platform === 'darwin') void app.dock?.show();
    const win = this.#win && !this.#win.isDestroyed() ? this.#win : this.#create();
    if (win.isMinimized()) win.restore();
    // Electron emits 'ready-to-show' only for a window not shown yet: a shown one that reloads gets none.
    if (!win.isVisible() && win.webContents.isLoading()) {
      win.once('ready-to-show', () => {
        win.show();
        win.focus();
      });
    } else {
      win.show();
      win.focus();
    }
  }

  #create(): BrowserWindow {
    const state = this.deps.appState.read();
    const bounds = restoreBounds(
      state.window.bounds,
      [screen.getPrimaryDisplay(), ...screen.getAllDisplays()].map((d) => d.workArea),
    );
    const win = new BrowserWindow(
      mainWindowOptions({
        preloadPath: this.deps.files.preload,
        bridgeArgument: this.deps.bridgeArgument,
        dark: nativeTheme.shouldUseDarkColors,
        bounds,
        iconPath: this.deps.iconPath,
        devTools: this.deps.devTools,
      }),
    );
    if (state.window.maximized) win.maximize();
    win.on('close', () => {
      try {
        this.deps.appState.setWindow({ bounds: win.getNormalBounds(), maximized: win.isMaximized() });
      } catch (err) {
        this.deps.log(`Could not save the window position: ${(err as Error).message}`);
      }
    });
    win.on('closed', () => {
      this.#win = undefined;
      if (this.deps.platform === 'darwin') app.dock?.hide();
    });
    let crashedAt: number | undefined;
    win.webContents.on('render-process-gone', (_event, details) => {
      crashedAt = this.#rendererGone(win, details, crashedAt);
    });
    this.#load(win);
    this.#win = win;
    return win;
  }

  #load(win: BrowserWindow): void {
    const { location } = this.deps;
    const load = location.kind === 'dev' ? win.loadURL(location.url) : win.loadFile(this.deps.files.rendererIndex);
    load.catch((err: Error) => this.deps.log(`The window could not load the UI (${err.message}). Was \`npm run build\` run?`));
  }

  /**
   * The page's process ended without being asked to (a crash, out of memory, killed): the window would
   * stay blank, and Open would only bring the blank window to the front. The page is loaded again; if it
   * crashes again within CRASH_RELOAD_PAUSE_MS the window is closed instead, and Open builds a new one.
   * Returns when this crash happened, for the next one.
   */
  #rendererGone(win: BrowserWindow, details: RenderProcessGoneDetails, lastCrashAt: number | undefined): number | undefined {
    if (details.reason === 'clean-exit' || win.isDestroyed()) return lastCrashAt;
    const now = Date.now();
    const what = `The window's page stopped (${details.reason}, exit code ${details.exitCode})`;
    if (lastCrashAt !== undefined && now - lastCrashAt < CRASH_RELOAD_PAUSE_MS) {
      this.deps.log(`${what} again soon after a reload; closed the window. Open Spillway from the tray to try again.`);
      win.destroy();
      return now;
    }
    this.deps.log(`${what}; loading it again.`);
    this.#load(win);
    return now;
  }
}

/**
 * Applied to every webContents the app creates: no navigation away from the renderer page, no new
 * windows, no <webview>; http(s) links the user clicks go to the default browser.
 */
export function hardenWebContents(contents: WebContents, location: RendererLocation, log: (m: string) => void): void {
  const openExternal = (url: string) => {
    shell.openExternal(url).catch((err: Error) => log(`Could not open ${url}: ${err.message}`));
  };
  contents.on('will-navigate', (event) => {
    const decision = decideNavigation({ url: event.url, isMainFrame: event.isMainFrame, initiatorUrl: event.initiator?.url ?? null }, location);
    if (decision.allow) return;
    event.preventDefault();
    if (decision.openExternal) openExternal(decision.openExternal);
    else log(`Blocked navigation to ${event.url}`);
  });
  contents.on('will-frame-navigate', (event) => {
    if (event.isMainFrame) return; // handled by will-navigate
    event.preventDefault();
    log(`Blocked a frame navigating to ${event.url}`);
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler((details) => {
    const decision = decideWindowOpen({ url: details.url, disposition: details.disposition, openerUrl: contents.getURL() }, location);
    if (decision.openExternal) openExternal(decision.openExternal);
    else log(`Blocked a new window for ${details.url}`);
    return { action: 'deny' };
  });
}

/** Denies every permission (camera, notifications, ...) except clipboard writes from our own page. */
export function restrictPermissions(location: RendererLocation): void {
  const allowed = (permission: string, url: string | undefined) => permission === 'clipboard-sanitized-write' && isRendererUrl(location, url);
  session.defaultSession.setPermissionRequestHandler((contents, permission, callback, details) => {
    callback(allowed(permission, details.requestingUrl ?? contents?.getURL()));
  });
  session.defaultSession.setPermissionCheckHandler((contents, permission, requestingOrigin) => {
    return allowed(permission, contents?.getURL() ?? requestingOrigin);
  });
}

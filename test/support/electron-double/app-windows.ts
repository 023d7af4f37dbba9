/** The electron double's app, BrowserWindow and webContents (see ../electron-double.ts). */
import { EventEmitter } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { changed, current, DoubleEvent, record, requireReady, type Rectangle } from './world.js';

class DoubleDock {
  visible = true;
  show(): Promise<void> {
    this.visible = true;
    changed();
    return Promise.resolve();
  }
  hide(): void {
    this.visible = false;
    changed();
  }
}

export class DoubleApp extends EventEmitter {
  readonly isPackaged = false;
  #name = 'Electron';
  #userData: string | undefined;
  #resolveReady: () => void = () => {};
  readonly #ready = new Promise<void>((resolve) => (this.#resolveReady = resolve));
  #dock = new DoubleDock();
  #quitting = false;
  /** Test: the exit code once the app ended (a quit that went through, or `exit`). */
  exitCode: number | undefined;
  lockRequested = false;

  get dock(): DoubleDock | undefined {
    return process.platform === 'darwin' ? this.#dock : undefined;
  }
  setName(name: string): void {
    this.#name = name;
  }
  getName(): string {
    return this.#name;
  }
  getVersion(): string {
    return '0.0.0-double';
  }
  getAppPath(): string {
    return current().setup.appPath;
  }
  getPath(name: string): string {
    const { paths } = current().setup;
    if (name === 'userData') return this.#userData ?? `${paths.appData}/${this.#name}`;
    if (name === 'home' || name === 'appData' || name === 'temp') return paths[name];
    throw new Error(`Failed to get '${name}' path`);
  }
  setPath(name: string, path: string): void {
    // Documented: "If the path specifies a directory that does not exist, an Error is thrown."
    if (!existsSync(path) || !statSync(path).isDirectory()) throw new Error(`Failed to set path '${name}': ${path} does not exist`);
    if (name === 'userData') this.#userData = path;
  }
  requestSingleInstanceLock(): boolean {
    this.lockRequested = true;
    return current().setup.primaryInstance ?? true;
  }
  setAppUserModelId(id: string): void {
    record('app.setAppUserModelId', id);
  }
  setLoginItemSettings(settings: unknown): void {
    record('app.setLoginItemSettings', settings);
  }
  getLoginItemSettings(): { openAtLogin: boolean; wasOpenedAtLogin: boolean } {
    return { openAtLogin: false, wasOpenedAtLogin: false };
  }
  isReady(): boolean {
    return current().ready;
  }
  whenReady(): Promise<void> {
    return this.#ready;
  }
  /** Test: Electron finished starting ('ready'). */
  emitReady(): void {
    current().ready = true;
    this.emit('ready', new DoubleEvent(), {});
    this.#resolveReady();
    changed();
  }
  quit(): void {
    record('app.quit');
    if (this.exitCode !== undefined) return;
    const beforeQuit = new DoubleEvent();
    this.emit('before-quit', beforeQuit);
    if (beforeQuit.defaultPrevented) return;
    this.#quitting = true;
    for (const win of DoubleBrowserWindow.getAllWindows()) win.close();
    if (DoubleBrowserWindow.getAllWindows().length > 0) {
      this.#quitting = false; // a window refused to close: the quit is cancelled
      return;
    }
    const willQuit = new DoubleEvent();
    this.emit('will-quit', willQuit);
    if (willQuit.defaultPrevented) {
      this.#quitting = false;
      return;
    }
    this.emit('quit', new DoubleEvent(), 0);
    this.#end(0);
  }
  exit(code = 0): void {
    record('app.exit', code);
    for (const win of DoubleBrowserWindow.getAllWindows()) win.destroy();
    this.#end(code);
  }
  #end(code: number): void {
    this.exitCode = code;
    changed();
  }
  /** Called by a window that closed: the last one quits the app unless someone listens. */
  lastWindowClosed(): void {
    if (this.#quitting || this.exitCode !== undefined) return;
    if (this.listenerCount('window-all-closed') > 0) this.emit('window-all-closed');
    else this.quit();
  }
}

/** The part of WebFrameMain the shell reads (IPC senderFrame, a navigation's initiator). */
export interface DoubleFrame {
  url: string;
  parent: DoubleFrame | null;
}

export interface WindowOpenDetails {
  url: string;
  frameName?: string;
  features?: string;
  disposition: 'default' | 'foreground-tab' | 'background-tab' | 'new-window' | 'other';
}

let nextWebContentsId = 1;

export class DoubleWebContents extends EventEmitter {
  readonly id = nextWebContentsId++;
  #url = '';
  #loading = false;
  #destroyed = false;
  #crashed = false;
  #openHandler: ((details: WindowOpenDetails) => { action: 'allow' | 'deny' }) | undefined;
  /** Test: messages sent to this page. */
  readonly sent: { channel: string; args: unknown[] }[] = [];
  /** Test: how many loads were started in it (the first, and any reload). */
  loads = 0;

  getURL(): string {
    return this.#url;
  }
  isLoading(): boolean {
    return this.#loading;
  }
  isDestroyed(): boolean {
    return this.#destroyed;
  }
  isCrashed(): boolean {
    return this.#crashed;
  }
  send(channel: string, ...args: unknown[]): void {
    if (this.#destroyed) throw new Error('Object has been destroyed');
    this.sent.push({ channel, args: structuredClone(args) }); // IPC serializes with the structured clone
    changed();
  }
  setWindowOpenHandler(handler: (details: WindowOpenDetails) => { action: 'allow' | 'deny' }): void {
    this.#openHandler = handler;
  }
  /** Starts a load; resolves on 'did-finish-load', rejects as Electron does for a missing file. */
  load(url: string, onFinish: () => void): Promise<void> {
    this.#url = url;
    this.#loading = true;
    this.#crashed = false; // a load into a crashed page starts a new renderer process
    this.loads++;
    return new Promise((resolve, reject) => {
      setImmediate(() => {
        this.#loading = false;
        if (url.startsWith('file:') && !existsSync(new URL(url))) {
          reject(new Error(`ERR_FILE_NOT_FOUND (-6) loading '${url}'`));
          return;
        }
        this.emit('did-finish-load', new DoubleEvent());
        onFinish();
        resolve();
        changed();
      });
    });
  }
  /** Test: the page's renderer process ends (a crash, out of memory, ...), as Electron reports it. */
  renderProcessGone(reason: string, exitCode = 1): void {
    this.#crashed = reason !== 'clean-exit';
    this.emit('render-process-gone', new DoubleEvent(), { reason, exitCode });
    changed();
  }
  destroyed(): void {
    this.#destroyed = true;
    this.emit('destroyed', new DoubleEvent());
  }
  /** Test: the page (or a frame) tries to navigate; true when the shell let it. */
  navigate(url: string, options: { isMainFrame?: boolean; initiatorUrl?: string | null } = {}): boolean {
    const isMainFrame = options.isMainFrame ?? true;
    const initiator: DoubleFrame | null = options.initiatorUrl ? { url: options.initiatorUrl, parent: null } : null;
    const details = () => Object.assign(new DoubleEvent(), { url, isMainFrame, isSameDocument: false, frame: null, initiator });
    // Electron asks 'will-frame-navigate' for every frame, then 'will-navigate' for the main frame.
    const frameEvent = details();
    this.emit('will-frame-navigate', frameEvent);
    if (frameEvent.defaultPrevented) return false;
    if (!isMainFrame) return true;
    const event = details();
    this.emit('will-navigate', event, url, false, true, 1, 1);
    if (event.defaultPrevented) return false;
    this.#url = url;
    return true;
  }
  /** Test: the page asks for a new window (window.open, target=_blank); Electron's default allows it. */
  openWindow(details: WindowOpenDetails): { action: 'allow' | 'deny' } {
    return this.#openHandler?.({ frameName: '', features: '', ...details }) ?? { action: 'allow' };
  }
  /** Test: the page asks to attach a <webview>; true when the shell let it. */
  attachWebview(src: string): boolean {
    const event = new DoubleEvent();
    this.emit('will-attach-webview', event, { preload: '', src }, { src });
    return !event.defaultPrevented;
  }
}

export class DoubleBrowserWindow extends EventEmitter {
  static readonly #all = new Set<DoubleBrowserWindow>();
  static getAllWindows(): DoubleBrowserWindow[] {
    return [...DoubleBrowserWindow.#all];
  }
  readonly #contents = new DoubleWebContents();
  #destroyed = false;
  #bounds: Rectangle;
  /** Test: the constructor options, as given. */
  readonly options: Record<string, unknown> & { webPreferences?: Record<string, unknown> };
  visible: boolean;
  focused = false;
  minimized = false;
  maximized = false;
  backgroundColor: string | undefined;
  loadedFile: string | undefined;

  constructor(options: Record<string, unknown> = {}) {
    super();
    requireReady('BrowserWindow');
    this.options = structuredClone(options);
    this.visible = options.show !== false;
    this.backgroundColor = typeof options.backgroundColor === 'string' ? options.backgroundColor : undefined;
    const n = (key: string, fallback: number) => (typeof options[key] === 'number' ? Number(options[key]) : fallback);
    this.#bounds = { x: n('x', 0), y: n('y', 0), width: n('width', 800), height: n('height', 600) };
    DoubleBrowserWindow.#all.add(this);
    current().changes.emit('window', this);
    electronApp.emit('web-contents-created', new DoubleEvent(), this.#contents);
    electronApp.emit('browser-window-created', new DoubleEvent(), this);
    changed();
  }

  get webContents(): DoubleWebContents {
    if (this.#destroyed) throw new TypeError('Object has been destroyed');
    return this.#contents;
  }
  /** Test: the webContents even after the window is gone. */
  get contents(): DoubleWebContents {
    return this.#contents;
  }
  loadFile(path: string): Promise<void> {
    this.loadedFile = path;
    return this.#contents.load(pathToFileURL(path).href, () => this.#painted());
  }
  loadURL(url: string): Promise<void> {
    return this.#contents.load(url, () => this.#painted());
  }
  /** Electron emits 'ready-to-show' on a first paint only while the window is not shown. */
  #painted(): void {
    if (!this.visible && !this.#destroyed) this.emit('ready-to-show', new DoubleEvent());
  }
  isDestroyed(): boolean {
    return this.#destroyed;
  }
  show(): void {
    this.visible = true;
    this.minimized = false;
    changed();
  }
  hide(): void {
    this.visible = false;
    changed();
  }
  isVisible(): boolean {
    return this.visible;
  }
  focus(): void {
    this.focused = true;
    changed();
  }
  isFocused(): boolean {
    return this.focused;
  }
  minimize(): void {
    this.minimized = true;
    this.focused = false;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  restore(): void {
    this.minimized = false;
  }
  maximize(): void {
    this.maximized = true;
  }
  isMaximized(): boolean {
    return this.maximized;
  }
  getNormalBounds(): Rectangle {
    return { ...this.#bounds };
  }
  /** Test: the user moved or resized the window. */
  setBounds(bounds: Partial<Rectangle>): void {
    this.#bounds = { ...this.#bounds, ...bounds };
  }
  setBackgroundColor(color: string): void {
    this.backgroundColor = color;
  }
  /** As the user's close button: 'close' may be prevented; otherwise the window is destroyed. */
  close(): void {
    if (this.#destroyed) return;
    const event = new DoubleEvent();
    this.emit('close', event);
    if (!event.defaultPrevented) this.destroy();
  }
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    DoubleBrowserWindow.#all.delete(this);
    this.#contents.destroyed();
    this.emit('closed');
    changed();
    if (DoubleBrowserWindow.#all.size === 0) electronApp.lastWindowClosed();
  }
}

/** The one app of this process. */
export const electronApp = new DoubleApp();

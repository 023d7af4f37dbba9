/** The electron double's tray, menus, images, ipcMain and session (see ../electron-double.ts). */
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { changed, DoubleEvent, requireReady } from './world.js';
import type { DoubleFrame, DoubleWebContents } from './app-windows.js';

export class DoubleNativeImage {
  constructor(readonly path: string) {}
  /** Electron returns an empty image, without an error, for a file it cannot read. */
  isEmpty(): boolean {
    return !existsSync(this.path);
  }
}

export interface MenuItemOptions {
  type?: 'normal' | 'separator' | 'submenu' | 'checkbox' | 'radio';
  label?: string;
  enabled?: boolean;
  checked?: boolean;
  click?: (menuItem: DoubleMenuItem, window: unknown, event: unknown) => void;
}

export class DoubleMenuItem {
  readonly type: NonNullable<MenuItemOptions['type']>;
  readonly label: string;
  readonly enabled: boolean;
  checked: boolean;
  readonly #click: MenuItemOptions['click'];
  constructor(options: MenuItemOptions) {
    this.type = options.type ?? 'normal';
    this.label = options.label ?? '';
    this.enabled = options.enabled ?? true;
    this.checked = options.checked ?? false;
    this.#click = options.click;
  }
  /** Test: the user picks this item (a checkbox flips before its click runs, as in Electron). */
  click(): void {
    if (!this.enabled || this.type === 'separator') throw new Error(`"${this.label}" cannot be clicked`);
    if (this.type === 'checkbox') this.checked = !this.checked;
    this.#click?.(this, undefined, { shiftKey: false, ctrlKey: false, altKey: false, metaKey: false });
  }
}

export class DoubleMenu {
  constructor(readonly items: DoubleMenuItem[]) {}
  static buildFromTemplate(template: MenuItemOptions[]): DoubleMenu {
    return new DoubleMenu(template.map((t) => new DoubleMenuItem(t)));
  }
  /** Test: the labels as shown, separators as '---'. */
  labels(): string[] {
    return this.items.map((i) => (i.type === 'separator' ? '---' : i.label));
  }
  /** Test: the item with this label. */
  item(label: string): DoubleMenuItem {
    const found = this.items.find((i) => i.label === label);
    if (!found) throw new Error(`No menu item "${label}" in ${JSON.stringify(this.labels())}`);
    return found;
  }
}

export class DoubleTray extends EventEmitter {
  static readonly all: DoubleTray[] = [];
  image: DoubleNativeImage;
  menu: DoubleMenu | null = null;
  tooltip = '';
  #destroyed = false;
  constructor(image: DoubleNativeImage) {
    super();
    requireReady('Tray');
    this.image = image;
    DoubleTray.all.push(this);
    changed();
  }
  setContextMenu(menu: DoubleMenu | null): void {
    this.menu = menu;
    changed();
  }
  setToolTip(tooltip: string): void {
    this.tooltip = tooltip;
    changed();
  }
  setImage(image: DoubleNativeImage): void {
    this.image = image;
    changed();
  }
  isDestroyed(): boolean {
    return this.#destroyed;
  }
  destroy(): void {
    this.#destroyed = true;
    changed();
  }
  /** Test: a click on the icon. */
  click(): void {
    this.emit('click', new DoubleEvent(), { x: 0, y: 0, width: 16, height: 16 }, { x: 8, y: 8 });
  }
}

type InvokeHandler = (event: unknown, ...args: unknown[]) => unknown;

export class DoubleIpcMain extends EventEmitter {
  readonly handlers = new Map<string, InvokeHandler>();
  handle(channel: string, handler: InvokeHandler): void {
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, handler);
    changed();
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
  /** Test: `ipcRenderer.invoke` from a page: the sender, its frame, and the structured clone both ways. */
  async invokeFrom(sender: DoubleWebContents, frame: DoubleFrame | null, channel: string, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`Error invoking remote method '${channel}': Error: No handler registered for '${channel}'`);
    const event = Object.assign(new DoubleEvent(), { sender, senderFrame: frame, frameId: 1, processId: 1, type: 'frame' });
    try {
      return structuredClone(await handler(event, ...structuredClone(args)));
    } catch (err) {
      throw new Error(`Error invoking remote method '${channel}': ${String(err)}`, { cause: err });
    }
  }
}

type PermissionRequestHandler = (contents: unknown, permission: string, callback: (granted: boolean) => void, details: object) => void;
type PermissionCheckHandler = (contents: unknown, permission: string, requestingOrigin: string, details: object) => boolean;

export class DoubleSession {
  requestHandler: PermissionRequestHandler | null = null;
  checkHandler: PermissionCheckHandler | null = null;
  setPermissionRequestHandler(handler: PermissionRequestHandler | null): void {
    this.requestHandler = handler;
  }
  setPermissionCheckHandler(handler: PermissionCheckHandler | null): void {
    this.checkHandler = handler;
  }
  /** Test: a page asks for a permission; resolves with what the shell granted (Electron's default: yes). */
  request(contents: DoubleWebContents, permission: string, requestingUrl: string): Promise<boolean> {
    if (!this.requestHandler) return Promise.resolve(true);
    const handler = this.requestHandler;
    return new Promise((resolve) => handler(contents, permission, resolve, { requestingUrl, isMainFrame: true }));
  }
}

/**
 * The tray icon and its menu (Electron glue). The menu, tooltip and icon all come from tray-menu.ts;
 * this file maps them to Electron and refreshes them when the hub's state changes.
 */
import { join } from 'node:path';
import { dialog, Menu, nativeImage, Tray } from 'electron';
import {
  runTrayAction,
  toMenuTemplate,
  trayIconFile,
  trayIconState,
  trayMenuModel,
  trayTooltip,
  type TrayAction,
  type TrayEffects,
  type TrayIconState,
  type TrayState,
} from './tray-menu.js';

export interface SystemTrayDeps {
  assetsDir: string;
  platform: NodeJS.Platform;
  state(): TrayState;
  effects: TrayEffects;
  log(message: string): void;
}

/** What a refused tray action says first (the box's detail is the refusal itself, with the next step). */
function refusedMessage(action: TrayAction, state: TrayState): string {
  if (action === 'toggle-pause') return state.status?.paused ? 'Spillway could not resume.' : 'Spillway could not pause.';
  return 'Spillway could not do that.';
}

export class SystemTray {
  readonly #tray: Tray;
  #icon: TrayIconState | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly deps: SystemTrayDeps) {
    const icon = trayIconState(deps.state());
    this.#tray = new Tray(this.#image(icon));
    this.#icon = icon;
    // Windows and Linux open the window on a click; macOS shows the menu (its convention).
    if (deps.platform !== 'darwin') this.#tray.on('click', () => deps.effects.openWindow());
    this.refresh();
  }

  #image(state: TrayIconState) {
    return nativeImage.createFromPath(join(this.deps.assetsDir, trayIconFile(this.deps.platform, state)));
  }

  /** Rebuilds the menu now. */
  refresh(): void {
    if (this.#tray.isDestroyed()) return;
    const state = this.deps.state();
    const template = toMenuTemplate(trayMenuModel(state), (action) => {
      const now = this.deps.state();
      runTrayAction(action, now, this.deps.effects)
        .then((result) => {
          if (result && !result.ok) {
            this.deps.log(`Tray: ${action} failed: ${result.message}`);
            // A refusal (config.json edited by hand, a full disk) must be seen: the menu alone would just not change.
            void dialog.showMessageBox({ type: 'warning', title: 'Spillway', message: refusedMessage(action, now), detail: result.message });
          }
          this.refresh();
        })
        .catch((err: Error) => {
          // An effect that throws has told the user itself (Start at login shows its own box): logged only.
          this.deps.log(`Tray: ${action} failed: ${err.message}`);
          // Electron has flipped a checkbox already: the rebuilt menu shows what is true instead.
          this.refresh();
        });
    });
    this.#tray.setContextMenu(Menu.buildFromTemplate(template));
    this.#tray.setToolTip(trayTooltip(state));
    const icon = trayIconState(state);
    if (icon !== this.#icon) {
      this.#tray.setImage(this.#image(icon));
      this.#icon = icon;
    }
  }

  /** Coalesces bursts of hub events (a server flapping, a catalog rebuild) into one refresh. */
  scheduleRefresh(delayMs = 150): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.refresh();
    }, delayMs);
  }

  destroy(): void {
    if (this.#timer) clearTimeout(this.#timer);
    if (!this.#tray.isDestroyed()) this.#tray.destroy();
  }
}

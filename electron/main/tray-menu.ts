/**
 * The tray menu as plain data, computed from the hub's status, and what each entry does. Pure (no
 * 'electron' import): tray.ts maps the entries to `Menu.buildFromTemplate` and supplies the effects.
 */
import type { ApiResult, Status, UpstreamInfo } from '../../shared/api.js';

export type TrayAction = 'open' | 'toggle-pause' | 'copy-endpoint' | 'toggle-start-at-login' | 'quit';

export type TrayMenuEntry =
  | { type: 'status'; label: string }
  | { type: 'action'; action: TrayAction; label: string; enabled: boolean }
  | { type: 'checkbox'; action: TrayAction; label: string; checked: boolean; enabled: boolean }
  | { type: 'separator' };

export interface TrayState {
  /** The hub's status; undefined while it starts (or when it could not). */
  status: Status | undefined;
  startAtLogin: boolean;
  /** Whether this OS lets the app register itself at login. */
  startAtLoginSupported: boolean;
  /** Why the hub is not running, when it failed to start. */
  startError?: string;
}

export interface ServerSummary {
  /** Servers that are not disabled. */
  enabled: number;
  /** Ready, or idle: a server started on first use is available (its next call starts it). */
  ready: number;
  connecting: number;
  failing: string[];
  /** Servers waiting for the user to sign in. */
  signIn: string[];
}

export function summarizeServers(upstreams: readonly UpstreamInfo[]): ServerSummary {
  const enabled = upstreams.filter((u) => u.status !== 'disabled');
  const ids = (...statuses: UpstreamInfo['status'][]) => enabled.filter((u) => statuses.includes(u.status)).map((u) => u.id);
  return {
    enabled: enabled.length,
    ready: ids('ready', 'idle').length,
    connecting: ids('connecting').length,
    failing: ids('error'),
    signIn: ids('needs-sign-in'),
  };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function names(ids: readonly string[], max = 3): string {
  const shown = ids.slice(0, max).join(', ');
  return ids.length > max ? `${shown} and ${ids.length - max} more` : shown;
}

/** Menus and tooltips are no place for a paragraph (Windows cuts tooltips at 127 characters). */
const MAX_LINE = 90;
const clip = (line: string) => (line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line);

/** The status lines at the top of the menu (also the tooltip). */
export function statusLines(state: TrayState): string[] {
  if (state.startError) return [clip(`Not running: ${state.startError}`)];
  if (!state.status) return ['Starting…'];
  const s = summarizeServers(state.status.upstreams);
  const lines: string[] = [];
  if (s.enabled === 0) lines.push('No servers yet');
  else {
    const ready =
      s.enabled === 1
        ? `Server ${s.ready === 1 ? 'ready' : 'not ready'}`
        : s.ready === s.enabled
          ? `All ${s.enabled} servers ready`
          : `${s.ready} of ${plural(s.enabled, 'server', 'servers')} ready`;
    lines.push(s.connecting > 0 ? `${ready} · ${s.connecting} connecting` : ready);
  }
  if (s.failing.length > 0) {
    lines.push(clip(`${s.failing.length === 1 ? '1 error' : `${s.failing.length} errors`}: ${names(s.failing)}`));
  }
  if (s.signIn.length > 0) lines.push(clip(`${names(s.signIn)} ${s.signIn.length === 1 ? 'needs' : 'need'} you to sign in (open Spillway)`));
  if (state.status.paused) lines.push('Paused: results pass through untouched');
  return lines;
}

export function trayTooltip(state: TrayState): string {
  return ['Spillway', ...statusLines(state)].join('\n');
}

export function trayMenuModel(state: TrayState): TrayMenuEntry[] {
  const running = state.status !== undefined && !state.startError;
  return [
    ...statusLines(state).map((label): TrayMenuEntry => ({ type: 'status', label })),
    { type: 'separator' },
    { type: 'action', action: 'open', label: 'Open Spillway', enabled: true },
    { type: 'action', action: 'toggle-pause', label: state.status?.paused ? 'Resume' : 'Pause', enabled: running },
    { type: 'action', action: 'copy-endpoint', label: 'Copy endpoint', enabled: running },
    { type: 'separator' },
    {
      type: 'checkbox',
      action: 'toggle-start-at-login',
      label: 'Start at login',
      checked: state.startAtLogin,
      enabled: state.startAtLoginSupported,
    },
    { type: 'separator' },
    { type: 'action', action: 'quit', label: 'Quit Spillway', enabled: true },
  ];
}

export type TrayIconState = 'normal' | 'paused' | 'error';

/** Error wins over paused: a failing server, or one waiting for a sign-in, is what the user must notice. */
export function trayIconState(state: TrayState): TrayIconState {
  if (state.startError) return 'error';
  if (!state.status) return 'normal';
  const s = summarizeServers(state.status.upstreams);
  if (s.failing.length > 0 || s.signIn.length > 0) return 'error';
  return state.status.paused ? 'paused' : 'normal';
}

/**
 * The icon file in electron/assets. macOS gets monochrome template images (the name must end in
 * "Template" for the menu bar to tint them); Windows and Linux get the coloured badge. `@2x` siblings are
 * picked up by nativeImage on HiDPI displays.
 */
export function trayIconFile(platform: NodeJS.Platform, iconState: TrayIconState): string {
  if (platform === 'darwin') {
    const stem = { normal: 'tray', paused: 'trayPaused', error: 'trayError' }[iconState];
    return `${stem}Template.png`;
  }
  return { normal: 'tray.png', paused: 'tray-paused.png', error: 'tray-error.png' }[iconState];
}

export interface TrayEffects {
  /** The control dispatcher (pause/resume goes through the contract like any UI change). */
  dispatch(method: 'settings.set', body: { paused: boolean }): Promise<ApiResult<unknown>>;
  openWindow(): void;
  copyText(text: string): void;
  /** Rejects when the OS setting could not be changed (the stored setting then stays as it was). */
  setStartAtLogin(on: boolean): void | Promise<void>;
  quit(): void;
}

/** Runs one menu action; resolves to the control result when the action went through the contract. */
export async function runTrayAction(action: TrayAction, state: TrayState, effects: TrayEffects): Promise<ApiResult<unknown> | undefined> {
  switch (action) {
    case 'open':
      effects.openWindow();
      return undefined;
    case 'toggle-pause':
      if (!state.status) return { ok: false, code: 'unavailable', message: 'Spillway is not running' };
      return effects.dispatch('settings.set', { paused: !state.status.paused });
    case 'copy-endpoint':
      if (state.status) effects.copyText(state.status.endpoint);
      return undefined;
    case 'toggle-start-at-login':
      await effects.setStartAtLogin(!state.startAtLogin);
      return undefined;
    case 'quit':
      effects.quit();
      return undefined;
  }
}

/** A menu item as `Menu.buildFromTemplate` takes it (the subset used), built from one model entry. */
export interface TrayMenuItemTemplate {
  type?: 'normal' | 'separator' | 'checkbox';
  label?: string;
  enabled?: boolean;
  checked?: boolean;
  click?: () => void;
}

export function toMenuTemplate(model: readonly TrayMenuEntry[], onAction: (action: TrayAction) => void): TrayMenuItemTemplate[] {
  return model.map((entry): TrayMenuItemTemplate => {
    switch (entry.type) {
      case 'separator':
        return { type: 'separator' };
      case 'status':
        return { label: entry.label, enabled: false };
      case 'action':
        return { label: entry.label, enabled: entry.enabled, click: () => onAction(entry.action) };
      case 'checkbox':
        return { type: 'checkbox', label: entry.label, checked: entry.checked, enabled: entry.enabled, click: () => onAction(entry.action) };
    }
  });
}

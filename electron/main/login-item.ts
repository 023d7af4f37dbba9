/**
 * "Start at login", per OS. macOS and Windows go through `app.setLoginItemSettings`; Linux has no
 * Electron API for it, so the XDG autostart entry (`~/.config/autostart/spillway.desktop`) is written or
 * removed. Pure: returns what to do; main.ts does it. A login launch passes `--hidden` so the app starts in
 * the tray without opening its window (macOS reports `wasOpenedAtLogin` instead).
 */
import { posix } from 'node:path';
import { runningAppImage } from '../core/files/app-image.js';

export const HIDDEN_ARG = '--hidden';

export interface LoginItemFacts {
  platform: NodeJS.Platform;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The command that starts this app: [executable] when packaged (the AppImage path for an AppImage),
   *  [electron, appPath] in development. */
  command: readonly string[];
}

export type LoginItemPlan =
  | { kind: 'electron'; settings: { openAtLogin: boolean; path?: string; args?: string[] } }
  | { kind: 'autostart-file'; path: string; content: string | null };

/**
 * The command to register: the AppImage's own path when running from one (its execPath is a temp mount),
 * by the rule the bridge entry follows (app-image.ts runningAppImage: an APPIMAGE inherited from an AI
 * app packaged as an AppImage names that app, not this one).
 */
export function launchCommand(facts: {
  execPath: string;
  isPackaged: boolean;
  appPath: string;
  env: Readonly<Record<string, string | undefined>>;
}): string[] {
  if (facts.isPackaged) return [runningAppImage(facts.execPath, facts.env) ?? facts.execPath];
  return [facts.execPath, facts.appPath];
}

/** Quotes one argument for a desktop entry's Exec key (Desktop Entry Specification, "The Exec key"). */
export function quoteExecArg(arg: string): string {
  if (arg !== '' && /^[A-Za-z0-9_\-./:=@+,]+$/.test(arg)) return arg;
  return `"${arg.replace(/(["`$\\])/g, '\\$1')}"`;
}

export function autostartEntry(command: readonly string[]): string {
  // Quoting first, then the string escape of every desktop entry value (a backslash becomes two), then
  // '%' doubled so it is not read as a field code.
  const exec = [...command, HIDDEN_ARG].map(quoteExecArg).join(' ').replace(/\\/g, '\\\\').replace(/%/g, '%%');
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Spillway',
    'Comment=Local MCP proxy that keeps oversized tool results out of the model context',
    `Exec=${exec}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

export function loginItemPlan(enabled: boolean, facts: LoginItemFacts): LoginItemPlan {
  if (facts.platform === 'darwin') return { kind: 'electron', settings: { openAtLogin: enabled } };
  if (facts.platform === 'win32') {
    const [path, ...args] = facts.command;
    return { kind: 'electron', settings: { openAtLogin: enabled, path, args: [...args, HIDDEN_ARG] } };
  }
  const config = facts.env.XDG_CONFIG_HOME || posix.join(facts.home, '.config');
  return {
    kind: 'autostart-file',
    path: posix.join(config, 'autostart', 'spillway.desktop'),
    content: enabled ? autostartEntry(facts.command) : null,
  };
}

/** What `app.getLoginItemSettings` reports (macOS, Windows), as far as the start reads it. */
export interface ReportedLoginItem {
  openAtLogin: boolean;
  executableWillLaunchAtLogin?: boolean;
}

/**
 * Whether the OS still starts the app at login, from what Electron reports. Windows: a Run entry starts
 * this executable (with any arguments) and Task Manager's "Startup apps" has not disabled it
 * (`executableWillLaunchAtLogin`; `openAtLogin` also needs the arguments to match). macOS: `openAtLogin`
 * (from macOS 13 on, true only while the item is allowed in System Settings → Login Items).
 */
export function reportedLoginItemOn(platform: NodeJS.Platform, reported: ReportedLoginItem): boolean {
  return platform === 'win32' ? reported.executableWillLaunchAtLogin === true : reported.openAtLogin;
}

/**
 * Whether an XDG autostart entry still starts the app. A desktop may turn one off without deleting it:
 * `Hidden=true` (Desktop Entry Specification) or GNOME's `X-GNOME-Autostart-enabled=false`.
 */
export function autostartEntryOn(content: string): boolean {
  let inEntry = false;
  for (const raw of content.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('[')) {
      inEntry = line === '[Desktop Entry]';
      continue;
    }
    const eq = line.indexOf('=');
    if (!inEntry || eq < 0) continue;
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    if ((key === 'Hidden' && value === 'true') || (key === 'X-GNOME-Autostart-enabled' && value === 'false')) return false;
  }
  return true;
}

/** Whether this launch came from the login item (start in the tray, window closed). */
export function launchedHidden(argv: readonly string[], wasOpenedAtLogin: boolean): boolean {
  return wasOpenedAtLogin || argv.includes(HIDDEN_ARG);
}

/** What to tell the user when the login item could not be changed (the stored setting stays as it was). */
export function loginItemFailure(on: boolean, plan: LoginItemPlan, error: unknown): { message: string; detail: string } {
  const next =
    plan.kind === 'autostart-file'
      ? `Make sure the folder ${posix.dirname(plan.path)} can be created and written, then try again.`
      : 'Try again; if it keeps failing, add or remove Spillway in the login items of your system settings.';
  return {
    message: on ? 'Spillway could not be set to start at login' : 'Spillway could not be removed from the login items',
    detail: `${error instanceof Error ? error.message : String(error)}\n\nThe setting was not changed. ${next}`,
  };
}

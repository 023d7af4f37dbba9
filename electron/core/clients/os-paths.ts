import { posix, win32 } from 'node:path';
import { readdir } from 'node:fs/promises';
import type { OsFacts } from './types.js';

/** Lists a folder's entry names; [] when it does not exist. Injected so Windows rules test on Linux. */
export type ListDir = (dir: string) => Promise<string[]>;

export const listDirOnDisk: ListDir = async (dir) => {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
};

/** The path flavour of the client's OS (win32 joins with backslashes even when tested on Linux). */
export function pathsOf(os: OsFacts): typeof posix {
  return os.platform === 'win32' ? win32 : posix;
}

function envDir(os: OsFacts, name: string): string | undefined {
  const v = os.env[name];
  return v && v.trim() !== '' ? v : undefined;
}

/** `%APPDATA%` (Roaming) on Windows, falling back to the default under the profile folder. */
export function appData(os: OsFacts): string {
  return envDir(os, 'APPDATA') ?? win32.join(os.home, 'AppData', 'Roaming');
}

/** `%LOCALAPPDATA%` on Windows, falling back to the default under the profile folder. */
export function localAppData(os: OsFacts): string {
  return envDir(os, 'LOCALAPPDATA') ?? win32.join(os.home, 'AppData', 'Local');
}

/** `$XDG_CONFIG_HOME` or `~/.config` (Linux; Electron apps such as VS Code and Claude honour it). */
export function xdgConfig(os: OsFacts): string {
  const v = envDir(os, 'XDG_CONFIG_HOME');
  // The XDG spec says a relative value is invalid and must be ignored.
  return v && posix.isAbsolute(v) ? v : posix.join(os.home, '.config');
}

/**
 * The per-user settings folder of an Electron app (where VS Code keeps `User/`):
 * macOS `~/Library/Application Support/<app>`, Windows `%APPDATA%\<app>`, Linux `$XDG_CONFIG_HOME/<app>`.
 */
export function electronAppFolder(os: OsFacts, app: string): string {
  switch (os.platform) {
    case 'darwin':
      return posix.join(os.home, 'Library', 'Application Support', app);
    case 'win32':
      return win32.join(appData(os), app);
    default:
      return posix.join(xdgConfig(os), app);
  }
}

/** A path under the home folder, joined the way the client's OS joins paths. */
export function inHome(os: OsFacts, ...parts: string[]): string {
  return pathsOf(os).join(os.home, ...parts);
}

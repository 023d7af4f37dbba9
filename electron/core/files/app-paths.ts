/**
 * Where Spillway keeps its files. The data folder is the one Electron uses as `userData` for an app named
 * "Spillway", so the desktop app and the headless hub share the same config, token, spill store and logs.
 */
import { posix, win32 } from 'node:path';

export interface OsFacts {
  home: string;
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
}

export const APP_NAME = 'Spillway';

/** Electron's `app.getPath('userData')` for this app name, computed without Electron. */
export function defaultDataDir({ home, platform, env }: OsFacts): string {
  if (platform === 'win32') {
    const appData = env.APPDATA || win32.join(env.USERPROFILE || home, 'AppData', 'Roaming');
    return win32.join(appData, APP_NAME);
  }
  if (platform === 'darwin') return posix.join(home, 'Library', 'Application Support', APP_NAME);
  const config = env.XDG_CONFIG_HOME || posix.join(home, '.config');
  return posix.join(config, APP_NAME);
}

export interface AppPaths {
  dataDir: string;
  configFile: string;
  tokenFile: string;
  spillDir: string;
  logDir: string;
  ledgerDir: string;
  backupDir: string;
}

/**
 * The files of the data folder given (--data-dir), else SPILLWAY_DATA_DIR, else the default one; an empty
 * value counts as not given, as the desktop app takes it (shell-paths.ts). Relative paths are made absolute
 * from the current folder: they are written into AI apps' entries, which run from folders of their own.
 */
export function resolvePaths(options: { dataDir?: string; configFile?: string; os: OsFacts }): AppPaths {
  const env = options.os.env;
  const path = options.os.platform === 'win32' ? win32 : posix;
  const absolute = (p: string) => (path.isAbsolute(p) ? p : path.resolve(p));
  const dataDir = absolute(options.dataDir || env.SPILLWAY_DATA_DIR || defaultDataDir(options.os));
  const configFile = options.configFile || env.SPILLWAY_CONFIG;
  return {
    dataDir,
    configFile: configFile ? absolute(configFile) : path.join(dataDir, 'config.json'),
    tokenFile: path.join(dataDir, 'token'),
    spillDir: path.join(dataDir, 'spill'),
    logDir: path.join(dataDir, 'logs'),
    ledgerDir: path.join(dataDir, 'ledger'),
    backupDir: path.join(dataDir, 'backups'),
  };
}

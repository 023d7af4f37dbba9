/**
 * Where the shell finds its files and keeps its data. Pure: computed from the compiled main module's URL
 * and facts main.ts reads from Electron, so dev and packaged layouts are tested in Node.
 *
 * Layout (the same in the repo and inside app.asar): dist/electron/main/main.js, dist/electron/preload/
 * preload.cjs, dist/renderer/index.html, electron/assets/*.png.
 */
import { join, posix, resolve, win32 } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runningAppImage } from '../core/files/app-image.js';
import { APP_NAME } from '../core/files/app-paths.js';
import type { RendererLocation } from './navigation-guard.js';

export interface ShellFiles {
  preload: string;
  rendererIndex: string;
  assetsDir: string;
}

/** Files relative to main.js (`import.meta.url` of dist/electron/main/main.js). */
export function shellFiles(mainModuleUrl: string): ShellFiles {
  const at = (relative: string) => fileURLToPath(new URL(relative, mainModuleUrl));
  return {
    preload: at('../preload/preload.cjs'),
    rendererIndex: at('../../renderer/index.html'),
    assetsDir: at('../../../electron/assets'),
  };
}

/**
 * The data folder: `<appData>/Spillway`, the folder the headless hub uses too (app-paths.ts
 * defaultDataDir). Set explicitly because in development Electron would name it after package.json's
 * lower-case "spillway", a different folder on case-sensitive file systems. SPILLWAY_DATA_DIR wins, as
 * it does for the CLI, made absolute (it goes into AI apps' bridge entries, which run from other folders).
 */
export function desktopDataDir(appData: string, platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>): string {
  if (env.SPILLWAY_DATA_DIR) return resolve(env.SPILLWAY_DATA_DIR);
  return platform === 'win32' ? win32.join(appData, APP_NAME) : join(appData, APP_NAME);
}

/**
 * The renderer page: the Vite dev server when SPILLWAY_RENDERER_URL is set in an unpackaged run
 * (`vite dev`), else the built index.html. A packaged app ignores the variable.
 */
export function rendererLocation(options: {
  rendererIndex: string;
  isPackaged: boolean;
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
}): RendererLocation {
  const dev = options.env.SPILLWAY_RENDERER_URL;
  if (dev && !options.isPackaged) {
    const url = new URL(dev);
    if (url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '127.0.0.1')) {
      return { kind: 'dev', url: url.href };
    }
  }
  return {
    kind: 'file',
    url: pathToFileURL(options.rendererIndex).href,
    ...(options.platform === 'win32' ? { caseInsensitive: true } : {}),
  };
}

/** The application id: electron-builder's appId and Windows' AppUserModelID (toasts, taskbar grouping). */
export const APP_ID = 'app.spillway.desktop';

/** How an MCP client starts the stdio bridge with this app's own executable (no Node installed). */
export interface BridgeLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * The bridge command for client configs: `ELECTRON_RUN_AS_NODE=1 <executable> <spillway.js> bridge`.
 * Packaged, the launcher is the copy electron-builder unpacked from app.asar (electron-builder.yml
 * asarUnpack), because a client's process resolves its imports on disk; in development it is the repo's.
 * From a Linux AppImage, whose executable and script are inside a temporary mount, see appImageBridgeArgs.
 */
export function bridgeLaunch(facts: {
  execPath: string;
  isPackaged: boolean;
  resourcesPath: string;
  appRoot: string;
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
}): BridgeLaunch {
  const env = { ELECTRON_RUN_AS_NODE: '1' };
  const appImage = facts.isPackaged ? runningAppImage(facts.execPath, facts.env) : undefined;
  if (appImage) return { command: appImage, args: appImageBridgeArgs(), env };
  const path = facts.platform === 'win32' ? win32 : posix;
  const script = facts.isPackaged
    ? path.join(facts.resourcesPath, 'app.asar.unpacked', 'electron', 'cli', 'spillway.js')
    : path.join(facts.appRoot, 'electron', 'cli', 'spillway.js');
  return { command: facts.execPath, args: [script, 'bridge'], env };
}

/**
 * The placeholder given to AppRun, electron-builder's launcher inside the AppImage: it puts `--no-sandbox`
 * before the arguments when the system allows no unprivileged user namespaces (Ubuntu 24.04 by default),
 * unless the arguments hold it already, and Node refuses it as an option ("bad option"). After `--` Node
 * passes it on as a plain argument, which the `-e` code drops.
 */
const NO_SANDBOX = '--no-sandbox';

/**
 * What runs the bridge from an AppImage. Its executable and resources are mounted at /tmp/.mount_XXXXXX,
 * a new folder at each run that is gone once the app quits, so a client runs the AppImage file itself
 * (`$APPIMAGE`, as the login item does), whose AppRun passes the arguments and environment on to the
 * executable; and the script is found from that run's executable: electron-builder's Linux layout keeps
 * `resources/` beside it. The `-e` code puts the script where Node would have put it (process.argv[1]:
 * spillway.js reads its arguments from argv[2], the bridge's launcher reads argv[1]) and loads it.
 */
function appImageBridgeArgs(): string[] {
  const code = [
    "const p = require('node:path');",
    "const s = p.join(p.dirname(process.execPath), 'resources', 'app.asar.unpacked', 'electron', 'cli', 'spillway.js');",
    `if (process.argv[1] === '${NO_SANDBOX}') process.argv.splice(1, 1);`,
    'process.argv.splice(1, 0, s);',
    "import(require('node:url').pathToFileURL(s).href);",
  ].join(' ');
  return ['-e', code, '--', NO_SANDBOX, 'bridge'];
}

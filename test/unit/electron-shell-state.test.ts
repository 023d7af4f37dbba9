/**
 * The shell's small state machines and facts: its app-state file (through `conf`, the engine under
 * electron-store, on a temp folder), start at login per OS, the quit sequence, and where its files are.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Conf from 'conf';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultDataDir } from '../../electron/core/files/app-paths.js';
import { AppStateStore, APP_STATE_FILE_NAME } from '../../electron/main/app-state.js';
import { autostartEntry, HIDDEN_ARG, launchCommand, launchedHidden, loginItemPlan, quoteExecArg } from '../../electron/main/login-item.js';
import { createQuitGate } from '../../electron/main/quit-gate.js';
import { bridgeLaunch, desktopDataDir, rendererLocation, shellFiles } from '../../electron/main/shell-paths.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('app state (its own file beside config.json)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spillway-appstate-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** The options main.ts gives electron-store, minus what only Electron supplies. */
  const open = () =>
    new AppStateStore(
      new Conf<Record<string, unknown>>({
        cwd: dir,
        configName: APP_STATE_FILE_NAME,
        projectName: 'spillway',
        accessPropertiesByDotNotation: false,
        clearInvalidConfig: true,
      }),
    );

  it('starts with defaults and no file', () => {
    expect(open().read()).toEqual({ startAtLogin: false, window: { maximized: false } });
  });

  it('round-trips through app-state.json and leaves config.json alone', async () => {
    const config = join(dir, 'config.json');
    await writeFile(config, '{\n\t"version": 1\n}\n');
    const store = open();
    store.setStartAtLogin(true);
    store.setWindow({ bounds: { x: 10, y: 20, width: 900, height: 700 }, maximized: true });
    expect(open().read()).toEqual({ startAtLogin: true, window: { bounds: { x: 10, y: 20, width: 900, height: 700 }, maximized: true } });
    expect(JSON.parse(await readFile(join(dir, 'app-state.json'), 'utf8'))).toMatchObject({ startAtLogin: true });
    expect(await readFile(config, 'utf8')).toBe('{\n\t"version": 1\n}\n');
  });

  it('a hand-damaged file falls back to defaults field by field', async () => {
    await writeFile(join(dir, 'app-state.json'), JSON.stringify({ startAtLogin: 'yes', window: { bounds: { x: 'a' }, maximized: true } }));
    expect(open().read()).toEqual({ startAtLogin: false, window: { maximized: true } });
    await writeFile(join(dir, 'app-state.json'), '{ not json');
    expect(open().read()).toEqual({ startAtLogin: false, window: { maximized: false } });
  });
});

describe('start at login', () => {
  const facts = (platform: NodeJS.Platform, command = ['/Applications/Spillway.app/Contents/MacOS/Spillway']) => ({
    platform,
    home: '/home/ada',
    env: {},
    command,
  });

  it('macOS: the login item API', () => {
    expect(loginItemPlan(true, facts('darwin'))).toEqual({ kind: 'electron', settings: { openAtLogin: true } });
    expect(loginItemPlan(false, facts('darwin'))).toEqual({ kind: 'electron', settings: { openAtLogin: false } });
  });

  it('Windows: the Run key with --hidden', () => {
    const exe = 'C:\\Users\\Ada\\AppData\\Local\\Programs\\Spillway\\Spillway.exe';
    expect(loginItemPlan(true, facts('win32', [exe]))).toEqual({ kind: 'electron', settings: { openAtLogin: true, path: exe, args: [HIDDEN_ARG] } });
  });

  it('Linux: an XDG autostart entry, removed when turned off', () => {
    const on = loginItemPlan(true, { ...facts('linux', ['/home/ada/Apps/Spillway 0.1.0.AppImage']), env: { XDG_CONFIG_HOME: '/home/ada/.cfg' } });
    expect(on).toMatchObject({ kind: 'autostart-file', path: '/home/ada/.cfg/autostart/spillway.desktop' });
    const content = (on as { content: string }).content;
    expect(content).toContain('[Desktop Entry]');
    expect(content).toContain('Exec="/home/ada/Apps/Spillway 0.1.0.AppImage" --hidden');
    expect(loginItemPlan(false, facts('linux', ['/opt/Spillway/spillway']))).toEqual({
      kind: 'autostart-file',
      path: '/home/ada/.config/autostart/spillway.desktop',
      content: null,
    });
  });

  it('quotes Exec arguments as the desktop entry spec asks', () => {
    expect(quoteExecArg('/opt/Spillway/spillway')).toBe('/opt/Spillway/spillway');
    expect(quoteExecArg('a b')).toBe('"a b"');
    expect(quoteExecArg('say "$HOME" `x` \\')).toBe('"say \\"\\$HOME\\" \\`x\\` \\\\"');
    expect(autostartEntry(['/x/100%/app'])).toContain('Exec="/x/100%%/app" --hidden');
    // Quoted, then string-escaped: a literal backslash takes four (Desktop Entry Specification).
    expect(autostartEntry(['/x/a\\b'])).toContain('Exec="/x/a\\\\\\\\b" --hidden');
  });

  it('registers the AppImage itself, not its temporary mount; the app folder in development', () => {
    expect(
      launchCommand({
        execPath: '/tmp/.mount_Spill/spillway',
        isPackaged: true,
        appPath: '/tmp/.mount_Spill/resources/app.asar',
        env: { APPIMAGE: '/home/ada/Spillway.AppImage', APPDIR: '/tmp/.mount_Spill' },
      }),
    ).toEqual(['/home/ada/Spillway.AppImage']);
    expect(launchCommand({ execPath: '/opt/Spillway/spillway', isPackaged: true, appPath: '/opt/Spillway/resources/app.asar', env: {} })).toEqual([
      '/opt/Spillway/spillway',
    ]);
    expect(launchCommand({ execPath: '/repo/node_modules/electron/dist/electron', isPackaged: false, appPath: '/repo', env: {} })).toEqual([
      '/repo/node_modules/electron/dist/electron',
      '/repo',
    ]);
  });

  it('a login launch starts hidden in the tray', () => {
    expect(launchedHidden(['Spillway.exe', HIDDEN_ARG], false)).toBe(true);
    expect(launchedHidden(['Spillway'], true)).toBe(true);
    expect(launchedHidden(['Spillway'], false)).toBe(false);
  });
});

describe('quit sequence', () => {
  it('holds the first quit until the hub has stopped, then lets the second through', async () => {
    let release!: () => void;
    const stopped = new Promise<void>((r) => (release = r));
    const calls: string[] = [];
    let quitAgain!: () => void;
    const requeued = new Promise<void>((r) => (quitAgain = r));
    const gate = createQuitGate({
      stop: async () => {
        calls.push('stop');
        await stopped;
        calls.push('stopped');
      },
      quit: () => {
        calls.push('quit');
        quitAgain();
      },
    });
    expect(gate.quitting).toBe(false);
    const first = {
      prevented: false,
      preventDefault() {
        this.prevented = true;
      },
    };
    gate.beforeQuit(first);
    expect(first.prevented).toBe(true);
    expect(gate.quitting).toBe(true);
    // A second Quit while stopping is held too, and does not stop twice.
    const impatient = {
      prevented: false,
      preventDefault() {
        this.prevented = true;
      },
    };
    gate.beforeQuit(impatient);
    expect(impatient.prevented).toBe(true);
    release();
    await requeued;
    expect(calls).toEqual(['stop', 'stopped', 'quit']);
    const last = {
      prevented: false,
      preventDefault() {
        this.prevented = true;
      },
    };
    gate.beforeQuit(last);
    expect(last.prevented).toBe(false);
  });

  it('quits even when stopping fails, and reports it', async () => {
    const errors: unknown[] = [];
    let quit!: () => void;
    const quitted = new Promise<void>((r) => (quit = r));
    const gate = createQuitGate({ stop: () => Promise.reject(new Error('stuck')), quit, onStopError: (e) => errors.push(e) });
    gate.beforeQuit({ preventDefault() {} });
    await quitted;
    expect(String(errors[0])).toMatch(/stuck/);
  });
});

describe('shell paths', () => {
  it('finds preload, renderer and assets from the compiled main module', () => {
    const files = shellFiles(pathToFileURL(join(root, 'dist/electron/main/main.js')).href);
    expect(files).toEqual({
      preload: join(root, 'dist/electron/preload/preload.cjs'),
      rendererIndex: join(root, 'dist/renderer/index.html'),
      assetsDir: join(root, 'electron/assets'),
    });
  });

  it('uses the same data folder as the headless hub on every OS', () => {
    expect(desktopDataDir('/home/ada/.config', 'linux', {})).toBe(defaultDataDir({ home: '/home/ada', platform: 'linux', env: {} }));
    expect(desktopDataDir('/Users/ada/Library/Application Support', 'darwin', {})).toBe(
      defaultDataDir({ home: '/Users/ada', platform: 'darwin', env: {} }),
    );
    expect(desktopDataDir('C:\\Users\\Ada\\AppData\\Roaming', 'win32', {})).toBe(
      defaultDataDir({ home: 'C:\\Users\\Ada', platform: 'win32', env: { APPDATA: 'C:\\Users\\Ada\\AppData\\Roaming' } }),
    );
    expect(desktopDataDir('/home/ada/.config', 'linux', { SPILLWAY_DATA_DIR: '/tmp/sw' })).toBe('/tmp/sw');
  });

  it('serves the dev server only to an unpackaged app, and only on localhost', () => {
    const index = join(root, 'dist/renderer/index.html');
    const base = { rendererIndex: index, platform: 'linux' as const };
    expect(rendererLocation({ ...base, isPackaged: false, env: { SPILLWAY_RENDERER_URL: 'http://localhost:5174/' } })).toEqual({
      kind: 'dev',
      url: 'http://localhost:5174/',
    });
    expect(rendererLocation({ ...base, isPackaged: true, env: { SPILLWAY_RENDERER_URL: 'http://localhost:5174/' } })).toEqual({
      kind: 'file',
      url: pathToFileURL(index).href,
    });
    expect(rendererLocation({ ...base, isPackaged: false, env: { SPILLWAY_RENDERER_URL: 'https://evil.example/' } }).kind).toBe('file');
    expect(rendererLocation({ ...base, platform: 'win32', isPackaged: false, env: {} })).toMatchObject({ kind: 'file', caseInsensitive: true });
  });
});

describe('bridge launch', () => {
  it('packaged: the executable runs the launcher unpacked from app.asar, as Node', () => {
    expect(
      bridgeLaunch({
        execPath: 'C:\\Program Files\\Spillway\\Spillway.exe',
        isPackaged: true,
        resourcesPath: 'C:\\Program Files\\Spillway\\resources',
        appRoot: 'C:\\Program Files\\Spillway\\resources\\app.asar',
        platform: 'win32',
        env: {},
      }),
    ).toEqual({
      command: 'C:\\Program Files\\Spillway\\Spillway.exe',
      args: ['C:\\Program Files\\Spillway\\resources\\app.asar.unpacked\\electron\\cli\\spillway.js', 'bridge'],
      env: { ELECTRON_RUN_AS_NODE: '1' },
    });
    expect(
      bridgeLaunch({
        execPath: '/Applications/Spillway.app/Contents/MacOS/Spillway',
        isPackaged: true,
        resourcesPath: '/Applications/Spillway.app/Contents/Resources',
        appRoot: '/Applications/Spillway.app/Contents/Resources/app.asar',
        platform: 'darwin',
        env: {},
      }).args[0],
    ).toBe('/Applications/Spillway.app/Contents/Resources/app.asar.unpacked/electron/cli/spillway.js');
  });

  it('development: the repo’s launcher, which exists', () => {
    const launch = bridgeLaunch({
      execPath: '/x/electron',
      isPackaged: false,
      resourcesPath: '/x/resources',
      appRoot: root,
      platform: process.platform,
      env: {},
    });
    expect(launch.args).toEqual([join(root, 'electron/cli/spillway.js'), 'bridge']);
    expect(existsSync(launch.args[0])).toBe(true);
  });
});

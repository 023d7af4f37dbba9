/**
 * Runs the built shell (dist/electron/main/main.js) against the electron double in a process of its own,
 * so a test can send it a signal (electron-shell-signal-quit.test.ts). Env: SHELL_TMP (a temp folder
 * holding home/ and config.json), SHELL_QUIT_ON_INPUT (set: a line on stdin clicks the tray's Quit). Prints
 * "READY" once the tray says the server is ready, and "BEFORE-QUIT" when Electron's quit path runs. Once
 * the app has ended the process exits, as Electron's does after 'quit' (the double keeps Node running).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installElectronDouble, until } from './electron-double.js';
import { ROOT } from './hub-harness.js';

const tmp = process.env.SHELL_TMP!;
process.env.SPILLWAY_DATA_DIR = join(tmp, 'appData', 'Spillway');
process.env.SPILLWAY_CONFIG = join(tmp, 'config.json');
process.env.HOME = join(tmp, 'home');
process.env.XDG_CONFIG_HOME = join(tmp, 'home', '.config');
delete process.env.SPILLWAY_RENDERER_URL;

const electron = installElectronDouble({ paths: { home: join(tmp, 'home'), appData: join(tmp, 'appData'), temp: tmp }, appPath: ROOT });
electron.app.on('before-quit', () => console.log('BEFORE-QUIT'));
await import(pathToFileURL(join(ROOT, 'dist/electron/main/main.js')).href);
electron.app.emitReady();
await until(() => (electron.Tray.all.at(-1)?.menu?.labels() ?? []).includes('Server ready'), 'server ready', 20_000);
console.log('READY');
if (process.env.SHELL_QUIT_ON_INPUT) process.stdin.once('data', () => electron.Tray.all.at(-1)!.menu!.item('Quit Spillway').click());
await until(() => electron.app.exitCode !== undefined, 'the app to end', 600_000);
process.exit(electron.app.exitCode);

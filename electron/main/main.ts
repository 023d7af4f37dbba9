/**
 * The desktop app's entry (package.json "main": dist/electron/main/main.js). A thin composition root:
 * single instance, the hub on the user's data folder, the IPC binding, the tray and the window. Every
 * decision it relies on lives in a pure module beside it and is tested in Node; this file only connects
 * them to Electron.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { app, BrowserWindow, clipboard, dialog, ipcMain, shell } from 'electron';
import Store from 'electron-store';
import { createAppHub, type AppHub } from '../core/app/app-hub.js';
import { recordHubRunning, recordHubStopped, recordStartFailure } from '../core/app/hub-record.js';
import { attachSocketEndpoint, socketPathFor, SocketInUseError, type SocketEndpoint } from '../core/downstream/socket-endpoint.js';
import { resolvePaths, APP_NAME } from '../core/files/app-paths.js';
import { AppStateStore, APP_STATE_FILE_NAME } from './app-state.js';
import { bindControlIpc, bridgeArgument } from './ipc-binding.js';
import { ALREADY_SERVED, markAppUp, startFailureDialog } from './app-start.js';
import { onSessionEnd, quitOnSignals } from './lifecycle-events.js';
import { changeLoginItem, keepLoginItemInStep } from './login-item-apply.js';
import { launchCommand, launchedHidden, loginItemPlan } from './login-item.js';
import { hardenWebContents, MainWindow, restrictPermissions } from './main-window.js';
import { createQuitGate, refuseWhileQuitting } from './quit-gate.js';
import { APP_ID, bridgeLaunch, desktopDataDir, rendererLocation, shellFiles } from './shell-paths.js';
import { SystemTray } from './system-tray.js';
import type { TrayState } from './tray-menu.js';
import { WindowRequests } from './window-requests.js';

const log = (message: string) => console.log(`[spillway] ${message}`);
const platform = process.platform;
const env = process.env;

async function run(dataDir: string): Promise<void> {
  if (platform === 'win32') app.setAppUserModelId(APP_ID);

  // The user asks for the window again: a second instance, or macOS reopening the app (Dock, Finder,
  // `open -a`). One that comes while the hub still starts opens the window once there is one. An
  // 'activate' before 'ready' does not count: Electron may emit one as the app launches, hidden or not.
  const windowRequests = new WindowRequests();
  app.on('second-instance', (_event, argv) => windowRequests.secondInstance(argv));
  app.on('activate', () => {
    if (app.isReady()) windowRequests.ask();
  });
  // The app lives in the tray: closing the last window must not quit it.
  app.on('window-all-closed', () => {});
  // A signal (logout, shutdown, `kill`, Ctrl+C) quits as the tray's Quit does, from now on.
  quitOnSignals(() => app.quit());

  await app.whenReady();
  markAppUp(env, process.pid, log);
  if (platform === 'darwin') app.dock?.hide();

  const files = shellFiles(import.meta.url);
  const location = rendererLocation({ rendererIndex: files.rendererIndex, isPackaged: app.isPackaged, platform, env });
  restrictPermissions(location);
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, location, log));

  // electron-store, in its own file: see app-state.ts for why not config.json.
  const appState = new AppStateStore(
    new Store({ name: APP_STATE_FILE_NAME, cwd: dataDir, accessPropertiesByDotNotation: false, clearInvalidConfig: true }),
  );

  const paths = resolvePaths({ dataDir, os: { home: app.getPath('home'), platform, env } });
  let appHub: AppHub | undefined;
  let socket: SocketEndpoint | undefined;
  let startError: string | undefined;
  /** The start failed because another hub serves the folder: its record stays, and the config is not at fault. */
  let servedElsewhere = false;
  let startEnded!: () => void;
  const started = new Promise<void>((resolve) => (startEnded = resolve));

  // In place before the start: a quit that comes during it (a logout, an OS update's restart) waits for
  // the start to end, then stops what it started.
  const quitGate = createQuitGate({
    stop: async () => {
      await started;
      await socket?.close();
      await appHub?.hub.stop();
      // After a failed start the record keeps why (recordStartFailure) instead of a plain "stopped".
      if (appHub && !startError) await recordHubStopped(paths).catch(() => undefined);
      await appHub?.releaseFolder();
    },
    quit: () => app.quit(),
    onStopError: (err) => log(`Stopping the hub failed: ${(err as Error).message}`),
  });
  app.on('before-quit', (event) => quitGate.beforeQuit(event));
  // The record goes first, as Windows may end the process before the hub has stopped.
  onSessionEnd(platform, () => {
    if (appHub && !startError) void recordHubStopped(paths).catch(() => undefined);
    app.quit();
  });

  try {
    const bridge = bridgeLaunch({
      execPath: process.execPath,
      isPackaged: app.isPackaged,
      resourcesPath: process.resourcesPath,
      appRoot: app.getAppPath(),
      platform,
      env,
    });
    appHub = await createAppHub({
      paths,
      platform,
      env,
      useLoginShellPath: true,
      bridge: { ...bridge, args: [...bridge.args, '--data-dir', dataDir] },
    });
    await appHub.hub.start();
    const hub = appHub.hub;
    // The bridge's local socket (Claude Desktop and other stdio clients reach the hub through it).
    socket = await attachSocketEndpoint(hub, {
      // The same path the bridge computes (never under TMPDIR, which differs between the app and a client).
      path: socketPathFor({ dataDir, platform, uid: process.getuid?.() }),
      platform,
      proveIdentity: appHub.proveIdentity,
      onWarning: (message) => hub.emit({ type: 'log', level: 'warn', message }),
      onClient: appHub.noteClientSeen,
    }).catch((err: Error) => {
      // Two hubs on one data folder would share its token, spill store and ledger (headless.ts refuses it too).
      if (err instanceof SocketInUseError) throw err;
      hub.emit({ type: 'log', level: 'warn', message: `Bridge socket unavailable (${err.message}); stdio clients use the HTTP endpoint.` });
      return undefined;
    });
    // The bridge reads this record to find this hub and the config it runs (issue 13, items 2 and 4).
    await recordHubRunning(paths, hub.url).catch((err: Error) =>
      hub.emit({ type: 'log', level: 'warn', message: `Could not write the hub record: ${err.message}` }),
    );
    void appHub.repairClients();
  } catch (err) {
    // What did start (exit hooks, logs, stores) ends now, not only once the user quits.
    await appHub?.hub.stop().catch(() => undefined);
    // Another hub serves the folder: createAppHub found it before opening anything (or it took the socket since).
    if (err instanceof SocketInUseError) {
      // The hub that runs there keeps its record (hub.json keeps pointing bridges at it).
      servedElsewhere = true;
      startError = ALREADY_SERVED;
    } else {
      // Recorded in hub.json too: a bridge waiting for this hub answers its client with the same words.
      startError = await recordStartFailure(paths, err);
    }
    await appHub?.releaseFolder();
    log(`Spillway could not start: ${startError}`);
  } finally {
    startEnded();
  }

  const loginFacts = {
    platform,
    home: app.getPath('home'),
    env,
    command: launchCommand({ execPath: process.execPath, isPackaged: app.isPackaged, appPath: app.getAppPath(), env }),
  };
  // Keep the OS login item in step with the stored setting, before the tray shows it (the OS may have turned it off).
  if (appState.read().startAtLogin) {
    await keepLoginItemInStep(loginItemPlan(true, loginFacts), platform, (on) => appState.setStartAtLogin(on), log).catch((err: Error) =>
      log(`Start at login: ${err.message}`),
    );
  }

  // The app is quitting (the gate stops what started): no tray or window for it.
  if (quitGate.quitting) return;

  const dispatch = refuseWhileQuitting(quitGate, async (method, body) =>
    appHub && !startError
      ? appHub.dispatcher.dispatch(method, body)
      : { ok: false, code: 'unavailable', message: `Spillway is not running: ${startError ?? 'starting'}` },
  );

  const mainWindow = new MainWindow({
    files,
    location,
    appState,
    bridgeArgument: bridgeArgument(),
    platform,
    devTools: !app.isPackaged,
    iconPath: platform === 'linux' ? join(files.assetsDir, 'icon.png') : undefined,
    log,
  });

  bindControlIpc({
    ipcMain,
    dispatch,
    trustedSenderId: () => mainWindow.webContentsId,
    location,
    subscribe: (listener) => appHub?.hub.events.subscribe(listener) ?? (() => {}),
    eventTarget: () => mainWindow.webContents,
    onRefused: (reason) => log(`Refused a control call: ${reason}`),
    openExternal: (url) => shell.openExternal(url),
    log,
  });

  const startAtLoginSupported = platform === 'darwin' || platform === 'win32' || platform === 'linux';
  const trayState = (): TrayState => ({
    status: appHub && !startError ? appHub.status.report() : undefined,
    startAtLogin: appState.read().startAtLogin,
    startAtLoginSupported,
    ...(startError ? { startError } : {}),
  });
  const tray = new SystemTray({
    assetsDir: files.assetsDir,
    platform,
    state: trayState,
    log,
    effects: {
      dispatch: (method, body) => dispatch(method, body),
      openWindow: () => mainWindow.show(),
      copyText: (text) => clipboard.writeText(text),
      setStartAtLogin: (on) => changeLoginItem(on, loginItemPlan(on, loginFacts), (value) => appState.setStartAtLogin(value)),
      quit: () => app.quit(),
    },
  });
  appHub?.hub.events.subscribe((event) => {
    if (event.type === 'upstream.status' || event.type === 'config.changed' || event.type === 'catalog.changed') tray.scheduleRefresh();
  });
  app.on('will-quit', () => tray.destroy());

  if (startError) {
    const box = startFailureDialog(startError, servedElsewhere);
    const { response } = await dialog.showMessageBox(box);
    if (box.buttons[response] === 'Quit') {
      app.quit();
      return;
    }
    shell.showItemInFolder(paths.configFile);
  }
  if (quitGate.quitting) return;

  const asked = windowRequests.attach(() => mainWindow.show());
  const loginSettings = platform === 'darwin' ? app.getLoginItemSettings() : undefined;
  if (asked || !launchedHidden(process.argv, loginSettings?.wasOpenedAtLogin ?? false)) mainWindow.show();
}

// One data folder for the app and the headless hub (see shell-paths.ts). Set before anything uses it:
// the single-instance lock lives in userData too.
app.setName(APP_NAME);
const dataDir = desktopDataDir(app.getPath('appData'), platform, env);
// Electron documents that setPath throws for a folder that does not exist: a first start has none yet.
mkdirSync(dataDir, { recursive: true });
app.setPath('userData', dataDir);

if (!app.requestSingleInstanceLock()) {
  // Another Spillway is running; it receives 'second-instance' and shows its window.
  app.quit();
} else {
  run(dataDir).catch((err: unknown) => {
    log(`Fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    dialog.showErrorBox('Spillway', `Spillway stopped because of an unexpected error:\n${(err as Error)?.message ?? String(err)}`);
    for (const win of BrowserWindow.getAllWindows()) win.destroy();
    app.exit(1);
  });
}

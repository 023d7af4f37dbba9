/**
 * What comes from outside the app during its life (Electron glue beside main.ts): the OS ending the app (a
 * signal, the end of a Windows session). The user asking for the window again is window-requests.ts.
 * main.ts registers these before the hub starts, so none is lost during the start.
 */
import { app, BrowserWindow } from 'electron';

/** The signals that end the app from outside: logout or shutdown (SIGTERM, SIGHUP), `kill`, Ctrl+C on `npm start` (SIGINT). */
export const QUIT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Quits through `quit` (app.quit, so the quit gate stops the hub and writes its record) on a signal. A
 * Node listener replaces the default action, which ends the process at once; and the hub's child reaper,
 * which re-sends a signal no one else listens for (child-reaper.ts), leaves the exit to this one.
 */
export function quitOnSignals(quit: () => void): void {
  for (const signal of QUIT_SIGNALS) process.on(signal, () => quit());
}

/**
 * Calls `onEnd` once when the Windows session ends (logoff, shutdown, restart), which emits no
 * before-quit (Electron's app docs). What the app hears then is a window's 'session-end', and only a
 * window that exists hears it; but the app usually has none: it sits in the tray after a login launch,
 * or after the user closed its window (main-window.ts destroys it). So on win32 one window is kept that
 * is never shown and loads nothing, only to hear it. Call once the app is ready.
 */
export function onSessionEnd(platform: NodeJS.Platform, onEnd: () => void): void {
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  // Every window hears it (the app window and the one below): the first one to hear it calls onEnd.
  app.on('browser-window-created', (_event, win) => win.on('session-end', end));
  if (platform !== 'win32') return;
  new BrowserWindow({
    show: false,
    skipTaskbar: true,
    focusable: false,
    width: 1,
    height: 1,
    webPreferences: { sandbox: true, contextIsolation: true, nodeIntegration: false },
  });
}

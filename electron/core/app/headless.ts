/**
 * Runs the hub without Electron: the endpoint, the control API and the UI over HTTP, the bridge socket
 * (`spillway bridge` connects there), and optionally one MCP session on this process's stdin/stdout
 * (`spillway serve --stdio`).
 */
import { CLIENT_MESSAGE_MAX_BYTES } from '../../../shared/limits.js';
import { attachSocketEndpoint, socketPathFor, SocketInUseError, type SocketEndpoint } from '../downstream/socket-endpoint.js';
import type { AppPaths } from '../files/app-paths.js';
import type { Hub } from '../hub.js';
import { LineTransport } from '../wire/line-transport.js';
import { createAppHub, type AppHub, type AppHubOptions } from './app-hub.js';
import { recordHubRunning, recordHubStopped, recordStartFailure } from './hub-record.js';

export interface HeadlessOptions {
  paths: AppPaths;
  port?: number;
  stdio?: boolean;
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  upstream?: AppHubOptions['upstream'];
  /** The bridge socket: its path (default socketPathFor the data dir), or false for none. */
  socket?: string | false;
  /**
   * When the port is taken, listen on a free one instead of failing: a bridge's own hub (bridges reach
   * it over the socket) must start even where another Spillway holds the port (issue 13, item 2).
   */
  portFallback?: boolean;
}

export interface RunningHub {
  hub: Hub;
  /** The UI link with the token, to open in a browser. */
  uiUrl: string;
  /** Where bridges connect (undefined when the socket is off). */
  socketPath: string | undefined;
  stop(): Promise<void>;
  onStopped(fn: () => void): void;
}

export async function startHeadless(options: HeadlessOptions): Promise<RunningHub> {
  // Checked before the hub opens a store, even without a socket of its own: a hub answering there serves the folder.
  const socketPath = options.socket || socketPathFor({ dataDir: options.paths.dataDir, platform: options.platform, uid: process.getuid?.() });
  const app = await startAppHub({ ...options, socketPath });
  const { hub } = app;
  let socket: SocketEndpoint | undefined;
  if (options.socket !== false) {
    try {
      socket = await attachSocketEndpoint(hub, {
        path: socketPath,
        platform: options.platform,
        proveIdentity: app.proveIdentity,
        onWarning: (message) => hub.emit({ type: 'log', level: 'warn', message }),
        onClient: app.noteClientSeen,
      });
    } catch (err) {
      if (!(err instanceof SocketInUseError)) {
        // A socket that cannot be made (its folder taken by another user, a file in its place) only costs
        // the bridges their fast way in: they reach the hub over HTTP, as with the desktop app (main.ts).
        hub.emit({
          type: 'log',
          level: 'warn',
          message: `Bridge socket unavailable (${(err as Error).message}); stdio clients use the HTTP endpoint.`,
        });
      } else {
        // Two hubs on one data folder would share its token, spill store and ledger: refuse the second. The
        // hub that answers there is running: its record stays, and a bridge finds it on the socket.
        await hub.stop();
        await app.releaseFolder();
        throw err;
      }
    }
    if (socket) hub.emit({ type: 'log', level: 'debug', message: `Bridge socket at ${socket.path}` });
  }
  await recordHubRunning(options.paths, hub.url).catch((err: Error) =>
    hub.emit({ type: 'log', level: 'warn', message: `Could not write the hub record: ${err.message}` }),
  );
  // Only now: a hub refused above (another one holds the socket) must not point the apps at its own port.
  void app.repairClients();
  const stopped: (() => void)[] = [];
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await socket?.close();
      await hub.stop();
      await recordHubStopped(options.paths).catch(() => undefined);
      await app.releaseFolder();
      for (const fn of stopped) fn();
    })());
  if (options.stdio) {
    const transport = new LineTransport(process.stdin, process.stdout, {
      // The one limit on what a client sends in a message, as on the bridge socket and over HTTP.
      maxMessageBytes: CLIENT_MESSAGE_MAX_BYTES,
      onNoise: (line) => hub.emit({ type: 'log', level: 'warn', message: `stdin: a line that is not JSON-RPC: ${line.slice(0, 200)}` }),
    });
    const session = await hub.connectSession(transport, 'stdio');
    const previous = session.server.onclose;
    session.server.onclose = () => {
      previous?.();
      void stop();
    };
  }
  return {
    hub,
    uiUrl: `${hub.endpoint.origin}/?token=${encodeURIComponent(hub.token)}`,
    socketPath: socket?.path,
    stop,
    onStopped: (fn) => stopped.push(fn),
  };
}

/** Builds and starts the app hub; a failed start is recorded (event log, hub.json) before it is thrown on. */
async function startAppHub(options: HeadlessOptions & { socketPath: string; takenPort?: number }): Promise<AppHub> {
  const app = await createAppHub(options);
  try {
    await app.hub.start();
    return app;
  } catch (err) {
    await app.hub.stop().catch(() => undefined);
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE' && options.portFallback && options.port !== 0) {
      // The retry keeps the data folder's lock (it is this process's); a retry that fails gives it up.
      const taken = (err as { port?: number }).port ?? options.port ?? app.hub.config.settings.port;
      const retry = await startAppHub({ ...options, port: 0, takenPort: taken }).catch(async (retryErr: unknown) => {
        await app.releaseFolder();
        throw retryErr;
      });
      retry.hub.emit({
        type: 'log',
        level: 'warn',
        message: `Port ${taken} is taken (another Spillway?); listening on ${retry.hub.url} for this run.`,
      });
      return retry;
    }
    await recordStartFailure(options.paths, err);
    await app.releaseFolder();
    throw err;
  }
}

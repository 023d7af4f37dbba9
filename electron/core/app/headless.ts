/**
 * Runs the hub without Electron: the endpoint, the control API and the UI over HTTP, the bridge socket
 * (`spillway bridge` connects there), and optionally one MCP session on this process's stdin/stdout
 * (`spillway serve --stdio`).
 */
import { tmpdir } from 'node:os';
import { attachSocketEndpoint, socketPathFor, type SocketEndpoint } from '../downstream/socket-endpoint.js';
import type { AppPaths } from '../files/app-paths.js';
import type { Hub } from '../hub.js';
import { LineTransport } from '../wire/line-transport.js';
import { createAppHub, type AppHubOptions } from './app-hub.js';

export interface HeadlessOptions {
  paths: AppPaths;
  port?: number;
  stdio?: boolean;
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  upstream?: AppHubOptions['upstream'];
  /** The bridge socket: its path (default socketPathFor the data dir), or false for none. */
  socket?: string | false;
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
  const app = await createAppHub(options);
  const { hub } = app;
  await hub.start();
  void app.repairClients();
  let socket: SocketEndpoint | undefined;
  if (options.socket !== false) {
    const path = options.socket ?? socketPathFor({ dataDir: options.paths.dataDir, platform: options.platform, tmpDir: tmpdir() });
    try {
      socket = await attachSocketEndpoint(hub, {
        path,
        platform: options.platform,
        onWarning: (message) => hub.emit({ type: 'log', level: 'warn', message }),
        onClient: app.noteClientSeen,
      });
    } catch (err) {
      // Two hubs on one data folder would share its token, spill store and ledger: refuse the second.
      await hub.stop();
      throw err;
    }
    hub.emit({ type: 'log', level: 'info', message: `Bridge socket at ${socket.path}` });
  }
  const stopped: (() => void)[] = [];
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await socket?.close();
      await hub.stop();
      for (const fn of stopped) fn();
    })());
  if (options.stdio) {
    const transport = new LineTransport(process.stdin, process.stdout, {
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

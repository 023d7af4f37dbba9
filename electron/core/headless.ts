/**
 * Runs the hub without Electron: the endpoint, the control API and the UI over HTTP, and optionally one
 * MCP session on this process's stdin/stdout (`spillway serve --stdio`).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { AppPaths } from './app-paths.js';
import { createAppHub, type AppHubOptions } from './app-hub.js';
import type { Hub } from './hub.js';

export interface HeadlessOptions {
  paths: AppPaths;
  port?: number;
  stdio?: boolean;
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  upstream?: AppHubOptions['upstream'];
}

export interface RunningHub {
  hub: Hub;
  /** The UI link with the token, to open in a browser. */
  uiUrl: string;
  stop(): Promise<void>;
  onStopped(fn: () => void): void;
}

export async function startHeadless(options: HeadlessOptions): Promise<RunningHub> {
  const { hub } = await createAppHub(options);
  await hub.start();
  const stopped: (() => void)[] = [];
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= hub.stop().then(() => {
      for (const fn of stopped) fn();
    }));
  if (options.stdio) {
    const transport = new StdioServerTransport();
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
    stop,
    onStopped: (fn) => stopped.push(fn),
  };
}

/**
 * Builds the complete hub the way both the desktop app and the headless CLI run it: core, control API
 * (HTTP + SSE, and the dispatcher the IPC binding uses), and the UI served over HTTP.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AppPaths } from './app-paths.js';
import { ControlDispatcher, hubHandlers, type HandlerMap } from './control/control-handlers.js';
import { createHttpControl } from './control/http-control.js';
import { Hub, type HubOptions } from './hub.js';
import { appRoot, appVersion } from './version.js';

export interface AppHubOptions {
  paths: AppPaths;
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  port?: number;
  useLoginShellPath?: boolean;
  upstream?: HubOptions['upstream'];
  /** Folder of the built renderer; defaults to dist/renderer beside the app. */
  uiDir?: string;
}

export interface AppHub {
  hub: Hub;
  dispatcher: ControlDispatcher;
}

export async function createAppHub(options: AppHubOptions): Promise<AppHub> {
  const hub = await Hub.create({
    paths: options.paths,
    version: appVersion(),
    platform: options.platform,
    env: options.env,
    port: options.port,
    useLoginShellPath: options.useLoginShellPath,
    upstream: options.upstream,
  });
  const handlers: HandlerMap = { ...hubHandlers(hub) };
  const dispatcher = new ControlDispatcher(handlers);
  const uiDir = options.uiDir ?? join(appRoot(), 'dist', 'renderer');
  hub.handleOther = createHttpControl({
    dispatcher,
    token: () => hub.token,
    subscribe: (fn) => hub.events.subscribe(fn),
    uiDir: existsSync(join(uiDir, 'index.html')) ? uiDir : undefined,
  });
  return { hub, dispatcher };
}

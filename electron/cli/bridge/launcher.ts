import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';

/** Starts the hub when none answers. The packaged app passes one that launches the app itself. */
export type HubLauncher = () => void | Promise<void>;

/**
 * Starts a hub for this data folder, detached so it outlives the bridge. Inside the packaged app
 * (ELECTRON_RUN_AS_NODE set) that is the app itself; in development `spillway serve` from this CLI.
 */
export function hubLauncher(options: { dataDir: string; execPath: string; script: string; env: NodeJS.ProcessEnv }): HubLauncher {
  return () => {
    const { ELECTRON_RUN_AS_NODE, ...env } = options.env;
    const out = openSync(join(options.dataDir, 'hub-autostart.log'), 'a', 0o600);
    try {
      const args = ELECTRON_RUN_AS_NODE ? [] : [options.script, 'serve', '--data-dir', options.dataDir];
      const child = spawn(options.execPath, args, {
        detached: true,
        stdio: ['ignore', out, out],
        env: { ...env, SPILLWAY_DATA_DIR: options.dataDir },
        windowsHide: true,
      });
      child.once('error', () => undefined);
      child.unref();
    } finally {
      closeSync(out);
    }
  };
}

/**
 * The app's own runtime, which runs installed npm packages so that no Node or npx is needed on the
 * computer: the executable this process runs on, as Node. In Electron that is the Electron binary, made
 * to act as Node by ELECTRON_RUN_AS_NODE=1, exactly as the stdio bridge is launched (electron/main/
 * shell-paths.ts bridgeLaunch); in the headless hub it is the Node it runs on, where the variable is
 * ignored.
 */
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { ServerConfig } from '../../../../shared/config.js';

export interface OwnRuntime {
  command: string;
  env: Record<string, string>;
}

/**
 * The command config.json holds for a server that runs on the app's own runtime, made this process's
 * executable each time the server starts (runtimeLaunch). Not the executable's path, which changes under
 * a saved config: from a Linux AppImage it is inside a mount (/tmp/.mount_XXXXXX) made anew at each run
 * and gone once the app quits, and a macOS app moved to another folder or a Windows app installed again
 * elsewhere runs from another path too. The word names no file, so whichever hub runs the config (the
 * app, or `spillway serve` on Node) runs the server on its own executable, wherever that is by then.
 */
export const OWN_RUNTIME_COMMAND = 'spillway-runtime';

const RUN_AS_NODE = 'ELECTRON_RUN_AS_NODE';

/** The app's own runtime, as configs name it. */
export function ownRuntime(command: string = OWN_RUNTIME_COMMAND): OwnRuntime {
  return { command, env: { [RUN_AS_NODE]: '1' } };
}

/** The command line that runs an installed package's program with the app's own runtime. */
export function ownRuntimeLaunch(
  runtime: OwnRuntime,
  script: string,
  packageArgs: string[],
  env: Record<string, string>,
): { type: 'stdio'; command: string; args: string[]; env: Record<string, string> } {
  return { type: 'stdio', command: runtime.command, args: [script, ...packageArgs], env: { ...env, ...runtime.env } };
}

/**
 * What starts a configured stdio server: OWN_RUNTIME_COMMAND becomes this process's executable, run as
 * Node whatever the config's variables say; any other command is left as it is.
 */
export function runtimeLaunch(
  command: string,
  env: Record<string, string>,
  execPath: string = process.execPath,
): { command: string; env: Record<string, string> } {
  return command === OWN_RUNTIME_COMMAND ? { command: execPath, env: { ...env, [RUN_AS_NODE]: '1' } } : { command, env };
}

/** This process's executable, and whether a file exists (tests give their own). */
export interface RuntimeFacts {
  execPath: string;
  exists(path: string): boolean;
}

const thisProcess: RuntimeFacts = { execPath: process.execPath, exists: existsSync };

/**
 * Whether a saved server runs on the app's runtime named by the executable's path, as versions before
 * OWN_RUNTIME_COMMAND saved it: it runs one of the data folder's installs (`runsInstall`) as Node (its
 * ELECTRON_RUN_AS_NODE may be a secret reference by now), with this executable or one that is gone (the
 * mount of an earlier AppImage run, an app moved or installed again since). Another executable that
 * still exists was chosen by someone, and stays.
 */
export function savedWithRuntimePath(config: ServerConfig, runsInstall: (config: ServerConfig) => boolean, facts = thisProcess): boolean {
  if (config.type !== 'stdio' || !Object.hasOwn(config.env, RUN_AS_NODE) || !isAbsolute(config.command)) return false;
  return runsInstall(config) && (config.command === facts.execPath || !facts.exists(config.command));
}

/**
 * Saves the servers savedWithRuntimePath finds with OWN_RUNTIME_COMMAND, as the hub starts; `update` is
 * the control operation behind `upstreams.update` (it restarts a server already started). One that
 * cannot be saved now is tried again at the next start.
 */
export function repairRuntimeCommands(
  configs: Readonly<Record<string, ServerConfig>>,
  runsInstall: (config: ServerConfig) => boolean,
  update: (req: { id: string; change(current: ServerConfig): ServerConfig }) => Promise<unknown>,
  facts = thisProcess,
): Promise<string[]> {
  const stale = Object.entries(configs).flatMap(([id, config]) => (savedWithRuntimePath(config, runsInstall, facts) ? [id] : []));
  const change = (current: ServerConfig): ServerConfig =>
    current.type === 'stdio' && savedWithRuntimePath(current, runsInstall, facts) ? { ...current, command: OWN_RUNTIME_COMMAND } : current;
  return Promise.all(
    stale.map((id) =>
      update({ id, change }).then(
        () => [id],
        () => [],
      ),
    ),
  ).then((repaired) => repaired.flat());
}

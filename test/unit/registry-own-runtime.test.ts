/**
 * What config.json holds for a server installed from the catalog (npm package or MCPB bundle) and run on
 * the app's own runtime: a name for the runtime, made this process's executable when the server starts,
 * so that it survives the executable moving — a Linux AppImage's mount (/tmp/.mount_XXXXXX) is new at
 * each run and gone once the app quits, a macOS or Windows app may be moved or installed elsewhere.
 * Servers an earlier version saved with the executable's path are saved with the name as the hub starts.
 */
import { describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../shared/config.js';
import {
  OWN_RUNTIME_COMMAND,
  ownRuntime,
  ownRuntimeLaunch,
  repairRuntimeCommands,
  runtimeLaunch,
  savedWithRuntimePath,
} from '../../electron/core/registry/install/own-runtime.js';

const script = '/home/u/.config/Spillway/packages/x@1.0.0/node_modules/x/cli.js';
const runsInstall = (config: ServerConfig) => config.type === 'stdio' && config.args[0] === script;
const stdio = (command: string, env: Record<string, string> = { ELECTRON_RUN_AS_NODE: '1' }, args = [script]): ServerConfig => ({
  type: 'stdio',
  command,
  args,
  env,
  enabled: true,
  prefix: true,
});
const appImageRun = { execPath: '/tmp/.mount_SpillwNew456/spillway', exists: (path: string) => path.startsWith('/tmp/.mount_SpillwNew456/') };

describe('the runtime in a saved config', () => {
  it('an installed package is saved with the runtime’s name, nothing inside a mount', () => {
    const launch = ownRuntimeLaunch(ownRuntime(), script, ['--flag'], { KEY: 'v' });
    expect(launch).toEqual({ type: 'stdio', command: OWN_RUNTIME_COMMAND, args: [script, '--flag'], env: { KEY: 'v', ELECTRON_RUN_AS_NODE: '1' } });
    expect(JSON.stringify(launch)).not.toContain(process.execPath);
  });

  it('the name starts the executable this process runs on, as Node', () => {
    expect(runtimeLaunch(OWN_RUNTIME_COMMAND, { KEY: 'v' }, appImageRun.execPath)).toEqual({
      command: appImageRun.execPath,
      env: { KEY: 'v', ELECTRON_RUN_AS_NODE: '1' },
    });
    expect(runtimeLaunch(OWN_RUNTIME_COMMAND, {})).toEqual({ command: process.execPath, env: { ELECTRON_RUN_AS_NODE: '1' } });
    // Any other command is left as configured.
    expect(runtimeLaunch('npx', { KEY: 'v' }, appImageRun.execPath)).toEqual({ command: 'npx', env: { KEY: 'v' } });
  });
});

describe('servers saved with the executable’s path by an earlier version', () => {
  it('found when the path is gone (an earlier AppImage run’s mount, an app moved) or is this executable', () => {
    expect(savedWithRuntimePath(stdio('/tmp/.mount_SpillwOld123/spillway'), runsInstall, appImageRun)).toBe(true);
    expect(savedWithRuntimePath(stdio(appImageRun.execPath), runsInstall, appImageRun)).toBe(true);
    // The variable's value may be a reference to the secret store by now.
    expect(savedWithRuntimePath(stdio('/tmp/.mount_SpillwOld123/spillway', { ELECTRON_RUN_AS_NODE: '<secret>' }), runsInstall, appImageRun)).toBe(
      true,
    );
  });

  it('left alone: another executable that exists, a server that is not an install, one not run as Node, the name itself', () => {
    const exists = { ...appImageRun, exists: () => true };
    expect(savedWithRuntimePath(stdio('/usr/local/bin/node'), runsInstall, exists)).toBe(false);
    expect(savedWithRuntimePath(stdio('/tmp/.mount_SpillwOld123/spillway', undefined, ['/elsewhere/cli.js']), runsInstall, appImageRun)).toBe(false);
    expect(savedWithRuntimePath(stdio('/tmp/.mount_SpillwOld123/spillway', {}), runsInstall, appImageRun)).toBe(false);
    expect(savedWithRuntimePath(stdio(OWN_RUNTIME_COMMAND), runsInstall, appImageRun)).toBe(false);
  });

  it('saves those with the runtime’s name, through the update that restarts them; a failed save is left for the next start', async () => {
    const configs: Record<string, ServerConfig> = {
      old: stdio('/tmp/.mount_SpillwOld123/spillway'),
      refused: stdio('/tmp/.mount_SpillwOld999/spillway'),
      mine: stdio('/usr/local/bin/node'),
      named: stdio(OWN_RUNTIME_COMMAND),
    };
    const saved: Record<string, ServerConfig> = {};
    const repaired = await repairRuntimeCommands(
      configs,
      runsInstall,
      async ({ id, change }) => {
        if (id === 'refused') throw new Error('the config file could not be written');
        saved[id] = change(configs[id]!);
      },
      { ...appImageRun, exists: (path) => path === '/usr/local/bin/node' },
    );
    expect(repaired).toEqual(['old']);
    expect(saved).toEqual({ old: { ...configs.old, command: OWN_RUNTIME_COMMAND } });
  });
});

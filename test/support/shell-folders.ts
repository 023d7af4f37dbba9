/**
 * The folders of one electron-shell test (with shell-run.ts's steps): a temp folder holding HOME, the
 * config file and the data folder, the shell pointed at them, and all of it undone at the end.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ElectronDouble } from './electron-double.js';
import { ROOT } from './hub-harness.js';
import { pointShellAt, quitApp, restoreEnv } from './shell-run.js';

export interface ShellFolders {
  /** The temp folder that holds the others. */
  tmp: string;
  home: string;
  /** Not made: the shell's first start makes it. */
  dataDir: string;
  configFile: string;
  /** Quits the app unless it has exited, puts process.env and process.argv back as they were before, and removes the temp folder. */
  end(electron: ElectronDouble | undefined): Promise<void>;
}

/**
 * A new temp folder `spillway-shell-<name>-…` with `home` made in it, `config.json` holding `config`, and
 * the data folder at `dataDir` inside it (default `data`); the shell is pointed at them (pointShellAt).
 * `argv` is added to process.argv (the shell's own command line, e.g. `--hidden`) until `end`.
 */
export async function shellFolders(name: string, config: unknown, options: { dataDir?: string; argv?: string[] } = {}): Promise<ShellFolders> {
  const savedEnv = { ...process.env };
  const savedArgv = [...process.argv];
  const tmp = await mkdtemp(join(tmpdir(), `spillway-shell-${name}-`));
  const home = join(tmp, 'home');
  await mkdir(home);
  const configFile = join(tmp, 'config.json');
  await writeFile(configFile, JSON.stringify(config));
  const dataDir = join(tmp, options.dataDir ?? 'data');
  pointShellAt({ dataDir, configFile, home });
  process.argv.push(...(options.argv ?? []));
  return {
    tmp,
    home,
    dataDir,
    configFile,
    async end(electron) {
      await quitApp(electron);
      restoreEnv(savedEnv);
      process.argv.splice(0, process.argv.length, ...savedArgv);
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

/** A config with one server, `fx`: test/fixtures/fixture-server.mjs with `args`; the hub listens on `port`. */
export const fixtureServerConfig = (port: number, args: string[] = []) => ({
  version: 1,
  settings: { port },
  servers: { fx: { type: 'stdio', command: process.execPath, args: [join(ROOT, 'test/fixtures/fixture-server.mjs'), ...args] } },
});

/**
 * What the npm and the bundle installers share: a folder of installs in the data folder (each built in a
 * `.installing-*` folder beside them and renamed into place), cleaned of what an interrupted install
 * left as the hub starts, and the runtime that runs them.
 */
import { join } from 'node:path';
import type { ServerConfig } from '../../../../shared/config.js';
import { ownRuntime, type OwnRuntime } from './own-runtime.js';
import { cleanInterruptedInstalls, removeUnusedInstalls } from './package-folders.js';
import { ServerRecord } from './server-records.js';

export abstract class InstallsFolder {
  readonly runtime: OwnRuntime;
  /** The folders an interrupted install had left, removed when this installer was made. */
  readonly cleaned: string[];
  /**
   * The install (folder) each server ran before its last Update (`<dir>-previous.json`), kept so it can
   * go back to it: counted as in use when the hub starts, one per server.
   */
  readonly previous: ServerRecord;
  /** The folder an Update switched a server to that was not yet seen starting (the hub stopped first; `-unconfirmed.json`). */
  readonly unconfirmed: ServerRecord;
  /** The version (`name@version`) an Update of a server went back from: not offered to it again (`-failed.json`). */
  readonly failed: ServerRecord;
  /** The servers an Update is switching and watching now (registry-update.ts): one Update of each at a time. */
  readonly updating = new Set<string>();

  constructor(
    readonly dir: string,
    runtime: OwnRuntime | undefined,
  ) {
    this.runtime = runtime ?? ownRuntime();
    this.cleaned = cleanInterruptedInstalls(dir);
    this.previous = new ServerRecord(dir, 'previous');
    this.unconfirmed = new ServerRecord(dir, 'unconfirmed');
    this.failed = new ServerRecord(dir, 'failed');
  }

  /** The install folder a server runs from, when it runs one of these installs. */
  protected abstract folderOf(config: ServerConfig): string | undefined;

  /** Whether a folder's name is an install's (anything else in the folder is left alone). */
  protected abstract isInstall(name: string): boolean;

  /**
   * Removes the installs none of `configs` runs (one downloaded for a form that was then cancelled, a
   * server removed, an update's version older than the one before); the folders removed. The version
   * each of these servers ran before its last Update stays (`configs`: by server id).
   */
  async removeUnused(configs: Readonly<Record<string, ServerConfig>>): Promise<string[]> {
    const ids = new Set(Object.keys(configs));
    const kept = await this.previous.keptFor(ids);
    // The other records of servers no longer in the config go too (a server added again under its id starts afresh).
    await Promise.all([this.unconfirmed.keptFor(ids), this.failed.keptFor(ids)]);
    const used = new Set([...this.usedFolders(Object.values(configs)), ...kept]);
    return removeUnusedInstalls(this.dir, (name) => this.isInstall(name), used);
  }

  /**
   * Forgets the records of the updates of server `id` (a server added under the id of one removed starts
   * afresh: the version that one's Update went back from is offered to it). One that cannot be written stays.
   */
  async forgetUpdates(id: string): Promise<void> {
    await Promise.all([this.previous, this.unconfirmed, this.failed].map((record) => record.set(id, undefined).catch(() => undefined)));
  }

  /**
   * Removes one install (an update's old version) when none of `configs` runs it — another server added
   * from the same package may still run it — decided as removeUnused decides; whether it was removed.
   */
  async removeIfUnused(folder: string, configs: Iterable<ServerConfig>): Promise<boolean> {
    const used = new Set([...this.usedFolders(configs), ...Object.values(await this.previous.read())]);
    const removed = await removeUnusedInstalls(this.dir, (name) => this.isInstall(name) && join(this.dir, name) === folder, used);
    return removed.length > 0;
  }

  /** The folders `configs` run from. */
  private usedFolders(configs: Iterable<ServerConfig>): Set<string> {
    return new Set([...configs].flatMap((config) => this.folderOf(config) ?? []));
  }
}

/** Removes the installs no server of `configs` uses, as the hub starts, telling `onRemoved` what went. */
export function removeUnusedAtStart(
  installs: InstallsFolder[],
  configs: Readonly<Record<string, ServerConfig>>,
  onRemoved?: (folders: string[]) => void,
): void {
  void Promise.all(installs.map((folder) => folder.removeUnused(configs))).then(
    (removed) => {
      if (removed.flat().length > 0) onRemoved?.(removed.flat());
    },
    () => undefined, // tried again at the next start
  );
}

/**
 * The install each server ran before its last Update (`<data>/packages-previous.json`, and
 * `bundles-previous.json`: server id → folder): kept, and counted as in use when the hub starts, so an
 * update that turns out bad can go back to it. One per server; a server no longer in the config loses its
 * entry at the next start. Beside the installs folder, not in it: that folder holds installs only.
 * The same kind of record, under another name, holds an update not yet seen starting (`-unconfirmed`)
 * and the version that did not start, not offered again (`-failed`).
 */
import { mkdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { writeAtomically } from '../../files/atomic-file.js';

export class PreviousInstalls {
  #queue: Promise<unknown> = Promise.resolve();

  readonly #file: string;

  /** The record `kind` of the installs folder `dir` (`<dir>-<kind>.json`). */
  constructor(dir: string, kind = 'previous') {
    this.#file = join(dirname(dir), `${basename(dir)}-${kind}.json`);
  }

  /** Server id → its value, the folder it ran before its last update here (an unreadable record counts as empty). */
  async read(): Promise<Record<string, string>> {
    try {
      const parsed: unknown = JSON.parse(await readFile(this.#file, 'utf8'));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
      return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
    } catch {
      return {};
    }
  }

  /** Records (or, with no value, forgets) the install `id` ran before; one change at a time. */
  set(id: string, folder: string | undefined): Promise<void> {
    return this.#change((record) => {
      const { [id]: _old, ...rest } = record;
      return folder === undefined ? rest : { ...rest, [id]: folder };
    });
  }

  /** The folders kept for the servers in `ids`; the entries of any other server are forgotten. */
  async keptFor(ids: ReadonlySet<string>): Promise<string[]> {
    let kept: string[] = [];
    await this.#change((record) => {
      const still = Object.entries(record).filter(([id]) => ids.has(id));
      kept = still.map(([, folder]) => folder);
      return Object.fromEntries(still);
    });
    return kept;
  }

  #change(edit: (record: Record<string, string>) => Record<string, string>): Promise<void> {
    const run = this.#queue.then(async () => {
      const before = await this.read();
      const after = edit(before);
      if (JSON.stringify(after) === JSON.stringify(before)) return;
      await mkdir(dirname(this.#file), { recursive: true });
      await writeAtomically(this.#file, Buffer.from(JSON.stringify(after, null, 2)));
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

/**
 * A small JSON record beside an installs folder: server id → one string (`<dir>-<kind>.json`, e.g.
 * `packages-previous.json` beside `packages/`). Beside the folder, not in it: that folder holds installs
 * only. The installs folder keeps three (installs-folder.ts): the install each server ran before its
 * last Update, an Update not yet seen starting, and the version an Update went back from. Changes are
 * made one at a time and written atomically; a server no longer in the config loses its entry (keptFor).
 */
import { mkdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { writeAtomically } from '../../files/atomic-file.js';

export class ServerRecord {
  #queue: Promise<unknown> = Promise.resolve();

  readonly #file: string;

  /** The record `kind` of the installs folder `dir` (`<dir>-<kind>.json`). */
  constructor(dir: string, kind: string) {
    this.#file = join(dirname(dir), `${basename(dir)}-${kind}.json`);
  }

  /** Server id → its value (an unreadable record counts as empty). */
  async read(): Promise<Record<string, string>> {
    try {
      const parsed: unknown = JSON.parse(await readFile(this.#file, 'utf8'));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
      return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
    } catch {
      return {};
    }
  }

  /** Records (or, with no value, forgets) the value of server `id`; one change at a time. */
  set(id: string, value: string | undefined): Promise<void> {
    return this.#change((record) => {
      const { [id]: _old, ...rest } = record;
      return value === undefined ? rest : { ...rest, [id]: value };
    });
  }

  /** The values kept for the servers in `ids`; the entries of any other server are forgotten. */
  async keptFor(ids: ReadonlySet<string>): Promise<string[]> {
    let kept: string[] = [];
    await this.#change((record) => {
      const still = Object.entries(record).filter(([id]) => ids.has(id));
      kept = still.map(([, value]) => value);
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

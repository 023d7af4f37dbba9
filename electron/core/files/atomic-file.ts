/**
 * One file written atomically (temp file + rename), one write at a time. Saves asked for while a write
 * is waiting share it, and the text is rendered when that write starts, so it holds the newest state.
 * The config file, client tokens, tool pins and the spill index all save this way.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';

export interface AtomicFileOptions {
  /** File mode for a new file (e.g. 0o600 for secrets). */
  mode?: number;
  /** Runs before each write, after the folder exists (e.g. a one-time backup). */
  beforeWrite?: () => Promise<void>;
}

export class AtomicFile {
  #write: Promise<void> = Promise.resolve();
  #queued = false;

  constructor(
    readonly path: string,
    private readonly render: () => string,
    private readonly options: AtomicFileOptions = {},
  ) {}

  /** Resolves when a write that includes the state as of this call is on disk; rejects if it failed. */
  save(): Promise<void> {
    if (this.#queued) return this.#write;
    this.#queued = true;
    this.#write = this.#write
      .catch(() => undefined)
      .then(async () => {
        this.#queued = false;
        await mkdir(dirname(this.path), { recursive: true });
        await this.options.beforeWrite?.();
        await writeFileAtomic(this.path, this.render(), this.options.mode === undefined ? {} : { mode: this.options.mode });
      });
    return this.#write;
  }

  /** Resolves when the last write asked for has finished (whether or not it succeeded). */
  settled(): Promise<void> {
    return this.#write.catch(() => undefined);
  }
}

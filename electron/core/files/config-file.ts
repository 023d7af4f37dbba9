/**
 * The config file: read and validated with the shared schema, written atomically in the format conf and
 * electron-store use. An invalid file is never rewritten; a file that was not in Spillway's own form (an
 * `mcpServers` file, an older version) is backed up before the first write, its secret values masked.
 *
 * The hub reads the file once, at start, and saves its own copy on every change. A save first checks that
 * the file still holds what was last loaded or written: an edit made by hand meanwhile (or a file broken
 * by one) is never written over; the save is refused instead (ConfigChangedError), and the edit stays.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError, defaultConfig, parseConfig, serializeConfig, type Config } from '../../../shared/config.js';
import { removeStaleTemps, writeAtomically } from './atomic-file.js';

/**
 * A save refused because the file changed on disk since it was loaded or saved (an edit by hand, another
 * program): writing would undo that edit. The control API answers it as a conflict (matched by name).
 */
export class ConfigChangedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigChangedError';
  }
}

/** Identifies the bytes of a file; null: no file. */
const fingerprint = (bytes: Buffer | null): string | null => (bytes === null ? null : createHash('sha256').update(bytes).digest('hex'));

async function readIfThere(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export interface ConfigFileOptions {
  /**
   * The text of `original` with its secret values masked, or undefined when it holds none: what the
   * backup of a file not in Spillway's own form keeps (secrets/mask-config-secrets.ts; passed in, as this
   * folder knows no secret shapes).
   */
  maskSecrets: (original: string) => string | undefined;
  now?: () => Date;
}

export class ConfigFile {
  #foreign = false;
  #backedUp = false;
  #current: Config | undefined;
  /** The fingerprint of the file as last loaded or written by this object (null: there was none). */
  #known: string | null | undefined;
  #write: Promise<void> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly options: ConfigFileOptions,
  ) {}

  /** The config in force: the one loaded, then each one saved once it is on disk. */
  get current(): Config {
    if (!this.#current) throw new Error(`${this.path} has not been loaded`);
    return this.#current;
  }

  /**
   * Loads the config; a missing file gives the defaults. Throws ConfigError naming the field and file.
   * Temp files an interrupted save left beside it are removed first.
   */
  async load(): Promise<Config> {
    await removeStaleTemps(this.path);
    const bytes = await readIfThere(this.path);
    if (bytes === null) {
      this.#known = null;
      return (this.#current = defaultConfig());
    }
    const { config, foreign } = parseConfig(bytes.toString('utf8'), this.path);
    this.#known = fingerprint(bytes);
    this.#foreign = foreign;
    return (this.#current = config);
  }

  /**
   * Writes atomically (temp file + rename), one write at a time, in the order asked: the newest config
   * saved wins. Rejects with ConfigChangedError, writing nothing, when the file changed behind this object.
   */
  save(config: Config): Promise<void> {
    const write = this.#write.catch(() => undefined).then(() => this.#writeNow(config));
    this.#write = write;
    return write;
  }

  async #writeNow(config: Config): Promise<void> {
    if (this.#known === undefined) throw new Error(`${this.path} has not been loaded`);
    await mkdir(dirname(this.path), { recursive: true });
    const onDisk = await readIfThere(this.path);
    // A file removed meanwhile has no edit to keep: it is written again.
    if (onDisk !== null && fingerprint(onDisk) !== this.#known) this.#refuse(onDisk);
    if (onDisk !== null) await this.#backupOnce(onDisk);
    const text = Buffer.from(serializeConfig(config), 'utf8');
    await writeAtomically(this.path, text, 0o600);
    this.#known = fingerprint(text);
    this.#current = config;
  }

  #refuse(onDisk: Buffer): never {
    try {
      parseConfig(onDisk.toString('utf8'), this.path);
    } catch (err) {
      const problem = err instanceof ConfigError ? err.message : String(err);
      throw new ConfigChangedError(
        `This change was not saved: ${this.path} was edited outside Spillway and can no longer be read (${problem}). ` +
          'Your edit is left as it is: correct it, then restart Spillway and make the change again.',
      );
    }
    throw new ConfigChangedError(
      `This change was not saved: ${this.path} was changed outside Spillway since Spillway read it, and saving would undo that edit. ` +
        'Restart Spillway to pick up the edit, then make the change again.',
    );
  }

  /**
   * A file that was not in Spillway's own form keeps a copy of its original before the first write, with
   * its secret values masked: they move into the secret store, and the copy is not removed.
   */
  async #backupOnce(original: Buffer): Promise<void> {
    if (!this.#foreign || this.#backedUp) return;
    const stamp = (this.options.now?.() ?? new Date()).toISOString().replace(/[:.]/g, '-');
    const masked = this.options.maskSecrets(original.toString('utf8'));
    await writeAtomically(`${this.path}.${stamp}.bak`, masked === undefined ? original : Buffer.from(masked, 'utf8'), 0o600);
    this.#backedUp = true;
  }
}

/**
 * The config file: read and validated with the shared schema, written atomically in the format conf and
 * electron-store use. An invalid file is never rewritten; a file that was not in Spillway's own form (an
 * `mcpServers` file, an older version) is backed up before the first write, its secret values masked.
 *
 * The hub reads the file once, at start, and saves its own copy on every change. A save first checks that
 * the file still holds what was last loaded or written: an edit made by hand meanwhile (or a file broken
 * by one) is never written over; the save is refused instead (ConfigChangedError), and the edit stays.
 *
 * Keys of the file Spillway does not know (a typo, a newer Spillway's setting) stay out of the config in
 * force and are written back at each save (shared/config-unknown-keys.ts). A save the disk refuses (full,
 * read-only, no permission) says so in words, naming the folder (ConfigSaveError); the file stays as it was.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError, defaultConfig, parseConfig, serializeConfig, type Config, type UnknownKey } from '../../../shared/config.js';
import { withUnknownKeys } from '../../../shared/config-unknown-keys.js';
import { removeStaleTemps, writeAtomically } from './atomic-file.js';
import { diskProblem, errorCode } from './disk-problem.js';

/**
 * A save refused because the file changed on disk since it was loaded or saved (an edit by hand, another
 * program): writing would undo that edit. The control API answers it as `unavailable`, saying to restart Spillway (matched by name).
 */
export class ConfigChangedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigChangedError';
  }
}

/**
 * A save the disk refused (full, over quota, read-only, no permission), in words with the next step; the
 * file is left as it was. Named like a client's config file that cannot be written, so the control API
 * answers both alike (`unavailable`, matched by name).
 */
export class ConfigSaveError extends Error {
  override readonly name = 'ConfigWriteError';
}

/** A disk problem as a settings save says it: the config file's own folder may need another data folder or access to config.json. */
function configDiskProblem(err: unknown, folder: string): string | undefined {
  const code = errorCode(err);
  const said = diskProblem(code, folder);
  if (!said) return undefined;
  const next =
    code === 'EROFS'
      ? `${said.next} (or choose another data folder)`
      : code === 'EACCES' || code === 'EPERM'
        ? `${said.next} and its config.json`
        : said.next;
  return `${said.problem}. ${next}, then make the change again`;
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
  /** Writes the file (and the backup); a test may hand in one that fails as a full disk does. */
  write?: (file: string, data: Buffer, mode: number) => Promise<void>;
}

export class ConfigFile {
  #foreign = false;
  #backedUp = false;
  #current: Config | undefined;
  /** Keys of the file Spillway does not know, written back at each save. */
  #unknown: UnknownKey[] = [];
  #warnings: string[] = [];
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

  /** The keys of the file Spillway does not know, as the next save writes them back (a removed server's are gone). */
  get unknown(): readonly UnknownKey[] {
    return this.#unknown;
  }

  /** One sentence for each key of the file Spillway does not know, as of the last load: to log. */
  get warnings(): readonly string[] {
    return this.#warnings;
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
      this.#unknown = [];
      this.#warnings = [];
      return (this.#current = defaultConfig());
    }
    const { config, foreign, unknown, warnings } = parseConfig(bytes.toString('utf8'), this.path);
    this.#known = fingerprint(bytes);
    this.#foreign = foreign;
    this.#unknown = unknown;
    this.#warnings = warnings;
    return (this.#current = config);
  }

  /**
   * Writes atomically (temp file + rename), one write at a time, in the order asked: the newest config
   * saved wins. Rejects with ConfigChangedError, writing nothing, when the file changed behind this object.
   * `restored`: unknown keys to write back too, from then on (a removed server's, when Undo puts it back).
   */
  save(config: Config, restored: readonly UnknownKey[] = []): Promise<void> {
    const write = this.#write.catch(() => undefined).then(() => this.#writeNow(config, restored));
    this.#write = write;
    return write;
  }

  async #writeNow(config: Config, restored: readonly UnknownKey[]): Promise<void> {
    if (this.#known === undefined) throw new Error(`${this.path} has not been loaded`);
    await this.#saying(async () => {
      await mkdir(dirname(this.path), { recursive: true });
    });
    const onDisk = await readIfThere(this.path);
    // A file removed meanwhile has no edit to keep: it is written again.
    if (onDisk !== null && fingerprint(onDisk) !== this.#known) this.#refuse(onDisk);
    if (onDisk !== null) await this.#saying(() => this.#backupOnce(onDisk));
    // The unknown keys of a server removed (or now known) are not kept for a later one of the same name.
    const { value, placed } = withUnknownKeys(config, [...this.#unknown, ...restored]);
    const text = Buffer.from(serializeConfig(value), 'utf8');
    await this.#saying(() => this.#writeFile(this.path, text, 0o600));
    this.#known = fingerprint(text);
    this.#unknown = placed;
    this.#current = config;
  }

  #writeFile(file: string, data: Buffer, mode: number): Promise<void> {
    return (this.options.write ?? writeAtomically)(file, data, mode);
  }

  /** Runs a write; an error of the disk (full, read-only, no permission) becomes a ConfigSaveError in words. */
  async #saying(write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (err) {
      const problem = configDiskProblem(err, dirname(this.path));
      if (problem === undefined) throw err;
      throw new ConfigSaveError(`This change was not saved: ${problem}. ${this.path} is left as it was.`, { cause: err });
    }
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
    await this.#writeFile(`${this.path}.${stamp}.bak`, masked === undefined ? original : Buffer.from(masked, 'utf8'), 0o600);
    this.#backedUp = true;
  }
}

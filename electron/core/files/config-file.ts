/**
 * The config file: read and validated with the shared schema, written atomically in the format conf and
 * electron-store use. An invalid file is never rewritten; a file that was not in Spillway's own form (an
 * `mcpServers` file, an older version) is backed up before the first write.
 */
import { copyFile, readFile } from 'node:fs/promises';
import { defaultConfig, parseConfig, serializeConfig, type Config } from '../../../shared/config.js';
import { AtomicFile, removeStaleTemps } from './atomic-file.js';

export class ConfigFile {
  #foreign = false;
  #backedUp = false;
  #latest: Config | undefined;
  #current: Config | undefined;
  readonly #file: AtomicFile;

  constructor(
    readonly path: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.#file = new AtomicFile(path, () => serializeConfig(this.#latest!), { mode: 0o600, beforeWrite: () => this.#backupOnce() });
  }

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
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return (this.#current = defaultConfig());
      throw err;
    }
    const { config, foreign } = parseConfig(text, this.path);
    this.#foreign = foreign;
    return (this.#current = config);
  }

  /** Writes atomically (temp file + rename), one write at a time; the newest config saved wins. */
  async save(config: Config): Promise<void> {
    this.#latest = config;
    await this.#file.save();
    this.#current = config;
  }

  /** A file that was not in Spillway's own form keeps a copy of its original before the first write. */
  async #backupOnce(): Promise<void> {
    if (!this.#foreign || this.#backedUp) return;
    const stamp = this.now().toISOString().replace(/[:.]/g, '-');
    await copyFile(this.path, `${this.path}.${stamp}.bak`).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    this.#backedUp = true;
  }
}

/**
 * The config file: read and validated with the shared schema, written atomically in the format conf and
 * electron-store use. An invalid file is never rewritten; a file that was not in Spillway's own form (an
 * `mcpServers` file, an older version) is backed up before the first write.
 */
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { defaultConfig, parseConfig, serializeConfig, type Config } from '../../shared/config.js';

export class ConfigFile {
  #foreign = false;
  #backedUp = false;
  #writes: Promise<void> = Promise.resolve();

  constructor(readonly path: string, private readonly now: () => Date = () => new Date()) {}

  /** Loads the config; a missing file gives the defaults. Throws ConfigError naming the field and file. */
  async load(): Promise<Config> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return defaultConfig();
      throw err;
    }
    const { config, foreign } = parseConfig(text, this.path);
    this.#foreign = foreign;
    return config;
  }

  /** Writes atomically (temp file + rename), one write at a time, in call order. */
  save(config: Config): Promise<void> {
    const run = async () => {
      await mkdir(dirname(this.path), { recursive: true });
      if (this.#foreign && !this.#backedUp) {
        const stamp = this.now().toISOString().replace(/[:.]/g, '-');
        await copyFile(this.path, `${this.path}.${stamp}.bak`).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT') throw err;
        });
        this.#backedUp = true;
      }
      await writeFileAtomic(this.path, serializeConfig(config), { mode: 0o600 });
    };
    const next = this.#writes.then(run, run);
    this.#writes = next.catch(() => undefined);
    return next;
  }
}

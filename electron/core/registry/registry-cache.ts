/**
 * Registry answers kept in the data folder (`<dataDir>/registry-cache/`), one file per request URL,
 * written atomically, so that browsing works offline with a "cached, from <time>" notice.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeAtomically } from '../files/atomic-file.js';

export interface CachedAnswer {
  url: string;
  /** When the answer was received (ISO time). */
  at: string;
  body: unknown;
}

export class RegistryCache {
  constructor(
    readonly dir: string,
    private readonly now: () => number = Date.now,
  ) {}

  #file(url: string): string {
    return join(this.dir, `${createHash('sha256').update(url).digest('hex').slice(0, 32)}.json`);
  }

  /** Keeps an answer; a failed write only costs the offline copy, so it is swallowed. */
  async put(url: string, body: unknown): Promise<void> {
    const entry: CachedAnswer = { url, at: new Date(this.now()).toISOString(), body };
    try {
      await mkdir(this.dir, { recursive: true });
      await writeAtomically(this.#file(url), Buffer.from(JSON.stringify(entry), 'utf8'));
    } catch {
      // a full or read-only disk: browsing still works online
    }
  }

  /** The last answer kept for this URL, if any (a damaged file counts as none). */
  async get(url: string): Promise<CachedAnswer | undefined> {
    try {
      const entry = JSON.parse(await readFile(this.#file(url), 'utf8')) as Partial<CachedAnswer>;
      if (entry.url !== url || typeof entry.at !== 'string') return undefined;
      return { url, at: entry.at, body: entry.body };
    } catch {
      return undefined;
    }
  }
}

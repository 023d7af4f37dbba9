/**
 * Registry answers kept in the data folder (`<dataDir>/registry-cache/`), one file per request URL,
 * written atomically, so that browsing works offline with a "cached, from <time>" notice (keptWhen).
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile } from 'node:fs/promises';
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
    const entry = await readAnswer(this.#file(url));
    return entry?.url === url ? entry : undefined;
  }

  /** Every kept answer whose URL is wanted (offline search reads all the list pages kept). */
  async answers(wanted: (url: string) => boolean): Promise<CachedAnswer[]> {
    const names = await readdir(this.dir).catch(() => []);
    const found: CachedAnswer[] = [];
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      const entry = await readAnswer(join(this.dir, name));
      if (entry && wanted(entry.url)) found.push(entry);
    }
    return found;
  }
}

/** A kept answer's file, or undefined when it is missing or damaged. */
async function readAnswer(file: string): Promise<CachedAnswer | undefined> {
  try {
    const entry = JSON.parse(await readFile(file, 'utf8')) as Partial<CachedAnswer>;
    if (typeof entry.url !== 'string' || typeof entry.at !== 'string') return undefined;
    return { url: entry.url, at: entry.at, body: entry.body };
  } catch {
    return undefined;
  }
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * When an answer was kept, in this computer's local time and plain words: "today at 07:21",
 * "yesterday at 18:05", else "25 Nov 2026 at 07:21" (never the ISO stamp the cache stores).
 */
export function keptWhen(at: string, now: number): string {
  const then = new Date(at);
  if (Number.isNaN(then.getTime())) return 'an earlier visit';
  const clock = `${String(then.getHours()).padStart(2, '0')}:${String(then.getMinutes()).padStart(2, '0')}`;
  const day = (d: Date) => `${d.getFullYear()}-${d.getMonth()}-${d.getDate()}`;
  const today = new Date(now);
  const yesterday = new Date(today.getFullYear(), today.getMonth(), today.getDate() - 1);
  if (day(then) === day(today)) return `today at ${clock}`;
  if (day(then) === day(yesterday)) return `yesterday at ${clock}`;
  return `${then.getDate()} ${MONTHS[then.getMonth()]} ${then.getFullYear()} at ${clock}`;
}

/**
 * The on-disk shape shared by the event log and the ledger: JSON-lines files named
 * `<name>[-YYYY-MM-DD][.N].jsonl`. Segment 0 of a day has no `.N`; a segment that reaches its size limit
 * is followed by `.1`, `.2`, ... so files are only ever appended to, never renamed.
 * Reading skips any line that is not complete JSON, which is how a torn last line (crash mid-write) is
 * ignored instead of corrupting what follows.
 */
import { createReadStream, openSync, fstatSync, readSync, closeSync, readdirSync } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface JournalSegment {
  /** File name inside the journal's folder. */
  file: string;
  path: string;
  /** UTC day `YYYY-MM-DD` for daily journals. */
  day?: string;
  /** 0 for the first file of a day (or of a non-daily journal). */
  index: number;
}

const NAME_RE = /^[a-z][a-z0-9-]*$/;

/** Checks a journal name once, so it can be used in a file pattern unescaped. */
export function assertJournalName(name: string): void {
  if (!NAME_RE.test(name)) throw new Error(`invalid journal name "${name}" (expected lower-case letters, digits, -)`);
}

export function segmentFileName(name: string, day: string | undefined, index: number): string {
  return `${name}${day ? `-${day}` : ''}${index > 0 ? `.${index}` : ''}.jsonl`;
}

/** Parses a file name of journal `name`; undefined for anything else in the folder. */
export function parseSegmentFileName(name: string, daily: boolean, file: string): { day?: string; index: number } | undefined {
  const re = daily ? new RegExp(`^${name}-(\\d{4}-\\d{2}-\\d{2})(?:\\.(\\d+))?\\.jsonl$`) : new RegExp(`^${name}(?:\\.(\\d+))?\\.jsonl$`);
  const m = re.exec(file);
  if (!m) return undefined;
  if (daily) return { day: m[1], index: m[2] ? Number(m[2]) : 0 };
  return { index: m[1] ? Number(m[1]) : 0 };
}

function toSegments(dir: string, name: string, daily: boolean, files: string[]): JournalSegment[] {
  const out: JournalSegment[] = [];
  for (const file of files) {
    const parsed = parseSegmentFileName(name, daily, file);
    if (parsed) out.push({ file, path: join(dir, file), ...parsed });
  }
  return out.sort(compareSegments);
}

/** Oldest first: by day, then by index. */
export function compareSegments(a: JournalSegment, b: JournalSegment): number {
  const da = a.day ?? '';
  const db = b.day ?? '';
  if (da !== db) return da < db ? -1 : 1;
  return a.index - b.index;
}

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException)?.code === 'ENOENT';
}

/** The journal's files, oldest first; empty when the folder does not exist yet. */
export async function listSegments(dir: string, name: string, daily: boolean): Promise<JournalSegment[]> {
  try {
    return toSegments(dir, name, daily, await readdir(dir));
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
}

/** Synchronous variant, for the few bounded reads a constructor needs. */
export function listSegmentsSync(dir: string, name: string, daily: boolean): JournalSegment[] {
  try {
    return toSegments(dir, name, daily, readdirSync(dir));
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
}

/** `YYYY-MM-DD` of a moment in UTC, shifted by `offsetMinutes` (0 = UTC). */
export function dayOf(ms: number, offsetMinutes = 0): string {
  return new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 10);
}

/** The day `n` days before `day` (both `YYYY-MM-DD`). */
export function daysBefore(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);
}

export interface ReadLinesResult {
  /** Lines parsed as JSON and handed to the visitor. */
  lines: number;
  /** Non-empty lines that were not valid JSON (a torn last line, or damage). */
  skipped: number;
}

/**
 * Streams a JSON-lines file, handing each parsed line to `visit`; lines that do not parse are skipped.
 * A missing file reads as empty (retention may delete it between listing and reading).
 */
export async function readJsonLines(path: string, visit: (value: unknown) => void): Promise<ReadLinesResult> {
  const result: ReadLinesResult = { lines: 0, skipped: 0 };
  const stream = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (line.length === 0) continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        result.skipped++;
        continue;
      }
      result.lines++;
      visit(value);
    }
  } catch (err) {
    if (!isMissing(err)) throw err;
  } finally {
    lines.close();
    stream.destroy();
  }
  return result;
}

const TAIL_CHUNK = 64 * 1024;
/** A line longer than this is not worth parsing to find a sequence number. */
const MAX_TAIL_LINE = 64 * 1024 * 1024;

/**
 * The last line of a file that parses as JSON and passes `accept`, read backwards, so finding the newest
 * record costs about one chunk however large the file is. Each byte is read at most twice, even when a
 * line is longer than a chunk. Undefined when there is none.
 */
export function lastJsonValueSync(path: string, accept: (value: unknown) => boolean): unknown {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
  try {
    const chunk = Buffer.alloc(TAIL_CHUNK);
    /** Offset of the last newline before `before`, or -1. */
    const newlineBefore = (before: number): number => {
      let end = before;
      while (end > 0) {
        const start = Math.max(0, end - TAIL_CHUNK);
        readSync(fd, chunk, 0, end - start, start);
        const at = chunk.subarray(0, end - start).lastIndexOf(0x0a);
        if (at !== -1) return start + at;
        end = start;
      }
      return -1;
    };
    let end = fstatSync(fd).size;
    while (end > 0) {
      const start = newlineBefore(end) + 1;
      const length = end - start;
      if (length > 0 && length <= MAX_TAIL_LINE) {
        const line = Buffer.alloc(length);
        readSync(fd, line, 0, length, start);
        try {
          const value: unknown = JSON.parse(line.toString('utf8'));
          if (accept(value)) return value;
        } catch {
          // a torn or damaged line: keep looking further back
        }
      }
      end = start - 1; // skip the newline itself
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

const BACKWARD_CHUNK = 256 * 1024;
/** A line longer than this is skipped by readLinesBackward rather than held whole. */
const MAX_BACKWARD_LINE = 16 * 1024 * 1024;

/**
 * Reads the lines of a file that end at or before byte `end`, newest first, in chunks (the event loop runs
 * between them), handing each non-empty line and its start to `visit` until it returns false or about
 * `maxBytes` were read. Returns where the unread part ends (a line boundary: the next read continues
 * there; 0 when the file's start was reached) and the bytes read. A missing file reads as empty.
 */
export async function readLinesBackward(
  path: string,
  end: number,
  maxBytes: number,
  visit: (line: string, start: number) => boolean,
): Promise<{ offset: number; bytesRead: number }> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    if (isMissing(err)) return { offset: 0, bytesRead: 0 };
    throw err;
  }
  try {
    let pos = Math.min(end, (await handle.stat()).size);
    /** Bytes from `pos` on of a line whose start has not been read yet. */
    let carry = Buffer.alloc(0);
    let bytesRead = 0;
    /** Whether a line was passed (read whole) in this call: the budget never stops a call before one is, or it would not move on. */
    let passed = false;
    while (pos > 0 && (bytesRead < maxBytes || !passed)) {
      const start = Math.max(0, pos - BACKWARD_CHUNK);
      const chunk = Buffer.alloc(pos - start);
      await handle.read(chunk, 0, chunk.length, start);
      bytesRead += chunk.length;
      pos = start;
      const data = carry.length > 0 ? Buffer.concat([chunk, carry]) : chunk;
      let stop = data.length;
      while (stop > 0) {
        // The newline before this line (the one at stop - 1 ends it).
        const nl = stop >= 2 ? data.lastIndexOf(0x0a, stop - 2) : -1;
        if (nl === -1 && start > 0) break;
        const lineStart = nl + 1;
        const line = data.toString('utf8', lineStart, stop).replace(/\r?\n$/, '');
        passed = true;
        if (line.length > 0 && !visit(line, start + lineStart)) return { offset: start + lineStart, bytesRead };
        stop = lineStart;
      }
      carry = data.subarray(0, stop);
      if (carry.length > MAX_BACKWARD_LINE) {
        carry = Buffer.alloc(0);
        passed = true;
      }
    }
    return { offset: pos + carry.length, bytesRead };
  } finally {
    await handle.close();
  }
}

/**
 * A result folder the spill index does not list, told by its files alone: after a crash within a second
 * of a put (the answer goes out before the index is written), a complete folder is listed again at open
 * rather than deleted. Run at open, never on a call's path.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, readFile, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { base32 } from './spill-handle.js';
import { looksLikeJson } from './result-view.js';
import { isSetAside, readOrigin, RESULT_FILE, strayFolders, TEXT_FILE, TEXT_RANGES_KEY, type TextRange } from './spill-files.js';
import { isValidHandle } from './spill-handle.js';
import { recoveredEntry, type SpillBinaryFile, type SpillEntry } from './spill-index.js';

/** What the files of a complete entry say of it (see `readCompleteFolder`). */
export interface StoredFiles {
  hash: string;
  files: string[];
  binary: SpillBinaryFile[];
  /** Sizes of result.json and text.txt, and what all the files take. */
  skeletonBytes: number;
  textBytes: number;
  diskBytes: number;
  lines: number;
  textFromStructured: boolean;
  contentType: 'json' | 'text' | 'mixed' | 'binary';
  /** When result.json was written. */
  writtenAt: number;
}

const BLOCK_FILE = /^block-(\d+)\.[a-z0-9]+$/;

/**
 * The entry in `folder` told by its files alone, for a folder the index does not list (the hub stopped
 * before the index was written, up to a second after the put): undefined unless the files are complete,
 * which is known as `prepareFiles` knew the handle, from the hash of what they hold (the folder's name is
 * its prefix). Reads every file once; run at open, never on a call's path.
 */
export async function readCompleteFolder(folder: string, handle: string): Promise<StoredFiles | undefined> {
  try {
    const skeleton = await readFile(join(folder, RESULT_FILE));
    const parsed = JSON.parse(skeleton.toString('utf8')) as Record<string, unknown>;
    const content = Array.isArray(parsed.content) ? (parsed.content as Array<Record<string, unknown>>) : [];
    const textRanges = parsed[TEXT_RANGES_KEY];
    const ranges = Array.isArray(textRanges) ? (textRanges as TextRange[]) : [];
    const textBytes = (await stat(join(folder, TEXT_FILE))).size;
    // The texts lie one after the other, joined by newlines; structuredContent's pretty JSON is the only text when there are none.
    const textFromStructured = ranges.length === 0 && parsed.structuredContent !== undefined;
    const parts: Array<[start: number, end: number]> = textFromStructured ? [[0, textBytes]] : ranges.map((r) => [r[2], r[3]]);
    const text = await hashParts(join(folder, TEXT_FILE), parts);
    const binary = await storedBinary(folder, content);
    const digest = createHash('sha256');
    for (const part of text.hashes) digest.update(part);
    digest.update(skeleton);
    let diskBytes = skeleton.length + textBytes;
    for (const block of binary) {
      const data = await readFile(join(folder, block.file));
      digest.update(data);
      diskBytes += data.length;
    }
    const hash = base32(digest.digest());
    if (!hash.startsWith(handle)) return undefined;
    const hasText = parts.length > 0;
    return {
      hash,
      files: [RESULT_FILE, TEXT_FILE, ...binary.map((b) => b.file)],
      binary,
      skeletonBytes: skeleton.length,
      textBytes,
      diskBytes,
      lines: textBytes === 0 ? 0 : text.endsWithNewline ? text.newlines : text.newlines + 1,
      textFromStructured,
      contentType:
        !hasText && binary.length > 0
          ? 'binary'
          : hasText && binary.length > 0
            ? 'mixed'
            : textFromStructured || looksLikeJson(text.edges)
              ? 'json'
              : 'text',
      writtenAt: (await stat(join(folder, RESULT_FILE))).mtimeMs,
    };
  } catch {
    return undefined;
  }
}

/** The binary blocks whose files are in `folder`, in the order of the result's content (as `prepareFiles` hashed them). */
async function storedBinary(folder: string, content: Array<Record<string, unknown>>): Promise<SpillBinaryFile[]> {
  const binary: SpillBinaryFile[] = [];
  for (const file of await readdir(folder)) {
    const index = BLOCK_FILE.exec(file)?.[1];
    const block = index === undefined ? undefined : content[Number(index)];
    if (!block) continue;
    const resource = block.type === 'resource' ? (block.resource as Record<string, unknown>) : undefined;
    const mimeType = resource ? resource.mimeType : block.mimeType;
    binary.push({
      index: Number(index),
      kind: resource ? 'blob' : block.type === 'audio' ? 'audio' : 'image',
      mimeType: typeof mimeType === 'string' ? mimeType : 'application/octet-stream',
      file,
    });
  }
  return binary.sort((a, b) => a.index - b.index);
}

/**
 * One pass over text.txt: the sha256 of each part (`[start, end)`, one after the other, a newline between
 * two), its newlines, and its first and last KiB. Throws when the file is not as long as the parts say.
 */
async function hashParts(
  path: string,
  parts: Array<[start: number, end: number]>,
): Promise<{ hashes: Buffer[]; newlines: number; endsWithNewline: boolean; edges: string }> {
  let expected = 0;
  for (const [i, [start, end]] of parts.entries()) {
    if (start !== (i === 0 ? 0 : expected + 1) || !(end >= start)) throw new Error('text ranges out of order');
    expected = end;
  }
  const hashes: Buffer[] = [];
  let part = 0;
  let hash = createHash('sha256');
  let pos = 0;
  let newlines = 0;
  let last = -1;
  let head = Buffer.alloc(0);
  let tail = Buffer.alloc(0);
  const finishEmpty = () => {
    while (part < parts.length && parts[part]![1] === pos && parts[part]![0] === pos) {
      hashes.push(hash.digest());
      hash = createHash('sha256');
      part++;
    }
  };
  finishEmpty();
  for await (const data of createReadStream(path)) {
    const chunk = data as Buffer;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) newlines++;
    if (head.length < 1024) head = Buffer.concat([head, chunk.subarray(0, 1024 - head.length)]);
    tail = Buffer.concat([tail, chunk]).subarray(-1024);
    last = chunk[chunk.length - 1]!;
    let at = 0;
    while (at < chunk.length && part < parts.length) {
      const [start, end] = parts[part]!;
      if (pos < start) {
        const skip = Math.min(start - pos, chunk.length - at);
        at += skip;
        pos += skip;
        continue;
      }
      const take = Math.min(end - pos, chunk.length - at);
      hash.update(chunk.subarray(at, at + take));
      at += take;
      pos += take;
      if (pos === end) {
        hashes.push(hash.digest());
        hash = createHash('sha256');
        part++;
        finishEmpty();
      }
    }
    pos += chunk.length - at;
  }
  finishEmpty();
  if (part < parts.length || pos !== expected) throw new Error('text.txt is not as long as its parts');
  return { hashes, newlines, endsWithNewline: last === 10, edges: head.toString('utf8') + tail.toString('utf8') };
}

/**
 * The entry of a result folder the index does not list, when its files are complete and it has not
 * expired (its time counted from when result.json was written); else undefined. A folder a damaged index
 * listed (markSetAside) is never listed again.
 */
export async function recoveredFolder(path: string, now: number, ttlMs: number): Promise<SpillEntry | undefined> {
  const handle = basename(path);
  if (!isValidHandle(handle) || (await isSetAside(path))) return undefined;
  const stored = await readCompleteFolder(path, handle);
  const writtenAt = Math.min(stored?.writtenAt ?? 0, now);
  if (!stored || writtenAt + ttlMs <= now) return undefined;
  return recoveredEntry(handle, stored, writtenAt, ttlMs, await readOrigin(path));
}

/**
 * How many result folders `dir` holds that `known` does not claim (a damaged index's, left in place for
 * this run) and the bytes their files take. Run at open, never on a call's path.
 */
export async function unlistedFolders(dir: string, known: (name: string) => boolean): Promise<{ folders: number; bytes: number }> {
  let folders = 0;
  let bytes = 0;
  for (const path of await strayFolders(dir, known)) {
    if (isValidHandle(basename(path))) folders++;
    bytes += await folderBytes(path);
  }
  return { folders, bytes };
}

/** The bytes of the plain files in a folder (0 when it vanished meanwhile). */
async function folderBytes(folder: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return 0;
  }
  let bytes = 0;
  for (const name of names) {
    const info = await lstat(join(folder, name)).catch(() => undefined);
    if (info?.isFile()) bytes += info.size;
  }
  return bytes;
}

/**
 * The folders in `dir` that `known` does not claim, sorted: the entries of those recoveredFolder lists again
 * are returned, the others are removed (how many: `removed`).
 */
export async function sortStrayFolders(
  dir: string,
  known: (name: string) => boolean,
  now: number,
  ttlMs: number,
): Promise<{ recovered: SpillEntry[]; removed: number }> {
  const recovered: SpillEntry[] = [];
  let removed = 0;
  for (const path of await strayFolders(dir, known)) {
    const entry = await recoveredFolder(path, now, ttlMs);
    if (entry) recovered.push(entry);
    else {
      await rm(path, { recursive: true, force: true });
      removed++;
    }
  }
  return { recovered, removed };
}

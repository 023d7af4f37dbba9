/**
 * The files of one spilled result, in its folder `<spill dir>/<handle>/`: `result.json` (the whole
 * CallToolResult with its texts replaced by ranges into text.txt and its binary data moved out),
 * `text.txt` (the text view, each text kept once) and `block-<i>.<ext>` (binary blocks). How they are
 * prepared and hashed, written, and read back; the store (spill-store.ts) decides where and when.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { syncFile, syncFolder, writeAll } from '../files/atomic-file.js';
import type { SpooledString } from '../wire/raw-spool.js';
import { base32, HANDLE_PATTERN } from './spill-handle.js';
import { binaryFileName, restoreBinaryFiles, withBinaryAsFiles } from './result-view.js';
import type { ResultView, SpooledView, TextPart } from './result-view.js';
import type { SpillBinaryFile } from './spill-index.js';

export const RESULT_FILE = 'result.json';
export const TEXT_FILE = 'text.txt';
/** Folders of writes in progress, as earlier versions made them (removed as leftovers). */
const TMP_PREFIX = '.tmp-';

/**
 * In result.json: where each text of the result lies in text.txt, `[content index, 1 if an embedded
 * resource's text, start byte, end byte]`. The texts themselves are kept once, in text.txt.
 */
export const TEXT_RANGES_KEY = 'spillway/textRanges';
export type TextRange = [index: number, resource: 0 | 1, start: number, end: number];

/** A result made ready to be written: its bytes, its hash, and what each file will hold. */
export interface PreparedFiles {
  /** Base32 sha256 over the texts, the skeleton and the binary data: the handle is its prefix. */
  hash: string;
  /** result.json. */
  skeleton: Buffer;
  texts: Array<{ part: TextPart; data: Buffer | undefined }>;
  /** UTF-8 size of text.txt. */
  textBytes: number;
  binaryFiles: Array<SpillBinaryFile & { data: Buffer }>;
  /** What the files take on disk (what the quota counts). */
  diskBytes: number;
}

/** Hashes and lays out a result; spooled texts are hashed from what their spool recorded, not read. */
export function prepareFiles(result: CallToolResult, view: ResultView | SpooledView): PreparedFiles {
  const binary = 'binary' in view ? view.binary : [];
  const texts = view.parts.map((part) => ({
    part,
    data: typeof part.text === 'string' ? Buffer.from(part.text, 'utf8') : undefined,
  }));
  const ranges: TextRange[] = [];
  let textBytes = 0;
  const digest = createHash('sha256');
  for (const [i, { part, data }] of texts.entries()) {
    if (i > 0) textBytes += 1; // the newline joining the texts
    const length = data ? data.length : (part.text as SpooledString).bytes;
    if (part.index >= 0) ranges.push([part.index, part.resource ? 1 : 0, textBytes, textBytes + length]);
    textBytes += length;
    digest.update(data ? createHash('sha256').update(data).digest() : (part.text as SpooledString).sha256);
  }
  const binaryFiles = binary.map((block) => ({
    index: block.index,
    kind: block.kind,
    mimeType: block.mimeType,
    file: binaryFileName(block),
    data: Buffer.from(block.base64, 'base64'),
  }));
  const skeleton = Buffer.from(
    JSON.stringify(withTextsAsRanges(binary.length > 0 && 'text' in view ? withBinaryAsFiles(result, view) : result, ranges)),
    'utf8',
  );
  digest.update(skeleton);
  for (const file of binaryFiles) digest.update(file.data);
  const diskBytes = skeleton.length + textBytes + binaryFiles.reduce((n, f) => n + f.data.length, 0);
  return { hash: base32(digest.digest()), skeleton, texts, textBytes, binaryFiles, diskBytes };
}

/** The names of an entry's files. */
export function fileNames(files: PreparedFiles): string[] {
  return [RESULT_FILE, TEXT_FILE, ...files.binaryFiles.map((f) => f.file)];
}

/**
 * Writes the prepared files into `folder`, side by side, each in full. Spooled texts end up there: a
 * single one is moved, several are copied and then deleted.
 */
async function writeFiles(folder: string, files: PreparedFiles): Promise<void> {
  const writes = [
    writeWhole(join(folder, RESULT_FILE), [files.skeleton]),
    writeText(join(folder, TEXT_FILE), files.texts),
    ...files.binaryFiles.map((file) => writeWhole(join(folder, file.file), [file.data])),
  ];
  // Every write is waited for, also when one fails: the caller removes the folder next.
  const failed = (await Promise.allSettled(writes)).find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

/** The complete stored CallToolResult of the entry in `folder`, texts and binary data restored. */
export async function readStoredResult(folder: string, binary: SpillBinaryFile[]): Promise<CallToolResult> {
  const result = JSON.parse(await readFile(join(folder, RESULT_FILE), 'utf8')) as CallToolResult;
  const ranges = (result as Record<string, unknown>)[TEXT_RANGES_KEY] as TextRange[] | undefined;
  if (ranges) {
    delete (result as Record<string, unknown>)[TEXT_RANGES_KEY];
    restoreTexts(result, ranges, await readFile(join(folder, TEXT_FILE)));
  }
  return restoreBinaryFiles(result, binary, async (file) => (await readFile(join(folder, file))).toString('base64'));
}

/**
 * Writes an entry's files straight into its own folder `<dir>/<handle>`, made for it (with `dir` when
 * missing); a folder already there, left by a crashed write or by an entry the index lost, is replaced.
 * Resolves once every file is complete: a short write is continued or fails (issue 13 item 11: a full
 * disk left a third of a result listed and readable). Syncing is left to `syncEntry`, before the entry
 * is written to the index. On failure the folder is removed.
 */
export async function writeEntryFolder(dir: string, handle: string, files: PreparedFiles): Promise<void> {
  const folder = join(dir, handle);
  try {
    try {
      await mkdir(folder);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') await rm(folder, { recursive: true, force: true });
      else if (code === 'ENOENT') await mkdir(dir, { recursive: true });
      else throw error;
      await mkdir(folder);
    }
    if (movesOneText(files)) await moveOneText(folder, files);
    else await writeFiles(folder, files);
  } catch (error) {
    await rm(folder, { recursive: true, force: true }).catch(() => {});
    throw error;
  }
}

/** The common spilled result: one text streamed to disk as it arrived, no binary files. */
function movesOneText(files: PreparedFiles): boolean {
  const only = files.texts.length === 1 ? files.texts[0]!.part.text : undefined;
  return only !== undefined && typeof only !== 'string' && files.binaryFiles.length === 0;
}

/** An entry that movesOneText: its spooled text moved in (not copied) while the skeleton is written. */
async function moveOneText(folder: string, files: PreparedFiles): Promise<void> {
  const outcomes = await Promise.allSettled([
    writeFile(join(folder, RESULT_FILE), files.skeleton, { flag: 'wx' }),
    rename((files.texts[0]!.part.text as SpooledString).path, join(folder, TEXT_FILE)),
  ]);
  // Both are waited for, also when one fails: the caller removes the folder next.
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Syncs an entry's files and its folder to the disk (its parent folder is the caller's to sync). */
export async function syncEntry(folder: string, files: string[]): Promise<void> {
  for (const file of files) await syncFile(join(folder, file));
  await syncFolder(folder);
}

/** Whether all of an entry's files are in `folder`, together as large as the entry says (`diskBytes`). */
export async function filesComplete(folder: string, files: string[], diskBytes: number): Promise<boolean> {
  try {
    let bytes = 0;
    for (const file of files) bytes += (await stat(join(folder, file))).size;
    return bytes === diskBytes;
  } catch {
    return false;
  }
}

/** Folders in `dir` that look like ours (a handle, or a write in progress) but `known` does not claim. */
export async function strayFolders(dir: string, known: (name: string) => boolean): Promise<string[]> {
  let names: string[] = [];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // Anything else in the folder is not ours: it is left alone.
  const ours = names.filter((name) => HANDLE_PATTERN.test(name) || name.startsWith(TMP_PREFIX));
  return ours.filter((name) => !known(name)).map((name) => join(dir, name));
}

/** The result with its texts emptied and their places in text.txt recorded (see TEXT_RANGES_KEY). */
function withTextsAsRanges(result: CallToolResult, ranges: TextRange[]): Record<string, unknown> {
  if (ranges.length === 0) return result;
  const content = [...result.content] as Array<Record<string, unknown>>;
  for (const [index, resource] of ranges) {
    const block = content[index]!;
    content[index] = resource ? { ...block, resource: { ...(block.resource as object), text: '' } } : { ...block, text: '' };
  }
  return { ...result, content, [TEXT_RANGES_KEY]: ranges };
}

function restoreTexts(result: CallToolResult, ranges: TextRange[], text: Buffer): void {
  for (const [index, resource, start, end] of ranges) {
    const block = result.content[index] as Record<string, unknown> | undefined;
    if (!block) continue;
    const value = text.toString('utf8', start, end);
    if (resource) (block.resource as Record<string, unknown>).text = value;
    else block.text = value;
  }
}

/** Writes the joined text view: in-memory texts as they are, spooled ones moved (one) or copied (several). */
async function writeText(path: string, texts: Array<{ part: TextPart; data: Buffer | undefined }>): Promise<void> {
  const only = texts.length === 1 ? texts[0]!.part.text : undefined;
  if (only !== undefined && typeof only !== 'string') {
    await rename(only.path, path);
    return;
  }
  await writeWhole(
    path,
    (async function* () {
      for (const [i, { part, data }] of texts.entries()) {
        if (i > 0) yield NEWLINE;
        if (data) yield data;
        else for await (const chunk of createReadStream((part.text as SpooledString).path)) yield chunk as Buffer;
      }
    })(),
    0o600,
  );
  const copied = texts.flatMap(({ part }) => (typeof part.text === 'string' ? [] : [part.text.path]));
  await Promise.all(copied.map((spooled) => rm(spooled, { force: true })));
}

const NEWLINE = Buffer.from('\n');

/** Creates `path` with `chunks`, each written in full (a short write is continued or fails). */
async function writeWhole(path: string, chunks: Iterable<Buffer> | AsyncIterable<Buffer>, mode?: number): Promise<void> {
  const file = await open(path, 'wx', mode);
  try {
    for await (const chunk of chunks) await writeAll(file, chunk);
  } finally {
    await file.close();
  }
}

/**
 * The files of one spilled result, in its folder `<spill dir>/<handle>/`: `result.json` (the whole
 * CallToolResult with its texts replaced by ranges into text.txt and its binary data moved out),
 * `text.txt` (the text view, each text kept once), `block-<i>.<ext>` (binary blocks) and `origin.json`
 * (who kept it, see ORIGIN_FILE). How they are prepared and hashed, written, and read back; the store
 * (spill-store.ts) decides where and when. Owner-only, like the data folder (README).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { syncFile, syncFolder, writeAll } from '../files/atomic-file.js';
import type { SpooledString } from '../wire/raw-spool.js';
import { base32, HANDLE_PATTERN } from './spill-handle.js';
import { binaryFileName, restoreBinaryFiles, withBinaryAsFiles } from './result-view.js';
import type { ResultView, SpooledView, TextPart } from './result-view.js';
import type { SpillBinaryFile, SpillEntry } from './spill-index.js';

export const RESULT_FILE = 'result.json';
export const TEXT_FILE = 'text.txt';
/**
 * Who kept the result and whether it is masked, for a folder listed again after a crash (spill-recovery.ts):
 * the index has it first. Not hashed (the same content from two tools has one handle), not counted by the quota.
 */
export const ORIGIN_FILE = 'origin.json';
/** In the folder of a result a damaged index listed (SpillIndexFile.load): never listed again, removed at the next start. */
const SET_ASIDE_FILE = 'set-aside';
const FILE_MODE = 0o600;
const FOLDER_MODE = 0o700;
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
async function writeFiles(folder: string, files: PreparedFiles, origin: Buffer): Promise<void> {
  const writes = [
    writeWhole(join(folder, RESULT_FILE), [files.skeleton]),
    writeWhole(join(folder, ORIGIN_FILE), [origin]),
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
export async function writeEntryFolder(dir: string, handle: string, files: PreparedFiles, entry: SpillEntry): Promise<void> {
  const folder = join(dir, handle);
  try {
    try {
      await mkdir(folder, { mode: FOLDER_MODE });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') await rm(folder, { recursive: true, force: true });
      else if (code === 'ENOENT') await mkdir(dir, { recursive: true, mode: FOLDER_MODE });
      else throw error;
      await mkdir(folder, { mode: FOLDER_MODE });
    }
    if (movesOneText(files)) await moveOneText(folder, files, originOf(entry));
    else await writeFiles(folder, files, originOf(entry));
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

/** An entry that movesOneText: its spooled text moved in (not copied) while the skeleton and origin are written. */
async function moveOneText(folder: string, files: PreparedFiles, origin: Buffer): Promise<void> {
  const outcomes = await Promise.allSettled([
    writeFile(join(folder, RESULT_FILE), files.skeleton, { flag: 'wx', mode: FILE_MODE }),
    writeFile(join(folder, ORIGIN_FILE), origin, { flag: 'wx', mode: FILE_MODE }),
    rename((files.texts[0]!.part.text as SpooledString).path, join(folder, TEXT_FILE)),
  ]);
  // All are waited for, also when one fails: the caller removes the folder next.
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Who kept a result, as ORIGIN_FILE holds it. */
export type SpillOrigin = Pick<SpillEntry, 'server' | 'tool' | 'client'> & { masked: boolean };

function originOf(entry: SpillEntry): Buffer {
  const origin: SpillOrigin = { server: entry.server, tool: entry.tool, client: entry.client, masked: entry.masked === true };
  return Buffer.from(JSON.stringify(origin), 'utf8');
}

/** Writes ORIGIN_FILE again for a later put of the same content (a new owner, maybe masked now). */
export async function rewriteOrigin(folder: string, entry: SpillEntry): Promise<void> {
  await writeFile(join(folder, ORIGIN_FILE), originOf(entry), { mode: FILE_MODE });
}

/** What the folder's ORIGIN_FILE says; undefined when it has none (kept by an older Spillway) or it cannot be read. */
export async function readOrigin(folder: string): Promise<SpillOrigin | undefined> {
  try {
    const origin = JSON.parse(await readFile(join(folder, ORIGIN_FILE), 'utf8')) as Record<string, unknown>;
    const { server, tool, client, masked } = origin;
    if (typeof server !== 'string' || typeof tool !== 'string' || typeof masked !== 'boolean') return undefined;
    return { server, tool, client: typeof client === 'string' ? client : null, masked };
  } catch {
    return undefined;
  }
}

/** Marks result folders a damaged index listed, so that the next start removes them (see SET_ASIDE_FILE). */
export async function markSetAside(folders: string[]): Promise<void> {
  for (const folder of folders) await writeFile(join(folder, SET_ASIDE_FILE), '', { mode: FILE_MODE });
}

export async function isSetAside(folder: string): Promise<boolean> {
  return stat(join(folder, SET_ASIDE_FILE)).then(
    () => true,
    () => false,
  );
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

/** Removes the folders strayFolders finds; returns how many were results (not writes in progress). */
export async function removeUnlisted(dir: string, known: (name: string) => boolean): Promise<number> {
  const folders = await strayFolders(dir, known);
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
  return folders.filter((folder) => HANDLE_PATTERN.test(basename(folder))).length;
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
  );
  const copied = texts.flatMap(({ part }) => (typeof part.text === 'string' ? [] : [part.text.path]));
  await Promise.all(copied.map((spooled) => rm(spooled, { force: true })));
}

const NEWLINE = Buffer.from('\n');

/** Creates `path` with `chunks`, each written in full (a short write is continued or fails). */
async function writeWhole(path: string, chunks: Iterable<Buffer> | AsyncIterable<Buffer>): Promise<void> {
  const file = await open(path, 'wx', FILE_MODE);
  try {
    for await (const chunk of chunks) await writeAll(file, chunk);
  } finally {
    await file.close();
  }
}

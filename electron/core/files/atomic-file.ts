/**
 * One file written atomically (temp file, synced, then renamed over the file), one write at a time. Saves
 * asked for while a write is waiting share it, and the text is rendered when that write starts, so it
 * holds the newest state. The config file, client tokens, tool pins and the spill index all save this way.
 * A full disk fails the save and leaves the old file as it was (issue 13 item 11: write-file-atomic did
 * one write and renamed whatever part of the text it had taken). The rename is tried again while Windows
 * reports the file held for a moment (renameOver), as client config files and installs are. A file other
 * processes write too (client tokens) can take a lock file around each write (`lock`), so a render that
 * reads the file again sees the other's last write.
 */
import { randomInt } from 'node:crypto';
import { lstat, mkdir, open, readdir, realpath, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface AtomicFileOptions {
  /** File mode for a new file (e.g. 0o600 for secrets); by default an existing file's mode is kept. */
  mode?: number;
  /** Runs before each write, after the folder exists (e.g. a one-time backup). */
  beforeWrite?: () => Promise<void>;
  /**
   * Holds `<file>.lock` from before the text is rendered until the file is renamed into place, so writers
   * in other processes that lock it too take turns: each render may read the file and keep what the
   * other wrote (see lockFile).
   */
  lock?: boolean;
}

/**
 * A temp file younger than this may belong to a write under way in another process (the CLI and the hub
 * share the data folder): only older ones are taken for leftovers of an interrupted write.
 */
const STALE_TEMP_MS = 10_000;

export class AtomicFile {
  #write: Promise<void> = Promise.resolve();
  #queued = false;

  constructor(
    readonly path: string,
    private readonly render: () => string,
    private readonly options: AtomicFileOptions = {},
  ) {}

  /** Resolves when a write that includes the state as of this call is on disk; rejects if it failed. */
  save(): Promise<void> {
    if (this.#queued) return this.#write;
    this.#queued = true;
    this.#write = this.#write
      .catch(() => undefined)
      .then(async () => {
        this.#queued = false;
        await mkdir(dirname(this.path), { recursive: true });
        const release = this.options.lock ? await lockFile(this.path) : undefined;
        try {
          await this.options.beforeWrite?.();
          await writeAtomically(this.path, Buffer.from(this.render(), 'utf8'), this.options.mode);
        } finally {
          await release?.();
        }
      });
    return this.#write;
  }

  /** Resolves when the last write asked for has finished (whether or not it succeeded). */
  settled(): Promise<void> {
    return this.#write.catch(() => undefined);
  }
}

/**
 * A lock file older than this is the leftover of a process that stopped while writing (a write takes
 * milliseconds), and is taken over; a lock that cannot be made for twice as long fails the write.
 */
const STALE_LOCK_MS = 10_000;
/** How long a writer waits before trying a held lock again. */
const LOCK_RETRY_MS = 10;
/** Errors that mean the lock file is there: EEXIST; on Windows also EPERM and the like while one is being deleted. */
const LOCK_HELD = new Set(process.platform === 'win32' ? ['EEXIST', 'EPERM', 'EACCES', 'EBUSY'] : ['EEXIST']);

/**
 * For tests only: `held` is called with the lock file's path each time lockFile finds it held by another
 * writer and waits to try again, so a test can wait for that instead of for time. Unset, it costs nothing.
 */
export const lockWaits: { held?: (lock: string) => void } = {};

/**
 * Takes `<path>.lock`, made exclusively, waiting while another writer holds it; resolves to the function
 * that lets it go. Only writers that take it wait for each other: it keeps no other program out.
 */
export async function lockFile(path: string): Promise<() => Promise<void>> {
  const lock = `${path}.lock`;
  const giveUp = Date.now() + 2 * STALE_LOCK_MS;
  for (;;) {
    try {
      await (await open(lock, 'wx', 0o600)).close();
      return () => rm(lock, { force: true }).catch(() => undefined);
    } catch (error) {
      if (!LOCK_HELD.has((error as NodeJS.ErrnoException).code ?? '') || Date.now() > giveUp) throw error;
    }
    const held = await stat(lock).catch(() => undefined);
    if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) await rm(lock, { force: true }).catch(() => undefined);
    else {
      lockWaits.held?.(lock);
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
    }
  }
}

/** Writes `data` to `file` through a synced temp file renamed over it; on failure the temp file is removed. */
export async function writeAtomically(file: string, data: Buffer, mode?: number): Promise<void> {
  // A symlinked file (a dotfiles repo) is written where it points, and stays a link.
  const path = await realpath(file).catch(() => file);
  // The same form write-file-atomic gave its temp files, so one pattern finds the leftovers of both.
  const temp = `${path}.${randomInt(2 ** 47)}`;
  const fileMode =
    mode ??
    (await stat(path).then(
      (s) => s.mode & 0o7777,
      () => 0o666,
    ));
  let handle: FileHandle | undefined;
  try {
    handle = await open(temp, 'wx', fileMode);
    await writeAll(handle, data);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await renameOver(temp, path);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  await syncFolder(dirname(path));
}

/**
 * The waits between tries of a rename Windows refused because another program held the file or folder
 * for a moment: antivirus (Defender scans every new file, and a freshly unpacked install holds many),
 * the search indexer, an editor. About 1.5 seconds in all, as a held file is let go within a scan.
 */
const RENAME_WAITS_MS = [25, 50, 100, 200, 400, 800];

/** The rename errors a briefly held file gives on Windows (EACCES and EPERM also mean no permission: then the tries fail alike). */
const HELD = new Set(['EPERM', 'EBUSY', 'EACCES']);

/**
 * Renames `from` over `to` (a file, or an install folder into place), trying again a few times when the
 * system refuses because something holds it for a moment. The same on every system: elsewhere these
 * errors are lasting, and cost only the waits before the error is thrown. `renameImpl` is fs's rename
 * (a test may hand in one that fails first).
 */
export async function renameOver(from: string, to: string, renameImpl: (from: string, to: string) => Promise<void> = rename): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await renameImpl(from, to);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
      if (attempt >= RENAME_WAITS_MS.length || !HELD.has(code)) throw error;
      await new Promise((resolve) => setTimeout(resolve, RENAME_WAITS_MS[attempt]));
    }
  }
}

/** What `writeAll` needs of an open file (a FileHandle). */
export interface ByteSink {
  write(data: Uint8Array, offset: number, length: number): Promise<{ bytesWritten: number }>;
}

/**
 * Writes all of `data` at the file's current position. A short write (a disk that fills up part way) is
 * continued, so the disk's own error (ENOSPC) is what ends it; a write that makes no progress throws.
 */
export async function writeAll(file: ByteSink, data: Uint8Array): Promise<void> {
  for (let offset = 0; offset < data.length;) {
    const { bytesWritten } = await file.write(data, offset, data.length - offset);
    if (bytesWritten <= 0) throw Object.assign(new Error(`short write: ${offset} of ${data.length} bytes written`), { code: 'EIO' });
    offset += bytesWritten;
  }
}

/** Syncs a file's data to the disk (opened for writing: Windows flushes only a handle that may write). */
export async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/**
 * Syncs a folder, so that files just created or renamed in it survive a crash. Best effort: some systems
 * (Windows) cannot open a folder for this, and the files themselves are synced already.
 */
export async function syncFolder(folder: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(folder, 'r');
    await handle.sync();
  } catch {
    // not supported here
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * Removes the temp files an interrupted write of `path` left beside it, when older than a write can take:
 * by default `<name>.<digits>`, as AtomicFile and write-file-atomic name them; `isTemp` tells other writers'
 * names. Only plain files (never a link). Returns how many; never throws (a leftover only costs space).
 */
export async function removeStaleTemps(path: string, options: { now?: number; isTemp?: (name: string) => boolean } = {}): Promise<number> {
  const folder = dirname(path);
  const prefix = `${basename(path)}.`;
  const isTemp = options.isTemp ?? ((name: string) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)));
  const now = options.now ?? Date.now();
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return 0; // a folder that is missing or unreadable has nothing to clean
  }
  let removed = 0;
  for (const name of names.filter(isTemp)) {
    const temp = join(folder, name);
    const info = await lstat(temp).catch(() => undefined);
    if (!info?.isFile() || now - info.mtimeMs < STALE_TEMP_MS) continue;
    // One that cannot be removed is left for the next time.
    if (
      await rm(temp, { force: true }).then(
        () => true,
        () => false,
      )
    )
      removed++;
  }
  return removed;
}

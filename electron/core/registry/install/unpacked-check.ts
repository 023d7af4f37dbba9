/**
 * Whether a package was unpacked whole. pacote unpacks with node-tar, which reports a file it could not
 * write (ENOSPC on a full disk, EIO) only as a log warning, and @npmcli/arborist then finishes without
 * an error: the package would be renamed into place cut off and run like that at every start. So each
 * file of the package's tarball is looked for in the folder, with its size.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';

/** One regular file of a package tarball, as pacote writes it (the `package/` folder stripped). */
export interface TarballFile {
  path: string;
  size: number;
}

const BLOCK = 512;

const text = (block: Buffer, offset: number, length: number) => {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? length : end).toString('utf8');
};
const octal = (block: Buffer, offset: number, length: number) => parseInt(text(block, offset, length).trim() || '0', 8);

/** The `path` and `size` records of a pax extended header (`<length> <key>=<value>\n` each). */
function paxRecords(data: Buffer): { path?: string; size?: number } {
  const out: { path?: string; size?: number } = {};
  for (const line of data.toString('utf8').split('\n')) {
    const m = /^\d+ (path|size)=(.*)$/s.exec(line);
    if (m?.[1] === 'path') out.path = m[2];
    if (m?.[1] === 'size') out.size = Number(m[2]);
  }
  return out;
}

/**
 * The regular files of a gzipped npm tarball, by the path pacote gives them: the first folder stripped,
 * `.gitignore` named `.npmignore` (npm's packing rule). Long names (pax and GNU headers) are read; links
 * are left out, as pacote leaves them out; a later entry of the same path replaces an earlier one.
 */
export async function tarballFiles(tarball: Buffer): Promise<TarballFile[]> {
  const tar = await promisify(gunzip)(tarball);
  const files = new Map<string, number>();
  /** What pax (`x`) and GNU long-name (`L`) headers say of the entry that follows them. */
  let next: { path?: string; size?: number } = {};
  for (let at = 0; at + BLOCK <= tar.length;) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break;
    const type = String.fromCharCode(header[156] || 0x30);
    // `K` is a link's long target, `g` pax values for the whole archive: nothing about a file's name or size.
    const meta = type === 'x' || type === 'L' || type === 'K' || type === 'g';
    const size = (meta ? undefined : next.size) ?? octal(header, 124, 12);
    const data = tar.subarray(at + BLOCK, at + BLOCK + size);
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'x') next = { ...next, ...paxRecords(data) };
    else if (type === 'L') next = { ...next, path: text(data, 0, data.length) };
    if (meta) continue;
    const entry = next;
    next = {};
    if (type !== '0' && type !== '7') continue; // directories, links, devices
    // The name's first part in the ustar `prefix` field (POSIX headers only: GNU ones keep times there).
    const posix = text(header, 257, 6) === 'ustar' && header[262] === 0;
    const prefix = posix ? text(header, 345, 155) : '';
    const name = entry.path ?? (prefix ? `${prefix}/${text(header, 0, 100)}` : text(header, 0, 100));
    const path = name.split('/').slice(1).join('/');
    if (!path) continue;
    const renamed = path.replace(/(^|\/)\.gitignore$/, '$1.npmignore');
    // pacote drops a .gitignore that comes after a .npmignore of the same folder.
    if (renamed !== path && files.has(renamed)) continue;
    files.set(renamed, size);
  }
  return [...files].map(([path, size]) => ({ path, size }));
}

/**
 * The first file of the tarball that is missing from `folder` or of another size, or undefined when every
 * one is there whole. Names node-tar would not write as they are (`..` in them, an absolute path, the
 * characters it re-encodes on Windows) are not looked for, nor names that differ only in case (a
 * case-insensitive disk keeps one of them).
 */
export async function incompleteFile(folder: string, files: readonly TarballFile[]): Promise<string | undefined> {
  const byCase = new Map<string, number>();
  for (const f of files) byCase.set(f.path.toLowerCase(), (byCase.get(f.path.toLowerCase()) ?? 0) + 1);
  for (const file of files) {
    const parts = file.path.split('/');
    if (parts.includes('..') || file.path.startsWith('/') || /[<>:"|?*\\]/.test(file.path)) continue;
    if ((byCase.get(file.path.toLowerCase()) ?? 0) > 1) continue;
    const found = await stat(join(folder, ...parts)).catch(() => undefined);
    if (!found?.isFile() || found.size !== file.size) return file.path;
  }
  return undefined;
}

/**
 * Problems with the data folder, the config file, the token file or the port, said in plain words that
 * name the path and the next step, instead of Node's codes (EEXIST, ENOTDIR, EISDIR, EACCES).
 */
import { stat } from 'node:fs/promises';
import { relative, isAbsolute, resolve } from 'node:path';
import type { AppPaths } from '../core/files/app-paths.js';

const OTHER_FOLDER = 'choose another data folder with --data-dir DIR (or SPILLWAY_DATA_DIR)';
const PERMISSION = new Set(['EACCES', 'EPERM', 'EROFS']);
const FILE_CODES = new Set(['EEXIST', 'ENOTDIR', 'EISDIR', ...PERMISSION]);

type Kind = 'folder' | 'file' | 'missing' | 'under a file';

async function kind(path: string): Promise<Kind> {
  try {
    return (await stat(path)).isDirectory() ? 'folder' : 'file';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'under a file' : 'missing';
  }
}

function within(path: string, folder: string): boolean {
  const rel = relative(folder, resolve(path));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** A port the system refused (listen EACCES: below 1024 without administrator rights, or reserved). */
export function portProblem(err: unknown, port: number | undefined): string | undefined {
  const e = err as (NodeJS.ErrnoException & { port?: number }) | undefined;
  if (e?.syscall !== 'listen' || !e.code || !PERMISSION.has(e.code)) return undefined;
  const p = e.port ?? port;
  const why = p !== undefined && p > 0 && p < 1024 ? ': ports below 1024 need administrator rights' : '';
  return (
    `this system does not let Spillway listen on port ${p ?? 'from the config'} (${e.code})${why}. ` +
    `Choose another port: --port N (--port 0 picks a free one), or the port in Spillway's Settings.`
  );
}

/**
 * What is wrong with the data folder, the config file or the token file that `err` came from; undefined
 * when `err` is no such problem (an error about another file, e.g. an AI app's config, keeps its own words).
 */
export async function pathProblem(err: unknown, paths: Pick<AppPaths, 'dataDir' | 'configFile' | 'tokenFile'>): Promise<string | undefined> {
  const e = err as NodeJS.ErrnoException | undefined;
  if (!e?.code || !FILE_CODES.has(e.code)) return undefined;
  const data = await kind(paths.dataDir);
  if (data === 'file' || data === 'under a file') {
    const what = data === 'file' ? 'is a file, not a folder' : 'cannot be a folder: part of its path is a file';
    return `the data folder ${paths.dataDir} ${what}. Move that file away, or ${OTHER_FOLDER}.`;
  }
  const config = await kind(paths.configFile);
  if (config === 'folder' || config === 'under a file') {
    const what = config === 'folder' ? 'is a folder, not a file' : 'cannot be read: part of its path is a file';
    return `the config file ${paths.configFile} ${what}. Give a config file with --config FILE (or SPILLWAY_CONFIG), or leave both out to use config.json in the data folder.`;
  }
  if ((await kind(paths.tokenFile)) === 'folder') {
    return `the token file ${paths.tokenFile} is a folder. Move it away (Spillway makes a new token when it starts), or ${OTHER_FOLDER}.`;
  }
  const path = e.path;
  if (!PERMISSION.has(e.code) || path === undefined) return undefined;
  if (within(path, paths.dataDir)) {
    return `Spillway may not write in the data folder ${paths.dataDir} (${e.code} on ${path}). Make the folder yours and writable, or ${OTHER_FOLDER}.`;
  }
  // The file itself, or the temp file and lock it is saved through (`<file>.…`).
  if (resolve(path).startsWith(resolve(paths.configFile))) {
    return `Spillway may not use the config file ${paths.configFile} (${e.code}). Make the file yours, or give another one with --config FILE (or SPILLWAY_CONFIG).`;
  }
  return undefined;
}

/**
 * Whether an npm package was unpacked whole: node-tar only logs a file it could not write (a
 * full disk), so the install compares the folder with the tarball's files. Here the tarball is read
 * (long names, links, .gitignore as pacote writes them) and a folder cut short by hand is caught; and a
 * full disk or a timeout is said in plain words.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { incompleteFile, tarballFiles } from '../../electron/core/registry/install/unpacked-check.js';
import { DISK_FULL, installFailure } from '../../electron/core/registry/install/npm-failure.js';
import { npmTarball } from '../support/npm-tarball.js';

/** One ustar header of any type (npm-tarball.ts writes regular files only; these tests need pax headers and links). */
function header(name: string, size: number, type: string, link = ''): Buffer {
  const block = Buffer.alloc(512);
  const octal = (offset: number, length: number, value: number) => block.write(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, 'ascii');
  block.write(name, 0, 100, 'utf8');
  octal(100, 8, 0o644);
  octal(124, 12, size);
  block.fill(' ', 148, 156);
  block.write(type, 156, 'ascii');
  block.write(link, 157, 100, 'utf8');
  block.write('ustar\u000000', 257, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}
const padded = (data: Buffer) => Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]);
/** A pax record: its length counts itself. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = body.length + 1;
  while (`${length}${body}`.length !== length) length++;
  return `${length}${body}`;
}

const LONG = `package/${'deep/'.repeat(30)}file.js`;

describe('the files of a package tarball', () => {
  it('lists each regular file by the path pacote writes it at, with its size', async () => {
    const tarball = npmTarball({ 'package.json': '{"name":"a"}', 'lib/index.js': 'x'.repeat(700), '.gitignore': 'node_modules\n' });
    expect(await tarballFiles(tarball)).toEqual([
      { path: 'package.json', size: 12 },
      { path: 'lib/index.js', size: 700 },
      { path: '.npmignore', size: 13 },
    ]);
  });

  it('reads a long name from a pax header, and leaves links out', async () => {
    const pax = Buffer.from(paxRecord('path', LONG));
    const data = Buffer.from('module.exports = 1;\n');
    const tar = Buffer.concat([
      header('package/PaxHeader', pax.length, 'x'),
      padded(pax),
      header(LONG.slice(0, 99), data.length, '0'),
      padded(data),
      header('package/link.js', 0, '2', 'file.js'),
      Buffer.alloc(1024),
    ]);
    expect(await tarballFiles(gzipSync(tar))).toEqual([{ path: LONG.slice('package/'.length), size: data.length }]);
  });
});

describe('a package folder checked against its tarball', () => {
  let dir: string;
  const files = [
    { path: 'package.json', size: 20 },
    { path: 'bin/cli.js', size: 5000 },
  ];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spillway-unpacked-'));
    for (const f of files) {
      await mkdir(dirname(join(dir, f.path)), { recursive: true });
      await writeFile(join(dir, f.path), Buffer.alloc(f.size, 'a'));
    }
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('is whole when every file is there with its size', async () => {
    expect(await incompleteFile(dir, files)).toBeUndefined();
  });

  it('names a file the disk cut short', async () => {
    await truncate(join(dir, 'bin', 'cli.js'), 4096);
    expect(await incompleteFile(dir, files)).toBe('bin/cli.js');
  });

  it('names a file that was never written', async () => {
    await rm(join(dir, 'bin'), { recursive: true });
    expect(await incompleteFile(dir, files)).toBe('bin/cli.js');
  });

  it('does not look for names node-tar does not write as they are', async () => {
    expect(await incompleteFile(dir, [...files, { path: '../outside.js', size: 1 }, { path: 'a:b.js', size: 1 }])).toBeUndefined();
  });
});

describe('install failures in plain words (more)', () => {
  const fail = (fields: Record<string, string>) => installFailure(Object.assign(new Error('raw text'), fields), 'pkg@1.0.0', 'http://127.0.0.1:9/');
  it.each(['ENOSPC', 'EDQUOT'])('%s: the disk is full', (code) => {
    expect(fail({ code })).toMatchObject({ kind: 'disk_full', message: DISK_FULL });
    expect(DISK_FULL).toBe('The disk is full: free some space, then add the server again.');
  });
  it.each([
    [{ code: 'FETCH_ERROR', type: 'request-timeout' }],
    [{ code: 'FETCH_ERROR', type: 'body-timeout' }],
    [{ code: 'EIDLETIMEOUT' }],
    [{ code: 'ERESPONSETIMEOUT' }],
  ])('%o: the registry did not answer', (fields) => {
    expect(fail(fields)).toMatchObject({
      kind: 'unreachable',
      message: 'Could not reach the npm registry (http://127.0.0.1:9/): it did not answer. Check the internet connection, then try again.',
    });
  });
  it.each([[{ code: 'EJSONPARSE' }], [{ code: 'TAR_BAD_ARCHIVE' }], [{ code: 'FETCH_ERROR', type: 'invalid-json' }]])(
    '%o: a damaged answer, without the raw text',
    (fields) => {
      const err = fail(fields);
      expect(err.kind).toBe('damaged');
      expect(err.message).not.toContain('raw text');
    },
  );
  it('the package itself missing (asked for by the project) names the package', () => {
    expect(fail({ code: 'E404', pkgid: 'pkg@1.0.0', requiredBy: '.' }).message).toMatch(/has no package pkg@1\.0\.0/);
  });
});

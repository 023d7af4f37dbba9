/** The install-folder logic of npm packages in the data folder (issue 16): names, the program to run, leftovers, plain failures. */
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binOf, installFailure } from '../../electron/core/registry/install/npm-install.js';
import { ownRuntime, ownRuntimeLaunch } from '../../electron/core/registry/install/own-runtime.js';
import {
  cleanInterruptedInstalls,
  packageFolderName,
  packageOfFile,
  parsePackageFolderName,
} from '../../electron/core/registry/install/package-folders.js';

describe('package folders', () => {
  it('names a folder by package and version, a scope’s slash written +, and reads it back', () => {
    expect(packageFolderName({ name: '@modelcontextprotocol/server-memory', version: '2026.8.31' })).toBe(
      '@modelcontextprotocol+server-memory@2026.8.31',
    );
    expect(packageFolderName({ name: 'airtable-mcp-server', version: '1.7.3-beta.1' })).toBe('airtable-mcp-server@1.7.3-beta.1');
    for (const ref of [
      { name: '@modelcontextprotocol/server-memory', version: '2026.8.31' },
      { name: 'airtable-mcp-server', version: '1.7.3-beta.1' },
    ])
      expect(parsePackageFolderName(packageFolderName(ref))).toEqual(ref);
    for (const other of ['.installing-123', '.npm-cache', 'no-version', '@scope-only@1.0.0', 'a+b@1.0.0', 'name@'])
      expect(parsePackageFolderName(other)).toBeUndefined();
  });

  it('finds the installed package a script belongs to, and nothing outside the packages folder', () => {
    const dir = join('/data', 'packages');
    expect(packageOfFile(dir, join(dir, '@a+b@1.0.0', 'node_modules', '@a', 'b', 'dist', 'index.js'))).toEqual({
      name: '@a/b',
      version: '1.0.0',
      folder: join(dir, '@a+b@1.0.0'),
    });
    expect(packageOfFile(dir, '/usr/bin/node')).toBeUndefined();
    expect(packageOfFile(dir, join(dir, '.installing-x', 'node_modules', 'b', 'index.js'))).toBeUndefined();
    expect(packageOfFile(dir, join(dir, '..', 'other@1.0.0', 'x.js'))).toBeUndefined();
  });

  it('removes what interrupted installs left, and only that', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'spillway-packages-'));
    try {
      await mkdir(join(dir, '.installing-a', 'node_modules'), { recursive: true });
      await writeFile(join(dir, '.installing-b'), '');
      await mkdir(join(dir, 'kept@1.0.0'));
      await mkdir(join(dir, '.npm-cache'));
      expect(cleanInterruptedInstalls(dir).sort()).toEqual([join(dir, '.installing-a'), join(dir, '.installing-b')]);
      expect((await readdir(dir)).sort()).toEqual(['.npm-cache', 'kept@1.0.0']);
      expect(cleanInterruptedInstalls(join(dir, 'missing'))).toEqual([]);
      expect(existsSync(join(dir, 'kept@1.0.0'))).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the program and the runtime', () => {
  it('runs the only bin, or the one named like the package', () => {
    expect(binOf({ name: 'x', bin: 'cli.js' })).toBe('cli.js');
    expect(binOf({ name: '@s/server-memory', bin: { 'mcp-server-memory': 'dist/index.js' } })).toBe('dist/index.js');
    expect(binOf({ name: '@s/tool', bin: { helper: 'h.js', tool: 't.js' } })).toBe('t.js');
    expect(binOf({ name: 'x' })).toBeUndefined();
  });

  it('starts it with this process’s executable as Node', () => {
    const runtime = ownRuntime('/Applications/Spillway.app/Contents/MacOS/Spillway');
    expect(ownRuntimeLaunch(runtime, '/d/packages/x@1/node_modules/x/cli.js', ['--flag'], { KEY: 'v' })).toEqual({
      type: 'stdio',
      command: '/Applications/Spillway.app/Contents/MacOS/Spillway',
      args: ['/d/packages/x@1/node_modules/x/cli.js', '--flag'],
      env: { KEY: 'v', ELECTRON_RUN_AS_NODE: '1' },
    });
  });
});

describe('install failures in plain words', () => {
  const registry = 'http://127.0.0.1:9/';
  const fail = (code: string) => installFailure(Object.assign(new Error(`raw ${code}`), { code }), 'pkg@1.0.0', registry);
  it.each([
    ['EINTEGRITY', 'integrity', /did not match its checksum.*Nothing was installed/],
    ['E404', 'not_found', /has no package pkg@1\.0\.0/],
    ['ETARGET', 'not_found', /has no package/],
    ['ECONNREFUSED', 'unreachable', /^Could not reach the npm registry \(http:\/\/127\.0\.0\.1:9\/\): nothing answered at that address\. Check/],
    ['ENOTFOUND', 'unreachable', /: its address could not be found\. Check/],
    ['E503', 'unreachable', /: it answered with a server error \(503\)\. Check/],
    ['EAI_AGAIN', 'unreachable', /: its address could not be found\./],
    ['EOTHER', 'failed', /Could not install pkg@1\.0\.0: raw EOTHER/],
  ])('%s', (code, kind, message) => {
    const err = fail(code);
    expect(err.kind).toBe(kind);
    expect(err.message).toMatch(message);
    // Words, not the system's code.
    if (kind === 'unreachable') expect(err.message).not.toContain(code);
  });
});

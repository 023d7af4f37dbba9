/** The install-folder logic of npm packages in the data folder (issue 16): names, the program to run, leftovers, plain failures. */
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binOf, findInstalled, installFailure, installNpmPackage, InstallError } from '../../electron/core/registry/install/npm-install.js';
import { bundleRefProblem, childFolder, npmRefProblem, packageRefProblem } from '../../electron/core/registry/install/install-names.js';
import { packageCommand } from '../../electron/core/registry/launch-plan.js';
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

describe('names and versions a registry answer may give an install', () => {
  it('takes a valid npm name and an exact version; refuses every other spec npm would act on', () => {
    for (const [name, version] of [
      ['airtable-mcp-server', '1.7.3'],
      ['@upstash/context7-mcp', '2.0.2'],
      ['@playwright/mcp', '0.0.79'],
      ['server-memory', '2026.8.31'],
      ['x', '1.0.0-beta.1+build.5'],
      ['JSONStream', undefined],
    ] as const)
      expect(npmRefProblem(name, version)).toBeUndefined();
    for (const version of [
      'http://127.0.0.1:9/evil.tgz',
      'file:../evil',
      'git+https://github.com/a/b.git',
      'github:a/b',
      'latest',
      '^1.2.3',
      '1.x',
      '>=1.0.0',
      '1.0.0 || 2.0.0',
      '../../x',
      'v1.0.0',
    ])
      expect(npmRefProblem('pkg', version)).toMatch(/only an exact version number/);
    for (const name of ['../evil', '@a/b/c', 'a b', '.hidden', 'http://x', '@scope/', 'a:b'])
      expect(npmRefProblem(name, '1.0.0')).toMatch(/not a valid npm package name/);
  });

  it('takes a plain bundle name and version; refuses one that would climb out of the bundles folder', () => {
    expect(bundleRefProblem({ name: 'io.github.owner/name', version: '1.2.3' })).toBeUndefined();
    expect(bundleRefProblem({ name: 'com.example/x', version: '2025.1-rc_1+b' })).toBeUndefined();
    for (const version of ['../../../../ESCAPED', '..', '1.0/../..', 'a\\b', '', '.', '1..0', ' 1.0'])
      expect(bundleRefProblem({ name: 'io.github.owner/name', version })).toMatch(/not a plain version number/);
    for (const name of ['../x', 'a/b/c', 'noslash', './x', 'a/..'])
      expect(bundleRefProblem({ name, version: '1.0.0' })).toMatch(/not a plain "namespace\/name"/);
  });

  it('a child folder is only ever directly inside its parent', () => {
    const dir = join('/data', 'bundles');
    expect(childFolder(dir, 'a@1.0.0')).toBe(join(dir, 'a@1.0.0'));
    for (const name of ['..', '.', '../x', 'a/../../x', 'a/b', '/etc'].concat(process.platform === 'win32' ? ['C:\\x'] : []))
      expect(childFolder(dir, name)).toBeUndefined();
  });

  it('the npm installer refuses a web address as a version, and looks for no installed copy outside its folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'spillway-packages-'));
    try {
      // Nothing listens on port 9: a refusal must come before any download.
      const source = { dir: join(dir, 'packages'), registry: 'http://127.0.0.1:9/' };
      const err = await installNpmPackage(source, 'evilpkg', 'http://127.0.0.1:9/evil.tgz').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InstallError);
      expect(err).toMatchObject({ kind: 'refused', message: expect.stringMatching(/never a web address/) });
      await mkdir(join(dir, 'outside', 'node_modules', 'evilpkg'), { recursive: true });
      await writeFile(
        join(dir, 'outside', 'node_modules', 'evilpkg', 'package.json'),
        JSON.stringify({ name: 'evilpkg', version: '1.0.0', bin: 'x.js' }),
      );
      await expect(findInstalled(source, { name: 'evilpkg', version: '../../outside' })).rejects.toMatchObject({ kind: 'refused' });
      expect(existsSync(source.dir)).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('names and versions of PyPI, NuGet and container packages', () => {
  it('takes every name and version the registry fixture lists', () => {
    for (const [type, name, version] of [
      ['pypi', '0xchron-polymarket-mcp', '0.1.1'],
      ['pypi', 'scrapling', '0.4.14'],
      ['pypi', 'serena-agent', '1.5.3'],
      ['pypi', 'time_mcp.pypi', '2.0rc1'],
      ['pypi', 'x', '1.0.post2.dev3+local.7'],
      ['nuget', 'TimeMcpServer', '1.0.8'],
      ['nuget', 'Contoso.Tools', '1.2.3.4-beta.1'],
      ['oci', 'docker.io/hashicorp/terraform-mcp-server:0.3.2', '0.3.2'],
      ['oci', 'docker.io/mongodb/mongodb-mcp-server:2.1.0', undefined],
      ['oci', 'ghcr.io/d4vinci/scrapling', undefined],
      ['oci', 'localhost:5000/team/tool@sha256:' + 'a'.repeat(64), undefined],
    ] as const)
      expect(packageRefProblem(type, name, version)).toBeUndefined();
  });

  it('refuses a name or version that the command line would read as an option, an address or a file', () => {
    for (const [type, name] of [
      ['pypi', '--with=evil'],
      ['pypi', 'pkg @ https://evil.example/x.whl'],
      ['pypi', '../x'],
      ['nuget', '-s'],
      ['nuget', 'a b'],
      ['oci', '--privileged'],
      ['oci', '-v=/:/host'],
      ['oci', 'Docker.io/UPPER/Case'],
    ] as const)
      expect(packageRefProblem(type, name, '1.0.0')).toMatch(/is not a valid (PyPI package|NuGet package|container image) name/);
    for (const [type, version] of [
      ['pypi', '>=1.0'],
      ['pypi', '1.0; python_version>"3"'],
      ['pypi', 'https://evil.example/x.whl'],
      ['nuget', '[1.0,2.0)'],
      ['nuget', '*'],
      ['oci', '--privileged'],
      ['oci', 'a/../b'],
    ] as const)
      expect(packageRefProblem(type, 'name', version)).toMatch(/which is not a plain version/);
  });

  it('refuses a hostile entry in the plan, before any command is built', () => {
    const pkg = (registryType: 'pypi' | 'nuget' | 'oci', identifier: string, version?: string) =>
      ({ registryType, identifier, ...(version ? { version } : {}), transport: { type: 'stdio' } }) as const;
    expect(packageCommand(pkg('pypi', 'scrapling', '0.4.14'))).toEqual({ command: 'uvx' });
    expect(packageCommand(pkg('pypi', '--python=/tmp/evil', '1.0'))).toMatchObject({
      reason: expect.stringMatching(/not a valid PyPI package name/),
    });
    expect(packageCommand(pkg('oci', 'docker.io/a/b', '--rm'))).toMatchObject({ reason: expect.stringMatching(/not a plain version/) });
  });
});

/** The runtime check (issue 16): the command a package needs, looked up on an injected PATH, and the plain words when it is missing. */
import { describe, expect, it } from 'vitest';
import { checkRuntime, findOnPath } from '../../electron/core/registry/runtime-check.js';

const files = (...paths: string[]) => {
  const set = new Set(paths);
  return (file: string) => set.has(file);
};

describe('runtime check', () => {
  it('finds a command in the PATH folders, in order', () => {
    const isFile = files('/opt/node/bin/npx', '/usr/bin/npx');
    expect(findOnPath('npx', { path: '/usr/local/bin::/opt/node/bin:/usr/bin', platform: 'linux', isFile })).toBe('/opt/node/bin/npx');
    expect(checkRuntime('npx', { path: '/opt/node/bin', platform: 'linux', isFile })).toEqual({ command: 'npx', present: true });
  });

  it('on Windows, tries each PATHEXT extension and splits PATH on ";"', () => {
    const isFile = files('C:\\Program Files\\nodejs\\npx.cmd');
    expect(findOnPath('npx', { path: 'C:\\Windows;C:\\Program Files\\nodejs', platform: 'win32', pathExt: '.EXE;.CMD', isFile })).toBe(
      'C:\\Program Files\\nodejs\\npx.cmd',
    );
  });

  it.each([
    ['npx', /needs Node\.js.*"npx" was not found.*https:\/\/nodejs\.org/],
    ['uvx', /needs uv .*https:\/\/docs\.astral\.sh\/uv/],
    ['docker', /needs Docker.*Docker Desktop.*start it/],
    ['dnx', /needs the \.NET 10 SDK.*dotnet\.microsoft\.com/],
  ])('says what is missing and how to get it: %s', (command, words) => {
    const r = checkRuntime(command, { path: '/usr/bin:/bin', platform: 'linux', isFile: () => false });
    expect(r.present).toBe(false);
    expect(r.missing).toMatch(words);
  });

  it('an empty or absent PATH finds nothing', () => {
    expect(findOnPath('docker', { path: undefined, platform: 'linux', isFile: () => true })).toBeUndefined();
    expect(findOnPath('docker', { path: '', platform: 'darwin', isFile: () => true })).toBeUndefined();
  });
});

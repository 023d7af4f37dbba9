import { describe, expect, it } from 'vitest';
import { buildChildEnv, readLoginShellPath, type RunProgram } from '../../electron/core/upstream/child-env.js';

describe('buildChildEnv', () => {
  const base = { HOME: '/home/ana', PATH: '/usr/bin:/bin', LANG: 'en_US.UTF-8', UNSET: undefined };

  it.each([
    ['the user env when nothing is configured', base, undefined, undefined, { HOME: '/home/ana', PATH: '/usr/bin:/bin', LANG: 'en_US.UTF-8' }],
    [
      'configured variables laid over it',
      base,
      { API_KEY: 's3cret', LANG: 'C' },
      undefined,
      { HOME: '/home/ana', PATH: '/usr/bin:/bin', LANG: 'C', API_KEY: 's3cret' },
    ],
    [
      'the login-shell PATH in place of PATH',
      base,
      undefined,
      '/opt/homebrew/bin:/usr/bin',
      { HOME: '/home/ana', PATH: '/opt/homebrew/bin:/usr/bin', LANG: 'en_US.UTF-8' },
    ],
    [
      'a configured PATH winning over the login shell',
      base,
      { PATH: '/custom' },
      '/opt/homebrew/bin',
      { HOME: '/home/ana', PATH: '/custom', LANG: 'en_US.UTF-8' },
    ],
    ['no PATH added when the login shell has none', { HOME: '/h' }, {}, undefined, { HOME: '/h' }],
  ] as const)('gives %s', (_name, baseEnv, configured, loginPath, expected) => {
    expect(buildChildEnv(baseEnv, configured, loginPath)).toEqual(expected);
  });

  it('does not change its inputs', () => {
    const baseCopy = { ...base };
    const configured = { A: '1' };
    buildChildEnv(base, configured, '/x');
    expect(base).toEqual(baseCopy);
    expect(configured).toEqual({ A: '1' });
  });

  it('treats names case-insensitively on win32', () => {
    const winBase = { Path: 'C:\\Windows', SystemRoot: 'C:\\Windows', ComSpec: 'C:\\Windows\\system32\\cmd.exe' };
    expect(buildChildEnv(winBase, { PATH: 'C:\\tools' }, undefined, 'win32')).toEqual({
      SystemRoot: 'C:\\Windows',
      ComSpec: 'C:\\Windows\\system32\\cmd.exe',
      PATH: 'C:\\tools',
    });
    expect(buildChildEnv(winBase, undefined, 'C:\\login', 'win32')).toMatchObject({ Path: 'C:\\login' });
    // Elsewhere Path and PATH are different variables.
    expect(buildChildEnv({ Path: 'a' }, { PATH: 'b' }, undefined, 'linux')).toEqual({ Path: 'a', PATH: 'b' });
  });

  it("leaves out the hub's own SPILLWAY_* variables, unless the server's config sets them", () => {
    const hubEnv = { HOME: '/h', SPILLWAY_TOKEN: 'hub-token', SPILLWAY_DATA_DIR: '/data', SPILLWAY_CONFIG: '/c.json', MY_SPILLWAY_NOTE: 'kept' };
    expect(buildChildEnv(hubEnv, { SPILLWAY_SECRET_ARG_1: 'arg' }, undefined, 'linux')).toEqual({
      HOME: '/h',
      MY_SPILLWAY_NOTE: 'kept',
      SPILLWAY_SECRET_ARG_1: 'arg',
    });
    expect(buildChildEnv(hubEnv, { SPILLWAY_DATA_DIR: '/its-own' }, undefined, 'darwin')).toMatchObject({ SPILLWAY_DATA_DIR: '/its-own' });
    // On win32 a variable's name is the same whatever its case; elsewhere only the upper-case prefix is the hub's.
    expect(buildChildEnv({ Spillway_Token: 't', A: '1' }, undefined, undefined, 'win32')).toEqual({ A: '1' });
    expect(buildChildEnv({ spillway_token: 't' }, undefined, undefined, 'linux')).toEqual({ spillway_token: 't' });
  });
});

describe('readLoginShellPath', () => {
  function fakeShell(output: string | Error) {
    const calls: Array<{ file: string; args: readonly string[] }> = [];
    const run: RunProgram = async (file, args) => {
      calls.push({ file, args });
      if (output instanceof Error) throw output;
      return output;
    };
    return { run, calls };
  }
  const marked = (path: string) => `__SPILLWAY_PATH_7f3a__${path}__SPILLWAY_PATH_7f3a__`;

  it('runs $SHELL -ilc and reads PATH between the markers, ignoring rc-file noise', async () => {
    const { run, calls } = fakeShell(`Welcome to zsh!\nnvm: using node 22\n${marked('/Users/ana/.nvm/bin:/opt/homebrew/bin:/usr/bin')}\nbye\n`);
    const path = await readLoginShellPath({ platform: 'darwin', env: { SHELL: '/bin/zsh' }, run });
    expect(path).toBe('/Users/ana/.nvm/bin:/opt/homebrew/bin:/usr/bin');
    expect(calls[0].file).toBe('/bin/zsh');
    expect(calls[0].args[0]).toBe('-ilc');
    expect(calls[0].args[1]).toContain('$PATH');
  });

  it.each([
    ['darwin', '/bin/zsh'],
    ['linux', '/bin/sh'],
  ] as const)('falls back to a default shell on %s', async (platform, shell) => {
    const { run, calls } = fakeShell(marked('/usr/bin'));
    await readLoginShellPath({ platform, env: {}, run });
    expect(calls[0].file).toBe(shell);
  });

  it.each([
    ['the shell fails', new Error('spawn /bin/zsh ENOENT')],
    ['the shell times out', Object.assign(new Error('timed out'), { killed: true })],
    ['no markers are printed', 'command not found: printf\n'],
    ['only one marker is printed', '__SPILLWAY_PATH_7f3a__/usr/bin'],
    ['PATH is empty', marked('')],
  ])('returns undefined when %s', async (_name, output) => {
    const { run } = fakeShell(output);
    expect(await readLoginShellPath({ platform: 'linux', env: { SHELL: '/bin/bash' }, run })).toBeUndefined();
  });

  it('does not run anything on Windows', async () => {
    const { run, calls } = fakeShell(marked('C:\\x'));
    expect(await readLoginShellPath({ platform: 'win32', env: { SHELL: 'bash' }, run })).toBeUndefined();
    expect(calls).toEqual([]);
  });
});

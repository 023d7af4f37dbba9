/**
 * The PATH servers start with (audit s12, plat): on Windows the registry's system and user Path, read
 * again so that what an installer added since the app started counts; elsewhere the login shell's. The
 * `reg query` answers are shaped as reg.exe prints them (CRLF, a blank first line, 4-space columns).
 */
import { describe, expect, it } from 'vitest';
import type { RunProgram } from '../../electron/core/upstream/child-env.js';
import { SERVER_PATH_MAX_AGE_MS, ServerPath } from '../../electron/core/upstream/server-path.js';
import { expandWindowsVars, parseRegQueryPath } from '../../electron/core/upstream/windows-registry-path.js';

const SYSTEM_KEY = 'HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment';
const USER_KEY = 'HKCU\\Environment';

const regAnswer = (key: string, type: string, value: string) =>
  `\r\n${key.replace('HKLM', 'HKEY_LOCAL_MACHINE').replace('HKCU', 'HKEY_CURRENT_USER')}\r\n    Path    ${type}    ${value}\r\n\r\n`;
const NOT_FOUND = Object.assign(new Error('ERROR: The system was unable to find the specified registry key or value.'), { code: 1 });

/** A reg.exe whose answers the test changes, as an installer changes the registry. */
function fakeReg(values: { system?: string; user?: string }) {
  const calls: Array<{ file: string; args: readonly string[] }> = [];
  const run: RunProgram = async (file, args) => {
    calls.push({ file, args });
    const key = args[1];
    const value = key === SYSTEM_KEY ? values.system : key === USER_KEY ? values.user : undefined;
    if (value === undefined) throw NOT_FOUND;
    return regAnswer(key, 'REG_EXPAND_SZ', value);
  };
  return { run, calls, values };
}

const WINDOWS_ENV = {
  SystemRoot: 'C:\\WINDOWS',
  USERPROFILE: 'C:\\Users\\ana',
  PATHEXT: '.COM;.EXE;.BAT;.CMD',
  // What the app started with: the registry's Path at login, before uv was installed.
  Path: 'C:\\WINDOWS\\system32;C:\\WINDOWS;C:\\Program Files\\nodejs\\;C:\\Users\\ana\\AppData\\Local\\Microsoft\\WindowsApps',
};
const SYSTEM_PATH = '%SystemRoot%\\system32;%SystemRoot%;C:\\Program Files\\nodejs\\';

describe('ServerPath on Windows', () => {
  it('reads the system, then the user Path from the registry, %VARS% expanded, the app’s own Path after', async () => {
    const reg = fakeReg({ system: SYSTEM_PATH, user: '%USERPROFILE%\\.local\\bin;%USERPROFILE%\\AppData\\Local\\Microsoft\\WindowsApps' });
    const path = await new ServerPath({
      platform: 'win32',
      env: { ...WINDOWS_ENV, Path: `${WINDOWS_ENV.Path};D:\\launcher\\bin` },
      fresh: true,
      run: reg.run,
    }).current();
    expect(path).toBe(
      [
        'C:\\WINDOWS\\system32',
        'C:\\WINDOWS',
        'C:\\Program Files\\nodejs\\',
        'C:\\Users\\ana\\.local\\bin',
        'C:\\Users\\ana\\AppData\\Local\\Microsoft\\WindowsApps',
        // Only in the app's own Path (a launcher added it): kept, after the registry's.
        'D:\\launcher\\bin',
      ].join(';'),
    );
    // reg.exe by its full path, one query per key.
    expect(reg.calls.map((c) => c.file)).toEqual(['C:\\WINDOWS\\System32\\reg.exe', 'C:\\WINDOWS\\System32\\reg.exe']);
    expect(reg.calls.map((c) => c.args)).toEqual([
      ['query', SYSTEM_KEY, '/v', 'Path'],
      ['query', USER_KEY, '/v', 'Path'],
    ]);
  });

  it('"install it, then add the server again": a folder an installer added since the start is seen, without a restart', async () => {
    const reg = fakeReg({ system: SYSTEM_PATH, user: '%USERPROFILE%\\AppData\\Local\\Microsoft\\WindowsApps' });
    let now = 1_000;
    const serverPath = new ServerPath({ platform: 'win32', env: WINDOWS_ENV, fresh: true, run: reg.run, now: () => now });
    expect(await serverPath.current({ reread: true })).not.toContain('.local');
    // uv's installer adds its folder to the user Path; the app's own Path does not change.
    reg.values.user = `C:\\Users\\ana\\.local\\bin;${reg.values.user}`;
    now += 1;
    // The runtime check reads again at once, and server starts use that read.
    expect(await serverPath.current({ reread: true })).toContain('C:\\Users\\ana\\.local\\bin');
    expect(await serverPath.replacement()).toContain('C:\\Users\\ana\\.local\\bin');
  });

  it('a user without a Path of their own: the system Path and the app’s own', async () => {
    const reg = fakeReg({ system: SYSTEM_PATH });
    const path = await new ServerPath({ platform: 'win32', env: { ...WINDOWS_ENV, Path: 'E:\\tools' }, fresh: true, run: reg.run }).current();
    expect(path).toBe('C:\\WINDOWS\\system32;C:\\WINDOWS;C:\\Program Files\\nodejs\\;E:\\tools');
  });

  it('when reg.exe cannot be run, servers keep the app’s own Path', async () => {
    const reg = fakeReg({});
    const serverPath = new ServerPath({ platform: 'win32', env: WINDOWS_ENV, fresh: true, run: reg.run });
    expect(await serverPath.replacement()).toBeUndefined();
    expect(await serverPath.current()).toBe(WINDOWS_ENV.Path);
  });

  it('a folder garbled by the console code page is dropped; the same folder, case and trailing "\\" aside, is listed once', async () => {
    const reg = fakeReg({ system: 'C:\\WINDOWS\\system32', user: 'C:\\Users\\Jos\uFFFD\\bin;c:\\windows\\System32\\' });
    const path = await new ServerPath({
      platform: 'win32',
      env: { SystemRoot: 'C:\\WINDOWS', Path: 'C:\\Users\\José\\bin' },
      fresh: true,
      run: reg.run,
    }).current();
    expect(path).toBe('C:\\WINDOWS\\system32;C:\\Users\\José\\bin');
  });
});

describe('reg query output', () => {
  it('reads REG_SZ as written and expands REG_EXPAND_SZ; an empty value is empty, no value line is undefined', () => {
    const env = { SystemRoot: 'C:\\WINDOWS' };
    expect(parseRegQueryPath(regAnswer(USER_KEY, 'REG_SZ', 'C:\\%odd%\\bin'), env)).toBe('C:\\%odd%\\bin');
    expect(parseRegQueryPath(regAnswer(USER_KEY, 'REG_EXPAND_SZ', '%SYSTEMROOT%\\a;%Missing%\\b'), env)).toBe('C:\\WINDOWS\\a;%Missing%\\b');
    expect(parseRegQueryPath('\r\nHKEY_CURRENT_USER\\Environment\r\n    Path    REG_EXPAND_SZ\r\n\r\n', env)).toBe('');
    expect(parseRegQueryPath('\r\nHKEY_CURRENT_USER\\Environment\r\n    TEMP    REG_EXPAND_SZ    %USERPROFILE%\\Temp\r\n', env)).toBeUndefined();
    expect(expandWindowsVars('%userprofile%\\x', { USERPROFILE: 'C:\\Users\\ana' })).toBe('C:\\Users\\ana\\x');
  });
});

describe('ServerPath on macOS and Linux', () => {
  const marked = (path: string) => `__SPILLWAY_PATH_7f3a__${path}__SPILLWAY_PATH_7f3a__`;

  it('reads the login shell’s PATH; server starts share a read until it is SERVER_PATH_MAX_AGE_MS old', async () => {
    let shellPath = '/opt/homebrew/bin:/usr/bin:/bin';
    let runs = 0;
    const run: RunProgram = async () => {
      runs += 1;
      return marked(shellPath);
    };
    let now = 0;
    const serverPath = new ServerPath({ platform: 'darwin', env: { PATH: '/usr/bin:/bin', SHELL: '/bin/zsh' }, fresh: true, run, now: () => now });
    const [a, b] = await Promise.all([serverPath.replacement(), serverPath.replacement()]);
    expect([a, b, runs]).toEqual(['/opt/homebrew/bin:/usr/bin:/bin', '/opt/homebrew/bin:/usr/bin:/bin', 1]);
    shellPath = `/Users/ana/.local/bin:${shellPath}`;
    now += SERVER_PATH_MAX_AGE_MS - 1;
    expect(await serverPath.replacement()).toBe('/opt/homebrew/bin:/usr/bin:/bin');
    now += 1;
    expect(await serverPath.replacement()).toBe('/Users/ana/.local/bin:/opt/homebrew/bin:/usr/bin:/bin');
    expect(runs).toBe(2);
  });

  it('without `fresh` (a hub started from a terminal) nothing is run and servers get the app’s own PATH', async () => {
    let runs = 0;
    const run: RunProgram = async () => {
      runs += 1;
      return marked('/elsewhere');
    };
    const serverPath = new ServerPath({ platform: 'win32', env: { Path: 'C:\\own' }, fresh: false, run });
    expect(await serverPath.current({ reread: true })).toBe('C:\\own');
    expect(await new ServerPath({ platform: 'linux', env: { PATH: '/own' }, fresh: false, run }).current()).toBe('/own');
    expect(runs).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { escapeCmdArgument, resolveSpawnCommand } from '../../electron/core/upstream/spawn-command.js';

describe('resolveSpawnCommand', () => {
  it.each(['linux', 'darwin', 'freebsd'] as const)('leaves commands unchanged on %s', (platform) => {
    for (const command of ['npx', 'uvx', 'node', 'run.cmd', '/usr/bin/python3']) {
      expect(resolveSpawnCommand(command, ['-y', 'a b'], platform)).toEqual({
        command,
        args: ['-y', 'a b'],
        windowsVerbatimArguments: false,
        viaCmd: false,
      });
    }
  });

  // Expected lines match cross-spawn's escaping (what the SDK's StdioClientTransport uses), checked
  // against its lib/util/escape.js: args are CRT-quoted, then every cmd metacharacter gets a caret.
  const viaCmd: Array<[string, string[], string]> = [
    ['npx', ['-y', '@modelcontextprotocol/server-memory'], '"npx ^"-y^" ^"@modelcontextprotocol/server-memory^""'],
    ['npm', ['exec', 'x'], '"npm ^"exec^" ^"x^""'],
    ['uvx', ['mcp-server-fetch'], '"uvx ^"mcp-server-fetch^""'],
    ['pnpm', ['dlx', 'x'], '"pnpm ^"dlx^" ^"x^""'],
    ['yarn', ['dlx', 'x'], '"yarn ^"dlx^" ^"x^""'],
    ['bunx', ['x'], '"bunx ^"x^""'],
    ['NPX', [], '"NPX"'],
    ['server.cmd', ['--port', '0'], '"server.cmd ^"--port^" ^"0^""'],
    ['C:/tools/start.BAT', [], '"C:\\tools\\start.BAT"'],
    ['python', ['-m', 'srv'], '"python ^"-m^" ^"srv^""'],
    ['C:\\Program Files\\nodejs\\npx.cmd', ['-y', 'pkg'], '"C:\\Program^ Files\\nodejs\\npx.cmd ^"-y^" ^"pkg^""'],
    ['npx', ['a b'], '"npx ^"a^ b^""'],
    ['npx', ['say "hi"'], '"npx ^"say^ \\^"hi\\^"^""'],
    ['npx', ['a&b|c>d<e^f%PATH%!x!'], '"npx ^"a^&b^|c^>d^<e^^f^%PATH^%^!x^!^""'],
    ['npx', ['C:\\dir\\'], '"npx ^"C:\\dir\\\\^""'],
    ['npx', [''], '"npx ^"^""'],
  ];
  it.each(viaCmd)('on win32 runs %s %j through cmd.exe', (command, args, line) => {
    expect(resolveSpawnCommand(command, args, 'win32')).toEqual({
      command: 'cmd.exe',
      args: ['/d', '/s', '/c', line],
      windowsVerbatimArguments: true,
      viaCmd: true,
    });
  });

  it.each([
    ['node.exe', ['server.js']],
    ['C:\\Python312\\python.exe', ['-m', 'srv']],
    ['tool.com', []],
    ['C:\\srv\\server.js', []],
  ])('on win32 starts %s directly', (command, args) => {
    expect(resolveSpawnCommand(command, args, 'win32')).toEqual({
      command,
      args,
      windowsVerbatimArguments: false,
      viaCmd: false,
    });
  });

  it('uses the given comspec', () => {
    expect(resolveSpawnCommand('npx', [], 'win32', 'C:\\Windows\\System32\\cmd.exe').command).toBe('C:\\Windows\\System32\\cmd.exe');
  });

  it('escapes metacharacters twice for npm shims in node_modules/.bin', () => {
    const { args } = resolveSpawnCommand('C:\\app\\node_modules\\.bin\\server.cmd', ['a&b'], 'win32');
    expect(args[3]).toBe('"C:\\app\\node_modules\\.bin\\server.cmd ^^^"a^^^&b^^^""');
  });
});

describe('escapeCmdArgument', () => {
  it.each([
    ['plain', '^"plain^"'],
    ['with space', '^"with^ space^"'],
    // CRT rule: n backslashes before a literal quote become 2n+1 (cross-spawn emits 2n, which ends the quote).
    ['a\\\\"b', '^"a\\\\\\\\\\^"b^"'],
    ['end\\', '^"end\\\\^"'],
  ])('quotes %j', (arg, expected) => {
    expect(escapeCmdArgument(arg)).toBe(expected);
  });
});

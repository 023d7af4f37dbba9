/** Issue 14, item 6: what a user pastes to add a server is read tolerantly, or refused in a sentence. */
import { describe, expect, it } from 'vitest';
import { parseSnippet } from '../../renderer/src/lib/snippet-parse.js';
import { splitCommandLine } from '../../renderer/src/lib/snippet-command.js';

/** A whole Claude Desktop config as the app writes it, with what else it keeps beside the servers. */
const CLAUDE_DESKTOP = `{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/ada/Desktop"]
    },
    "github": {
      "command": "docker",
      "args": ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_x" }
    }
  }
}`;

describe('parseSnippet: what it reads', () => {
  const cases: Array<[string, string, Array<{ name: string; config: Record<string, unknown> }>]> = [
    ['one entry', '{"command":"uvx","args":["mcp-server-git"]}', [{ name: '', config: { type: 'stdio', command: 'uvx', args: ['mcp-server-git'] } }]],
    ['a bare pair with a trailing comma', '"git": {"command":"uvx"},', [{ name: 'git', config: { command: 'uvx' } }]],
    [
      'trailing commas inside',
      '{ "mcpServers": { "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory",], }, }, }',
      [{ name: 'memory', config: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } }],
    ],
    [
      'comments',
      '{\n  // my servers\n  "mcpServers": { /* the notes */ "notes": { "command": "node", "args": ["notes.js"] } }\n}',
      [{ name: 'notes', config: { command: 'node' } }],
    ],
    [
      'VS Code servers',
      '{"servers":{"remote":{"url":"https://x.dev/sse"}}}',
      [{ name: 'remote', config: { type: 'sse', url: 'https://x.dev/sse' } }],
    ],
    [
      'a whole claude_desktop_config.json',
      CLAUDE_DESKTOP,
      [
        { name: 'filesystem', config: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/ada/Desktop'] } },
        { name: 'github', config: { command: 'docker', env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_x' } } },
      ],
    ],
    [
      'an npx command line',
      'npx -y @modelcontextprotocol/server-filesystem /tmp',
      [{ name: 'filesystem', config: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], env: {} } }],
    ],
    [
      'quotes, a prompt and environment variables',
      `$ API_KEY=abc env DEBUG=1 uvx mcp-server-fetch --user-agent "My Agent/1.0" --root '/tmp/a b'`,
      [
        {
          name: 'fetch',
          config: {
            command: 'uvx',
            args: ['mcp-server-fetch', '--user-agent', 'My Agent/1.0', '--root', '/tmp/a b'],
            env: { API_KEY: 'abc', DEBUG: '1' },
          },
        },
      ],
    ],
    [
      'a versioned package',
      'npx -y @upstash/context7-mcp@latest',
      [{ name: 'context7', config: { command: 'npx', args: ['-y', '@upstash/context7-mcp@latest'] } }],
    ],
    [
      'a program of its own',
      '/usr/local/bin/weather-server --port 0',
      [{ name: 'weather', config: { command: '/usr/local/bin/weather-server', args: ['--port', '0'] } }],
    ],
    ['a web address', 'https://mcp.example.com/mcp', [{ name: 'example', config: { type: 'http', url: 'https://mcp.example.com/mcp' } }]],
  ];
  it.each(cases)('%s', (_name, text, expected) => {
    const servers = parseSnippet(text);
    expect(servers).toHaveLength(expected.length);
    for (const [i, want] of expected.entries()) {
      expect(servers[i]!.name).toBe(want.name);
      expect(servers[i]!.config).toMatchObject(want.config);
    }
  });
});

describe('parseSnippet: what it refuses, in a sentence with the next step', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['nothing', '  ', /^Paste a server first/],
    [
      'broken JSON',
      '{"mcpServers": {"a": {"command": "npx" "args": []}}}',
      /^This is not JSON Spillway can read \(a comma was expected at line 1, column \d+\)\. Copy the whole snippet/,
    ],
    ['an unclosed brace', '{"mcpServers": {', /a closing \} was expected|a name in double quotes was expected/],
    ['no server in it', '{"mcpServers":{}}', /^No server found in this JSON: each server needs a "command"/],
    ['an unclosed quote', 'npx -y "server-x', /^A double quote is not closed in this command line: add the closing quote\.$/],
    [
      'a server with an empty command',
      '{"mcpServers":{"a":{"command":""}}}',
      /^In "a": A server needs a "command" \(the program to start\) or a "url"/,
    ],
    ['one entry with args not a list', '{"command":"npx","args":"-y x"}', /^The arguments must be a list\.$/],
  ];
  it.each(cases)('%s', (_name, text, message) => {
    expect(() => parseSnippet(text)).toThrow(message);
    try {
      parseSnippet(text);
    } catch (err) {
      // Never a parser's own words.
      expect((err as Error).message).not.toMatch(/Unexpected token|JSON\.parse|position \d+/);
    }
  });
});

describe('splitCommandLine', () => {
  const cases: Array<[string, string[]]> = [
    ['a b  c', ['a', 'b', 'c']],
    [`a "b c" 'd e'`, ['a', 'b c', 'd e']],
    [`a "say \\"hi\\"" 'it''s'`, ['a', 'say "hi"', 'its']],
    ['a b\\ c', ['a', 'b c']],
    ['a \\\n  b', ['a', 'b']],
    ['C:\\tools\\server.exe --x', ['C:\\tools\\server.exe', '--x']],
    [`a ""`, ['a', '']],
  ];
  it.each(cases)('%j', (line, words) => {
    expect(splitCommandLine(line)).toEqual(words);
  });
});

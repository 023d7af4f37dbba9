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

// Session 12 audit: snippets in common real shapes used to be read into a server that would not work.
describe('parseSnippet: a client’s add command is read into the server it adds', () => {
  const cases: Array<[string, { name: string; config: Record<string, unknown> }]> = [
    [
      'claude mcp add memory -- npx -y @modelcontextprotocol/server-memory',
      { name: 'memory', config: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: {} } },
    ],
    [
      'claude mcp add --transport http notion https://mcp.notion.com/mcp',
      { name: 'notion', config: { type: 'http', url: 'https://mcp.notion.com/mcp' } },
    ],
    [
      'claude mcp add --transport sse linear https://mcp.linear.app/sse',
      { name: 'linear', config: { type: 'sse', url: 'https://mcp.linear.app/sse' } },
    ],
    [
      'claude mcp add -s user airtable --env AIRTABLE_API_KEY=pat123 -e DEBUG=1 -- npx -y airtable-mcp-server',
      { name: 'airtable', config: { command: 'npx', args: ['-y', 'airtable-mcp-server'], env: { AIRTABLE_API_KEY: 'pat123', DEBUG: '1' } } },
    ],
    [
      'claude mcp add my-server -e API_KEY=123 npx -y my-mcp --verbose',
      { name: 'my-server', config: { command: 'npx', args: ['-y', 'my-mcp', '--verbose'], env: { API_KEY: '123' } } },
    ],
    [
      'claude mcp add --transport http github https://api.githubcopilot.com/mcp -H "Authorization: Bearer ghp_real123"',
      { name: 'github', config: { type: 'http', url: 'https://api.githubcopilot.com/mcp', headers: { Authorization: 'Bearer ghp_real123' } } },
    ],
    [
      `claude mcp add-json weather '{"type":"stdio","command":"/opt/weather-cli","args":["--units","metric"],"env":{"CACHE_DIR":"/tmp"}}'`,
      { name: 'weather', config: { type: 'stdio', command: '/opt/weather-cli', args: ['--units', 'metric'], env: { CACHE_DIR: '/tmp' } } },
    ],
    [
      `code --add-mcp '{"name":"fetch","command":"uvx","args":["mcp-server-fetch"]}'`,
      { name: 'fetch', config: { type: 'stdio', command: 'uvx', args: ['mcp-server-fetch'] } },
    ],
    ['gemini mcp add git uvx mcp-server-git', { name: 'git', config: { type: 'stdio', command: 'uvx', args: ['mcp-server-git'] } }],
  ];
  it.each(cases)('%s', (line, want) => {
    const [server, ...more] = parseSnippet(line);
    expect(more).toEqual([]);
    expect(server!.name).toBe(want.name);
    expect(server!.config).toMatchObject(want.config);
  });

  it('refuses a client command that adds no server, rather than running it', () => {
    expect(() => parseSnippet('claude mcp list')).toThrow(/^This is a command that manages claude's own servers, not one that starts a server/);
    expect(() => parseSnippet('claude mcp add memory')).toThrow(/has no program or web address for "memory": paste the part after --/);
  });
});

describe('parseSnippet: what else READMEs and settings hold', () => {
  const cases: Array<[string, string, { name: string; config: Record<string, unknown> }]> = [
    [
      'a ```json fence',
      '```json\n{ "mcpServers": { "memory": { "command": "npx", "args": ["-y", "m"] } } }\n```',
      { name: 'memory', config: { command: 'npx' } },
    ],
    ['a fence with no language', '```\n{"command":"uvx","args":["mcp-server-git"]}\n```\n', { name: '', config: { command: 'uvx' } }],
    ['a ```bash fence around a command', '```bash\nnpx -y @modelcontextprotocol/server-memory\n```', { name: 'memory', config: { command: 'npx' } }],
    ['inline code', '`uvx mcp-server-fetch`', { name: 'fetch', config: { command: 'uvx', args: ['mcp-server-fetch'] } }],
    [
      'VS Code settings.json',
      '{ "editor.fontSize": 14, "mcp": { "servers": { "github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/" } } } }',
      { name: 'github', config: { type: 'http', url: 'https://api.githubcopilot.com/mcp/' } },
    ],
    ['a web address without https://', 'mcp.notion.com/mcp', { name: 'notion', config: { type: 'http', url: 'https://mcp.notion.com/mcp' } }],
    ['a host with no path', 'mcp.deepwiki.com', { name: 'deepwiki', config: { type: 'http', url: 'https://mcp.deepwiki.com' } }],
    ['an address on this computer', 'localhost:3000/mcp', { name: 'localhost', config: { type: 'http', url: 'http://localhost:3000/mcp' } }],
    ['a script named like a host', 'server.py', { name: 'server', config: { type: 'stdio', command: 'server.py' } }],
    ['a relative script', 'dist/index.js', { name: 'index', config: { type: 'stdio', command: 'dist/index.js' } }],
  ];
  it.each(cases)('%s', (_label, text, want) => {
    const [server] = parseSnippet(text);
    expect(server!.name).toBe(want.name);
    expect(server!.config).toMatchObject(want.config);
  });
});

describe('parseSnippet: stand-in values are cleared and noted, never kept as real', () => {
  const standIns = [
    'YOUR_API_KEY_HERE',
    '<your-token>',
    'your_key_here',
    '${input:github_token}',
    '${env:GITHUB_TOKEN}',
    'Bearer <TOKEN>',
    'ghp_xxxxxxxxxxxx',
    'sk-...',
  ];
  it.each(standIns)('%s', (value) => {
    const [server] = parseSnippet(JSON.stringify({ mcpServers: { brave: { command: 'npx', env: { BRAVE_API_KEY: value, LOG_DIR: '/tmp/logs' } } } }));
    expect(server!.config).toMatchObject({ env: { BRAVE_API_KEY: '', LOG_DIR: '/tmp/logs' } });
    expect(server!.placeholders).toEqual([{ field: 'env', key: 'BRAVE_API_KEY', was: value }]);
  });

  it('in headers, and in a claude mcp add line', () => {
    const [web] = parseSnippet(
      '{"servers":{"gh":{"url":"https://api.githubcopilot.com/mcp","headers":{"Authorization":"Bearer ${input:github_token}"}}}}',
    );
    expect(web!.config).toMatchObject({ headers: { Authorization: '' } });
    expect(web!.placeholders).toEqual([{ field: 'headers', key: 'Authorization', was: 'Bearer ${input:github_token}' }]);
    const [cli] = parseSnippet('claude mcp add airtable --env AIRTABLE_API_KEY=YOUR_KEY -- npx -y airtable-mcp-server');
    expect(cli!.config).toMatchObject({ env: { AIRTABLE_API_KEY: '' } });
  });

  it('keeps real values', () => {
    const env = { A: 'sk-live-abc123', B: '/Users/ada/notes.json', C: 'ghp_x', D: 'https://example.com/path', E: 'true', F: 'here' };
    const [server] = parseSnippet(JSON.stringify({ command: 'npx', env }));
    expect(server!.config).toMatchObject({ env });
    expect(server!.placeholders).toBeUndefined();
  });
});

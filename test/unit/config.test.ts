import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  defaultConfig,
  describeZodError,
  parseConfig,
  serializeConfig,
  ServerConfigSchema,
  slugServerId,
  uniqueServerId,
} from '../../shared/config.js';

describe('parseConfig', () => {
  it('gives the defaults for an empty file', () => {
    const { config, foreign } = parseConfig('');
    expect(config).toEqual(defaultConfig());
    expect(foreign).toBe(false);
    expect(config.settings.spill.thresholdTokens).toBe(10_000);
    expect(config.settings.toolNameMaxLength).toBe(48);
  });

  it('accepts the mcpServers form of Claude Desktop and Cursor, and marks it foreign', () => {
    const { config, foreign } = parseConfig(
      JSON.stringify({
        mcpServers: {
          'My Files': { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], env: { A: '1' } },
          remote: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } },
          legacy: { url: 'https://example.com/sse' },
          typed: { type: 'sse', url: 'https://example.com/events' },
          solo: { command: 'node', args: ['s.js'], prefix: false },
          off: { command: 'node', disabled: true },
        },
      }),
    );
    expect(foreign).toBe(true);
    expect(config.servers['my-files']).toMatchObject({ type: 'stdio', command: 'npx', env: { A: '1' }, prefix: true, enabled: true });
    expect(config.servers.remote).toMatchObject({ type: 'http', headers: { Authorization: 'Bearer x' } });
    expect(config.servers.legacy.type).toBe('sse');
    expect(config.servers.typed.type).toBe('sse');
    expect(config.servers.solo.prefix).toBe(false);
    expect(config.servers.off.enabled).toBe(false);
  });

  it.each([
    ['not json', '{', /not valid JSON in \/x\/config.json/, undefined],
    ['an array', '[]', /must be a JSON object/, '(root)'],
    ['a bad url', '{"version":1,"servers":{"a":{"type":"http","url":"nope"}}}', /servers\.a\.url/, 'servers.a.url'],
    ['a bad id', '{"version":1,"servers":{"a b":{"type":"stdio","command":"x"}}}', /servers/, undefined],
    [
      'a negative threshold',
      '{"version":1,"settings":{"spill":{"thresholdTokens":-5}}}',
      /settings\.spill\.thresholdTokens/,
      'settings.spill.thresholdTokens',
    ],
    ['a newer version', '{"version":99}', /newer Spillway/, 'version'],
    ['an entry without command or url', '{"mcpServers":{"x":{"args":[]}}}', /mcpServers\.x: needs either "command"/, 'mcpServers.x'],
  ])('refuses %s, naming the field and the file', (_label, text, message, field) => {
    try {
      parseConfig(text, '/x/config.json');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).message).toMatch(message);
      expect((err as ConfigError).message).toContain('/x/config.json');
      if (field) expect((err as ConfigError).field).toBe(field);
    }
  });

  it('places a JSON fault by line and column without quoting the text: it may hold a secret typed in', () => {
    const text =
      '{\n  "version": 1,\n  "servers": {\n    "gh": { "type": "stdio", "command": "npx", "env": { "GITHUB_TOKEN": ghp_R4nd0mSECRET } }\n  }\n}';
    for (const broken of [text, text.replace('"GITHUB_TOKEN": ghp', '"GITHUB_TOKEN": "ghp').replace('SECRET }', 'SECRET" "X": "y" }')]) {
      const message = (() => {
        try {
          parseConfig(broken, '/x/config.json');
        } catch (err) {
          return (err as Error).message;
        }
      })();
      expect(message).toMatch(/^The config is not valid JSON in \/x\/config\.json, at line 4, column \d+: /);
      expect(message).not.toMatch(/ghp|R4nd|SECRET|B_TOKEN/);
    }
  });

  it('loads a server entry with a field it does not know (the field is ignored), as config.json always did', () => {
    const { config } = parseConfig('{"version":1,"servers":{"a":{"type":"stdio","command":"x","note":"mine"}}}');
    expect(config.servers.a).toMatchObject({ type: 'stdio', command: 'x' });
  });

  it.each([
    ['a misspelt headers', { type: 'http', url: 'https://x/mcp', header: { Authorization: 'Bearer zzz' } }, '"header"'],
    ['a misspelt env', { type: 'stdio', command: 'x', enviroment: { A: '1' } }, '"enviroment"'],
    ['a field of another kind of server', { type: 'sse', url: 'https://x/sse', command: 'x' }, '"command"'],
  ])('refuses a server config (as the API and the windows give it) with %s, naming it', (_label, input, named) => {
    const parsed = ServerConfigSchema.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(describeZodError(parsed.error!, 'config').message).toContain(`${named} is not a known setting here`);
  });

  it('keeps unknown top-level keys (the desktop shell may store its own) through a round trip', () => {
    const { config } = parseConfig('{"version":1,"windowBounds":{"w":800}}');
    expect(JSON.parse(serializeConfig(config)).windowBounds).toEqual({ w: 800 });
  });

  it('serializes the way conf/electron-store do (tab-indented JSON)', () => {
    expect(serializeConfig(defaultConfig())).toMatch(/^\{\n\t"version": 1,/);
  });
});

describe('server ids', () => {
  it.each([
    ['My Files', 'my-files'],
    ['  GitHub (work) ', 'github-work'],
    ['Café', 'cafe'],
    ['!!!', 'server'],
  ])('%s -> %s', (name, id) => expect(slugServerId(name)).toBe(id));

  it('never reuses a taken id', () => {
    expect(uniqueServerId('fs', ['fs', 'fs-2'])).toBe('fs-3');
  });
});

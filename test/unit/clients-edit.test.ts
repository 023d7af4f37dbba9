import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  applyConnect,
  applyDisconnect,
  CLIENT_DEFINITIONS as D,
  ConfigParseError,
  ConfigShapeError,
  entryState,
  ForeignEntryError,
  type SpillwayEntry,
} from '../../electron/core/clients/index.js';
import { removeJsoncProperty, setJsoncProperty } from '../../electron/core/clients/jsonc-edit.js';
import { setTomlTable } from '../../electron/core/clients/toml-edit.js';

const fixture = (name: string) => readFileSync(fileURLToPath(new URL(`../fixtures/clients/${name}`, import.meta.url)), 'utf8');

const HTTP: SpillwayEntry = { kind: 'http', url: 'http://127.0.0.1:4810/mcp', headers: { Authorization: 'Bearer tok_abc123' } };
/** The bridge as the packaged app writes it (`<app> <spillway.js> bridge --data-dir <folder>`). */
const STDIO: SpillwayEntry = {
  kind: 'stdio',
  command: '/opt/Spillway/spillway',
  args: ['/opt/Spillway/resources/spillway.js', 'bridge', '--data-dir', '/home/u/.config/Spillway'],
  env: { ELECTRON_RUN_AS_NODE: '1' },
};

/** `after` must be `before` with one contiguous block inserted, and that block must be our entry only. */
function insertedBlock(before: string, after: string): string {
  let p = 0;
  while (p < before.length && before[p] === after[p]) p++;
  let s = 0;
  while (s < before.length - p && before[before.length - 1 - s] === after[after.length - 1 - s]) s++;
  expect(before.slice(0, p) + before.slice(before.length - s)).toBe(before);
  return after.slice(p, after.length - s);
}

describe('JSONC edits keep every byte outside our entry', () => {
  const cases: Array<[string, string, keyof typeof D, SpillwayEntry]> = [
    ['VS Code, tabs, comments, trailing commas', 'vscode-mcp.jsonc', 'vscode', HTTP],
    ['Claude Desktop, CRLF and unicode', 'claude-desktop-crlf.json', 'claude-desktop', STDIO],
    ['Cursor, mixed one-line and multi-line servers', 'cursor-mcp.json', 'cursor', HTTP],
    ['Zed, leading comments and legacy server shape', 'zed-settings.jsonc', 'zed', HTTP],
  ];
  for (const [title, file, id, entry] of cases) {
    it(`${title}: connect inserts only the entry; disconnect gives back the exact bytes`, () => {
      const before = fixture(file);
      const connected = applyConnect(D[id], before, file, entry).text;
      const block = insertedBlock(before, connected);
      expect(block).toMatch(/"spillway": \{/);
      expect(block).not.toMatch(/(^|\s)\/\/|\/\*/); // no comment moved into our block
      if (before.includes('\r\n')) expect(connected.replace(/\r\n/g, '')).not.toContain('\n');
      expect(applyDisconnect(D[id], connected, file).text).toBe(before);
    });
  }

  it('updating a stale entry replaces only its value and keeps keys the user added to it', () => {
    const before =
      '{\n  "mcpServers": {\n    "a": {"command": "x"},\n    "spillway": {"url": "http://127.0.0.1:1/mcp", "autoApprove": ["t"]}\n  }\n}\n';
    const out = applyConnect(D.cline, before, 'f', HTTP).text;
    expect(out.startsWith('{\n  "mcpServers": {\n    "a": {"command": "x"},\n    "spillway": {\n      "type": "streamableHttp",')).toBe(true);
    expect(JSON.parse(out).mcpServers.spillway).toEqual({
      type: 'streamableHttp',
      url: HTTP.kind === 'http' ? HTTP.url : '',
      headers: { Authorization: 'Bearer tok_abc123' },
      autoApprove: ['t'],
    });
    // Connecting again changes nothing.
    expect(applyConnect(D.cline, out, 'f', HTTP).text).toBe(out);
  });

  it('empty file, whitespace, comments only, `{}` and an empty servers table', () => {
    expect(applyConnect(D.cursor, '', 'f', HTTP).text).toBe(
      '{\n  "mcpServers": {\n    "spillway": {\n      "url": "http://127.0.0.1:4810/mcp",\n      "headers": {\n        "Authorization": "Bearer tok_abc123"\n      }\n    }\n  }\n}\n',
    );
    expect(JSON.parse(applyConnect(D.cursor, '  \n', 'f', HTTP).text).mcpServers.spillway.url).toBe('http://127.0.0.1:4810/mcp');
    const commented = applyConnect(D.vscode, '// mine\n', 'f', HTTP).text;
    expect(commented.startsWith('// mine\n{\n  "servers": {')).toBe(true);
    const emptyTable = '{\n  "mcpServers": {},\n  "x": 1\n}\n';
    const added = applyConnect(D.cursor, emptyTable, 'f', HTTP).text;
    expect(added).toContain('"mcpServers": {\n    "spillway": {');
    expect(applyDisconnect(D.cursor, added, 'f').text).toBe(emptyTable);
  });

  it('one-line objects stay on one line; a null table becomes an object', () => {
    expect(setJsoncProperty('{"a": {"x": 1}}', 'f', ['a'], 'y', 2)).toBe('{"a": {"x": 1, "y": 2}}');
    expect(removeJsoncProperty('{"a": {"x": 1, "y": 2}}', 'f', ['a'], 'y')).toBe('{"a": {"x": 1}}');
    expect(removeJsoncProperty('{"a": {"y": 2, "x": 1}}', 'f', ['a'], 'y')).toBe('{"a": {"x": 1}}');
    expect(JSON.parse(applyConnect(D.cursor, '{"mcpServers": null}', 'f', HTTP).text).mcpServers.spillway).toBeTruthy();
  });

  it('a malformed file throws a ConfigParseError naming the file, line and column', () => {
    const bad = '{\n  "mcpServers": {\n    "a": {"command": "x"}\n    "b": {}\n  }\n}\n';
    try {
      applyConnect(D.cursor, bad, '/home/u/.cursor/mcp.json', HTTP);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigParseError);
      const err = e as ConfigParseError;
      expect([err.file, err.line, err.column]).toEqual(['/home/u/.cursor/mcp.json', 4, 5]);
      expect(err.message).toContain('/home/u/.cursor/mcp.json at line 4, column 5');
      // Plain words, not the parser's code ("CommaExpected"), and what to do next.
      expect(err.message).toBe(
        'There is a mistake in /home/u/.cursor/mcp.json at line 4, column 5: a comma was expected, so it is not valid JSON. ' +
          "Spillway left the file untouched. Fix it in a text editor, then try again. If Spillway changed this file before, Restore backup on its card goes back to the copy from before Spillway's last change.",
      );
    }
    expect(() => applyConnect(D.cursor, '{"mcpServers": {}}}', 'f', HTTP)).toThrow(
      /^There is a mistake in f at line 1, column 19: the text goes on after the end, so it is not valid JSON\. /,
    );
    expect(() => applyConnect(D.cursor, '{"mcpServers": @}', 'f', HTTP)).toThrow(
      /^There is a mistake in f at line 1, column 16: a character that does not belong there, so/,
    );
    expect(() => applyConnect(D.cursor, '[1, 2]', 'f', HTTP)).toThrow(/top level is a list/);
    expect(() => applyConnect(D.cursor, '{"mcpServers": [1]}', 'f', HTTP)).toThrow(ConfigShapeError);
    expect(() => applyDisconnect(D.cursor, '{"mcpServers": ', 'f')).toThrow(ConfigParseError);
  });
});

describe('a "spillway" server the user made themselves is not ours', () => {
  const userMade: Array<[string, keyof typeof D, string]> = [
    [
      'another program named spillway, with a secret',
      'cursor',
      '{\n  "mcpServers": {\n    "spillway": {"command": "npx", "args": ["-y", "spillway-mcp"], "env": {"SPILLWAY_API_KEY": "user-secret-123"}}\n  }\n}\n',
    ],
    ['a remote server of that name', 'cursor', '{"mcpServers": {"spillway": {"url": "https://spillway.example.com/mcp"}}}'],
    ['a local server on another path', 'cline', '{"mcpServers": {"spillway": {"url": "http://127.0.0.1:8080/sse"}}}'],
    ['not a server at all', 'cursor', '{"mcpServers": {"spillway": "on"}}'],
    ['a TOML table', 'codex', '# mine\n[mcp_servers.spillway]\ncommand = "npx"\nargs = ["-y", "spillway-mcp"]\n'],
    ['a TOML inline table', 'codex', '[mcp_servers]\nspillway = { command = "old" }\n'],
  ];
  for (const [title, id, before] of userMade) {
    it(`${title} (${id}): connect and disconnect refuse it, saying what to do`, () => {
      const entry = D[id].kinds[0] === 'stdio' ? STDIO : HTTP;
      expect(() => applyConnect(D[id], before, '/h/settings', entry)).toThrow(ForeignEntryError);
      expect(() => applyConnect(D[id], before, '/h/settings', entry)).toThrow(
        `${D[id].displayName} already has a server named “spillway” that Spillway did not add (in /h/settings). ` +
          `Rename or remove it in ${D[id].displayName}'s settings, then connect again.`,
      );
      expect(() => applyDisconnect(D[id], before, '/h/settings')).toThrow(/was not added by Spillway .*leaves it as it is/);
    });
  }

  it("another Spillway's entry (other port, other data folder) is still replaced and removed", () => {
    const otherHub = '{"mcpServers": {"spillway": {"url": "http://localhost:4999/mcp", "headers": {"Authorization": "Bearer other"}}}}';
    expect(JSON.parse(applyConnect(D.cursor, otherHub, 'f', HTTP).text).mcpServers.spillway.url).toBe('http://127.0.0.1:4810/mcp');
    expect(JSON.parse(applyDisconnect(D.cursor, otherHub, 'f').text).mcpServers).toEqual({});
    const otherFolder = '{"mcpServers": {"spillway": {"command": "/Applications/Spillway", "args": ["s.js", "bridge", "--data-dir", "/tmp/b"]}}}';
    expect(JSON.parse(applyConnect(D['claude-desktop'], otherFolder, 'f', STDIO).text).mcpServers.spillway.args).toEqual(
      STDIO.kind === 'stdio' ? STDIO.args : [],
    );
    expect(JSON.parse(applyDisconnect(D['claude-desktop'], otherFolder, 'f').text).mcpServers).toEqual({});
  });
});

describe('TOML edits (Codex)', () => {
  it('appends our table, keeps comments, and removes it back to the exact bytes', () => {
    const before = fixture('codex-config.toml');
    for (const entry of [STDIO, HTTP]) {
      const change = applyConnect(D.codex, before, 'config.toml', entry);
      expect(change.rewritten).toBe(false);
      expect(insertedBlock(before, change.text)).toMatch(/^\n\[mcp_servers\.spillway\]\n/);
      expect(applyDisconnect(D.codex, change.text, 'config.toml').text).toBe(before);
    }
  });

  it('replaces our table in place, with its sub-tables, keeping a comment that belongs to the next table', () => {
    const before =
      '[mcp_servers.spillway]\ncommand = "/old/spillway"\nargs = ["bridge"]\n\n[mcp_servers.spillway.env]\nA = "1"\n\n# next one\n[mcp_servers.x]\ncommand = "y"\n';
    const out = applyConnect(D.codex, before, 'f', STDIO);
    expect(out.rewritten).toBe(false);
    expect(out.text).toBe(
      '[mcp_servers.spillway]\ncommand = "/opt/Spillway/spillway"\nargs = [ "/opt/Spillway/resources/spillway.js", "bridge", "--data-dir", "/home/u/.config/Spillway" ]\nenv = { ELECTRON_RUN_AS_NODE = "1" }\n\n# next one\n[mcp_servers.x]\ncommand = "y"\n',
    );
  });

  it('falls back to a full rewrite for layouts it cannot edit in place, and says so', () => {
    const inline = '# servers\nmcp_servers = { a = { command = "x" } }\n';
    const out = setTomlTable(inline, 'f', ['mcp_servers'], 'spillway', { command: 'c', args: [] });
    expect(out.rewritten).toBe(true);
    expect(out.text).not.toContain('# servers');
    expect(applyConnect(D.codex, inline, 'f', STDIO).rewritten).toBe(true);
  });

  it('an integer beyond 2^53 is valid TOML: the file is edited in place and the number kept as written', () => {
    const before = '# limits\nmax_bytes = 9007199254740993 # 2^53 + 1\n';
    const change = applyConnect(D.codex, before, 'config.toml', STDIO);
    expect(change.rewritten).toBe(false);
    expect(change.text.startsWith(before)).toBe(true);
    expect(applyDisconnect(D.codex, change.text, 'config.toml').text).toBe(before);
    // Also where our table must be replaced in place, with a big number among the user's keys in it.
    const ours = '[mcp_servers.spillway]\ncommand = "/old/spillway"\nargs = ["bridge"]\nmax = 9223372036854775807\n';
    expect(applyConnect(D.codex, ours, 'config.toml', STDIO).text).toContain('max = 9223372036854775807');
  });

  it('a [[mcp_servers]] list is refused as what it is, not as unreadable TOML', () => {
    const list = '[[mcp_servers]]\nname = "a"\ncommand = "x"\n';
    expect(() => applyConnect(D.codex, list, 'config.toml', STDIO)).toThrow(ConfigShapeError);
    expect(() => applyConnect(D.codex, list, 'config.toml', STDIO)).toThrow(
      'Cannot edit config.toml: "mcp_servers" is a list, not a table of servers.',
    );
  });

  it('a malformed TOML file throws with line and column', () => {
    try {
      applyConnect(D.codex, 'model = "x"\n[mcp_servers.a\ncommand = 1\n', '/h/.codex/config.toml', STDIO);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigParseError);
      expect((e as ConfigParseError).line).toBe(2);
      expect((e as ConfigParseError).message).toContain('/h/.codex/config.toml at line 2');
      expect((e as ConfigParseError).message).toMatch(
        /^There is a mistake in \/h\/\.codex\/config\.toml at line 2, column \d+: [a-z][^.]*, so it is not valid TOML\. Spillway left the file untouched\. Fix it in a text editor, then try again\. If Spillway changed this file before, Restore backup .*\.$/,
      );
      expect((e as ConfigParseError).message).not.toMatch(/Invalid TOML document/);
    }
  });
});

describe('entry state', () => {
  const spec = (extra: object) => ({ name: 'spillway', file: 'f', ...extra }) as Parameters<typeof entryState>[0];
  it('absent, current, and stale with the differing fields', () => {
    expect(entryState(undefined, HTTP)).toEqual({ state: 'absent' });
    expect(entryState(spec({ transport: 'http', url: 'http://127.0.0.1:4810/mcp', headers: { Authorization: 'Bearer tok_abc123' } }), HTTP)).toEqual({
      state: 'current',
    });
    expect(entryState(spec({ transport: 'http', url: 'http://127.0.0.1:9999/mcp', headers: { Authorization: 'Bearer old' } }), HTTP)).toEqual({
      state: 'stale',
      differs: ['url', 'headers'],
    });
    expect(entryState(spec({ transport: 'sse', url: 'http://127.0.0.1:4810/mcp' }), HTTP)).toEqual({ state: 'stale', differs: ['kind'] });
    expect(
      entryState(
        spec({
          transport: 'stdio',
          command: '/old/place/spillway',
          args: STDIO.kind === 'stdio' ? STDIO.args : [],
          env: { ELECTRON_RUN_AS_NODE: '1' },
        }),
        STDIO,
      ),
    ).toEqual({
      state: 'stale',
      differs: ['command'],
    });
  });
});

/**
 * A key on the way to the servers written twice (`"mcpServers"` two times, or two "spillway" entries): an app
 * reads only one of them, so Spillway cannot tell which to change. It says so in plain words, with the lines
 * and what to do, and changes nothing; it used to answer "Internal error: editing … would have changed more
 * than Spillway's entry" (audit s17, connect item 7).
 */
import { describe, expect, it } from 'vitest';
import { applyConnect, applyDisconnect, CLIENT_DEFINITIONS as D, ConfigParseError, type SpillwayEntry } from '../../electron/core/clients/index.js';

const HTTP: SpillwayEntry = { kind: 'http', url: 'http://127.0.0.1:47821/mcp', headers: { Authorization: 'Bearer abcdefabcdef' } };
const ENTRY = '{"type": "http", "url": "http://127.0.0.1:47821/mcp"}';

describe('duplicate keys on the way to the servers', () => {
  it('"mcpServers" twice: the lines, that nothing changed, and the next step', () => {
    const text = '{\n  "mcpServers": {"a": {"command": "x"}},\n  "mcpServers": {"b": {"command": "y"}}\n}\n';
    let error: unknown;
    try {
      applyConnect(D.cursor, text, '/home/u/.cursor/mcp.json', HTTP);
    } catch (e) {
      error = e;
    }
    // Answered as a mistake in the file (the control API's `conflict`), like a syntax error.
    expect(error).toBeInstanceOf(ConfigParseError);
    const message = (error as Error).message;
    expect(message).toContain('/home/u/.cursor/mcp.json');
    expect(message).toMatch(/"mcpServers" is in it twice \(lines 2 and 3\)/);
    expect(message).toMatch(/merge them into one "mcpServers"/);
    expect(message).toMatch(/left the file untouched/);
    expect(message).not.toMatch(/Internal error/);
  });

  it('three times, and in a file whose servers key is not the first', () => {
    const text = `{\n  "theme": 1,\n  "mcpServers": {},\n  "x": 2,\n  "mcpServers": {},\n  "mcpServers": {}\n}\n`;
    expect(() => applyConnect(D.cursor, text, 'f', HTTP)).toThrow(/"mcpServers" is in it 3 times \(lines 3, 5 and 6\)/);
  });

  it('two "spillway" entries: connect and disconnect both say so', () => {
    const text = `{\n  "mcpServers": {\n    "spillway": ${ENTRY},\n    "a": {"command": "x"},\n    "spillway": ${ENTRY}\n  }\n}\n`;
    expect(() => applyConnect(D.cursor, text, 'f', HTTP)).toThrow(/"spillway" is in it twice \(lines 3 and 5\)/);
    expect(() => applyDisconnect(D.cursor, text, 'f')).toThrow(/"spillway" is in it twice \(lines 3 and 5\)/);
  });

  it('keys written twice elsewhere (another server, a project of Claude Code) are not in the way', () => {
    const text = `{\n  "projects": {"/p": {"mcpServers": {}, "mcpServers": {}}},\n  "mcpServers": {\n    "a": {"command": "x"},\n    "a": {"command": "y"}\n  }\n}\n`;
    const out = applyConnect(D['claude-code'], text, 'f', HTTP).text;
    expect(out).toContain('"spillway"');
    expect(applyDisconnect(D['claude-code'], out, 'f').text).toBe(text);
  });
});

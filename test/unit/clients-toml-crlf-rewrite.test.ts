/**
 * A Codex config.toml saved with CRLF line breaks (as Windows editors save it) keeps them when its layout
 * makes Spillway rewrite the whole file (an inline `mcp_servers` table), on connect and on disconnect.
 */
import { expect, it } from 'vitest';
import { parse } from 'smol-toml';
import { applyConnect, applyDisconnect, CLIENT_DEFINITIONS as D, type SpillwayEntry } from '../../electron/core/clients/index.js';

const BRIDGE: SpillwayEntry = {
  kind: 'stdio',
  command: 'C:\\Users\\Jo\\AppData\\Local\\Programs\\Spillway\\Spillway.exe',
  args: ['bridge', '--data-dir', 'C:\\Users\\Jo\\AppData\\Roaming\\Spillway'],
  env: { ELECTRON_RUN_AS_NODE: '1' },
};

/** Every line break of `text` is CRLF. */
function crlfOnly(text: string): boolean {
  return !text.replace(/\r\n/g, '').includes('\n');
}

it('keeps CRLF when connect rewrites config.toml as a whole', () => {
  const before = '# my codex\r\nmodel = "o3"\r\nmcp_servers = { a = { command = "x" } }\r\n';
  const r = applyConnect(D.codex, before, 'config.toml', BRIDGE);
  expect(r.rewritten).toBe(true);
  expect(r.text).toContain('\r\n');
  expect(crlfOnly(r.text)).toBe(true);
});

it('keeps CRLF when disconnect rewrites config.toml as a whole', () => {
  const before = 'model = "o3"\r\nmcp_servers = { a = { command = "x" }, spillway = { command = "s", args = ["bridge"] } }\r\n';
  const r = applyDisconnect(D.codex, before, 'config.toml');
  expect(r.rewritten).toBe(true);
  expect(r.text).not.toContain('spillway');
  expect(r.text).toContain('\r\n');
  expect(crlfOnly(r.text)).toBe(true);
});

it('a line break inside a value stays an escape, not a CRLF written into the value', () => {
  const before = 'note = """\r\ntwo\r\nlines"""\r\nmcp_servers = { a = { command = "x" } }\r\n';
  const r = applyConnect(D.codex, before, 'config.toml', BRIDGE);
  expect(r.rewritten).toBe(true);
  expect(crlfOnly(r.text)).toBe(true);
  // The value's line break is written as an escape, so the value reads back as it was.
  expect(r.text).toContain('note = "two\\r\\nlines"\r\n');
  expect(parse(r.text).note).toBe(parse(before).note);
});

it('an LF file rewritten as a whole stays LF', () => {
  const r = applyConnect(D.codex, 'mcp_servers = { a = { command = "x" } }\n', 'config.toml', BRIDGE);
  expect(r.rewritten).toBe(true);
  expect(r.text).not.toContain('\r');
});

/**
 * Connect on a large ~/.claude.json (Claude Code keeps every project's history in it: tens of MB) blocked
 * the hub's main thread for 6-12 s: the file was parsed into a syntax tree about four times and compared
 * as two sorted dumps of the whole document (audit s17, connect item 5). Now it is scanned once without a
 * tree and only its servers object is parsed; the parses are counted here, not timed.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as jsonc from 'jsonc-parser';
import { applyConnect, applyDisconnect, CLIENT_DEFINITIONS as D, type SpillwayEntry } from '../../electron/core/clients/index.js';

vi.mock('jsonc-parser', async (importOriginal) => {
  const real = await importOriginal<typeof import('jsonc-parser')>();
  return { ...real, parseTree: vi.fn(real.parseTree), visit: vi.fn(real.visit), parse: vi.fn(real.parse) };
});

const HTTP: SpillwayEntry = { kind: 'http', url: 'http://127.0.0.1:47821/mcp', headers: { Authorization: 'Bearer abcdefabcdef' } };

/** A Claude Code file of about 2 MB: many projects, each with its history and its own (empty) mcpServers. */
function claudeJson(withServers: boolean): string {
  const projects: Record<string, unknown> = {};
  for (let i = 0; i < 2000; i++) {
    projects[`/home/u/p${i}`] = { allowedTools: [], history: Array.from({ length: 10 }, (_, j) => ({ display: `prompt ${j}` })), mcpServers: {} };
  }
  return JSON.stringify({ numStartups: 5, projects, ...(withServers ? { mcpServers: { a: { command: 'x' } } } : {}) }, null, 2) + '\n';
}

/** How often each parser ran over (nearly) the whole text, and how often on a part of it. */
function calls(text: string) {
  const whole = (fn: unknown) => vi.mocked(fn as (t: string) => unknown).mock.calls.filter(([t]) => t.length > text.length / 2).length;
  return {
    trees: whole(jsonc.parseTree),
    scans: whole(jsonc.visit),
    values: whole(jsonc.parse),
    smallTrees: vi.mocked(jsonc.parseTree).mock.calls.length - whole(jsonc.parseTree),
  };
}

beforeEach(() => {
  vi.mocked(jsonc.parseTree).mockClear();
  vi.mocked(jsonc.visit).mockClear();
  vi.mocked(jsonc.parse).mockClear();
});

describe('connect on a large JSON file', () => {
  it('with a servers object: one scan of the whole file, no tree of it; only the servers object is parsed', () => {
    const text = claudeJson(true);
    const out = applyConnect(D['claude-code'], text, '/home/u/.claude.json', HTTP).text;
    expect(calls(text)).toMatchObject({ trees: 0, scans: 1, values: 0 });
    expect(calls(text).smallTrees).toBeGreaterThan(0);
    // The same edit as ever: the bytes before the servers object are the file's own, the entry is in it.
    const at = text.lastIndexOf('"mcpServers": {');
    expect(out.slice(0, at)).toBe(text.slice(0, at));
    expect(JSON.parse(out)).toEqual({
      ...JSON.parse(text),
      mcpServers: { a: { command: 'x' }, spillway: { type: 'http', url: HTTP.url, headers: HTTP.headers } },
    });
  });

  it('disconnect likewise, and gives back the exact bytes', () => {
    const text = claudeJson(true);
    const connected = applyConnect(D['claude-code'], text, 'f', HTTP).text;
    vi.mocked(jsonc.parseTree).mockClear();
    vi.mocked(jsonc.visit).mockClear();
    expect(applyDisconnect(D['claude-code'], connected, 'f').text).toBe(text);
    expect(calls(connected)).toMatchObject({ trees: 0, scans: 1, values: 0 });
  });

  it('without a servers object yet: one tree to add it, one scan more to check the result', () => {
    const text = claudeJson(false);
    const out = applyConnect(D['claude-code'], text, 'f', HTTP).text;
    expect(calls(text)).toMatchObject({ trees: 1, scans: 2, values: 0 });
    expect(JSON.parse(out).mcpServers).toEqual({ spillway: { type: 'http', url: HTTP.url, headers: HTTP.headers } });
  });
});

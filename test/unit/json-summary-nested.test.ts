import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { shapeResult } from '../../electron/core/spill/shape-result.js';
import { readResult } from '../../electron/core/spill/read-result.js';
import { exampleQuery, summarizeJson, summaryArrays } from '../../electron/core/spill/json-summary.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

let root: string;
let store: SpillStore;
const now = () => Date.UTC(2026, 0, 1, 12);
const ctx = { server: 'gh', tool: 'graphql', client: 'cursor' };

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-nested-'));
  store = await SpillStore.open({ dir: join(root, 'spill'), now, counter });
});
afterEach(async () => {
  await store.close();
  await rm(root, { recursive: true, force: true });
});

/** GitHub-like issues: nested users and labels (no TOON table), as a GraphQL API sends them. */
const issues = Array.from({ length: 400 }, (_, i) => ({
  number: i + 1,
  title: `Issue ${i + 1}: ${'x'.repeat(24)}`,
  state: i % 57 === 3 ? 'CLOSED' : 'OPEN',
  user: { login: `user${i % 13}`, id: 1000 + i },
  labels: i % 3 ? [{ name: 'bug' }] : [],
  body: `Body of issue ${i + 1} ${'lorem ipsum '.repeat(10)}`,
}));
const graphql = { data: { repository: { issues: { totalCount: 400, nodes: issues } } } };
const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });

describe('the preview of nested JSON (a GraphQL answer)', () => {
  it('shows the records of the largest array under single objects, and a query that reaches them', async () => {
    const { delivered } = await shapeResult(text(JSON.stringify(graphql)), { action: 'spill', thresholdTokens: 2000, previewTokens: 1000 }, ctx, {
      store,
      counter,
      now,
    });
    const header = (delivered.content[0] as { text: string }).text;
    const summaryTokens = Number(/showing a structural summary \(([\d,]+) tokens/.exec(header)![1]!.replace(/,/g, ''));
    expect(summaryTokens).toBeGreaterThan(500);
    expect(header).toContain('First items of .data.repository.issues.nodes:');
    expect(header).toContain('"number":1,');
    const query = /\{"handle":"[^"]+","op":"query"[^\n]*\}/.exec(header)![0];
    expect(JSON.parse(query)).toMatchObject({ query: '.data.repository.issues.nodes | size()' });
    const answer = await readResult(store, counter, JSON.parse(query) as Record<string, unknown>, {});
    expect((answer.content[0] as { text: string }).text).toContain('400');
  });

  it('finds the largest arrays a few objects down, not through arrays, and leaves top-level arrays as they were', () => {
    expect(summaryArrays(graphql).map((a) => a.path)).toEqual(['.data.repository.issues.nodes']);
    expect(exampleQuery({ a: { 'odd key': { list: [1, 2] }, more: { rows: [1, 2, 3] } } })).toBe('.a.more.rows | size()');
    expect(summaryArrays({ a: { 'odd key': { list: [1, 2] } } }).map((a) => a.path)).toEqual(['.a."odd key".list']);
    // A top-level array wins over deeper ones, as before.
    expect(summaryArrays({ top: [1], deep: { rows: [1, 2, 3] } }).map((a) => a.path)).toEqual(['.top']);
    // Too deep to look for.
    expect(summaryArrays({ a: { b: { c: { d: { e: { f: { g: [1] } } } } } } })).toEqual([]);
    const summary = summarizeJson(graphql, 8000);
    expect(summary.split('\n')[0]).toBe('JSON object with 1 top-level key:');
    expect(summary).toContain('First items of .data.repository.issues.nodes:');
  });
});

import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { shapeResult } from '../../electron/core/spill/shape-result.js';
import { formatBytes } from '../../electron/core/spill/size-labels.js';
import { readSpillResource } from '../../electron/core/spill/spill-resource.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

let root: string;
let store: SpillStore;
const now = () => Date.UTC(2026, 0, 1, 12);
const ctx = { server: 'gh', tool: 'list_issues', client: 'cursor' };

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-header-sizes-'));
  store = await SpillStore.open({ dir: join(root, 'spill'), now, counter });
});
afterEach(async () => {
  await store.close();
  await rm(root, { recursive: true, force: true });
});

const rows = Array.from({ length: 400 }, (_, i) => ({
  number: i + 1,
  title: `Issue ${i + 1}`,
  user: { login: `user${i % 13}` },
  body: 'text '.repeat(20),
}));
/** The same data as text and as structuredContent, as the MCP spec asks of a tool with an output schema. */
const structured: CallToolResult = { content: [{ type: 'text', text: JSON.stringify({ rows }) }], structuredContent: { rows } };
const textBytes = Buffer.byteLength(JSON.stringify({ rows }), 'utf8');
const headerSize = (delivered: CallToolResult) => /\(([\d.]+ [KMG]?B)\) —/.exec((delivered.content[0] as { text: string }).text)![1];

describe('the size a spilled or truncated header names', () => {
  it('is the size of the text the model reads back, not of the result on the wire (text plus structuredContent)', async () => {
    const { delivered, outcome } = await shapeResult(structured, { action: 'spill', thresholdTokens: 2000, previewTokens: 300 }, ctx, {
      store,
      counter,
      now,
    });
    expect(outcome.action).toBe('spill');
    const handle = (delivered._meta as Record<string, string>)['spillway/handle']!;
    const whole = await readSpillResource(store, `spillway://spill/${handle}`);
    const kept = (whole.contents[0] as { text: string }).text;
    expect(Buffer.byteLength(kept, 'utf8')).toBe(textBytes);
    expect(headerSize(delivered)).toBe(formatBytes(textBytes));
    const link = delivered.content.find((c) => c.type === 'resource_link') as { size: number; description: string };
    expect(link.size).toBe(textBytes);
    expect(link.description).toContain(`(${formatBytes(textBytes)})`);
    // The savings accounting still counts what came upstream.
    expect(outcome.bytesUpstream).toBe(Buffer.byteLength(JSON.stringify(structured), 'utf8'));
    expect(outcome.resultBytes).toBe(textBytes);
  });

  it('a truncated result names its text size too', async () => {
    const { delivered, outcome } = await shapeResult(structured, { action: 'truncate', thresholdTokens: 2000, previewTokens: 300 }, ctx, {
      store,
      counter,
      now,
    });
    expect(outcome.action).toBe('truncate');
    expect(headerSize(delivered)).toBe(formatBytes(textBytes));
    expect(outcome.bytesUpstream).toBe(Buffer.byteLength(JSON.stringify(structured), 'utf8'));
  });
});

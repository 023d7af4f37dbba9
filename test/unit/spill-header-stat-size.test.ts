/**
 * Review s21: the spilled result's header gives the result's size as the model reads it (its text and its
 * decoded binary blocks), while stat led with `Bytes: <the stored JSON's size>`: for an images-only result
 * the two disagreed. Now stat leads with the header's figure, labelled as the result's size, and gives the
 * stored size after it.
 */
import { afterAll, afterEach, beforeEach, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { shapeResult } from '../../electron/core/spill/shape-result.js';
import { readResult } from '../../electron/core/spill/read-result.js';
import { formatBytes } from '../../electron/core/spill/size-labels.js';

const counter = new TokenCounter();
afterAll(() => counter.close());
let root: string;
let store: SpillStore;
const now = (): number => Date.now();
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-header-stat-'));
  store = await SpillStore.open({ dir: join(root, 'spill'), now, counter });
});
afterEach(async () => {
  await store.close();
  await rm(root, { recursive: true, force: true });
});

const textOf = (r: CallToolResult): string => (r.content[0] as { text: string }).text;
const policy = { action: 'spill' as const, thresholdTokens: 500, previewTokens: 300 };

async function headerAndStat(result: CallToolResult): Promise<{ header: string; stat: string }> {
  const { delivered } = await shapeResult(result, policy, { server: 's', tool: 't' }, { store, counter, now });
  const handle = (delivered._meta as Record<string, string>)['spillway/handle']!;
  const stat = textOf(await readResult(store, counter, { handle, op: 'stat' }, { offThreadAboveBytes: Infinity }));
  return { header: textOf(delivered).split('\n')[0]!, stat };
}

it('an images-only result: stat leads with the size the header gives, then the stored size', async () => {
  const data = Buffer.alloc(300_000, 7).toString('base64');
  const image = { type: 'image' as const, data, mimeType: 'image/png' };
  const { header, stat } = await headerAndStat({ content: [image, image] });
  expect(header).toContain(`(${formatBytes(600_000)}) —`);
  const sizeLine = stat.split('\n')[3]!;
  expect(sizeLine).toMatch(/^Size: 600,000 bytes \(586 KB\): text 0 bytes, 0 characters; binary blocks 600,000 bytes; stored as [\d,]+ bytes$/);
  expect(Number(/stored as ([\d,]+) bytes/.exec(sizeLine)![1]!.replace(/,/g, ''))).toBeGreaterThan(800_000);
  expect(stat).not.toMatch(/^Bytes:/m);
});

it('a text result: the header, stat and the text agree', async () => {
  const text = 'é line of text\n'.repeat(2_000);
  const { header, stat } = await headerAndStat({ content: [{ type: 'text', text }] });
  const bytes = Buffer.byteLength(text, 'utf8');
  expect(header).toContain(`(${formatBytes(bytes)})`);
  expect(stat.split('\n')[3]).toMatch(
    new RegExp(`^Size: 32,000 bytes \\(${formatBytes(bytes)}\\): text 32,000 bytes, 30,000 characters; stored as [\\d,]+ bytes$`),
  );
  expect(stat.split('\n')[4]).toBe('Lines: 2,000');
});

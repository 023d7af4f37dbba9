import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { shapeResult } from '../../electron/core/spill/shape-result.js';
import { readResult } from '../../electron/core/spill/read-result.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

let root: string;
let store: SpillStore;
const now = () => Date.UTC(2026, 0, 1, 12);
const ctx = { server: 'logs', tool: 'tail', client: 'cursor' };

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-content-type-'));
  store = await SpillStore.open({ dir: join(root, 'spill'), now, counter });
});
afterEach(async () => {
  await store.close();
  await rm(root, { recursive: true, force: true });
});

const issues = Array.from({ length: 400 }, (_, i) => ({ number: i + 1, title: `Issue ${i + 1}`, state: i % 57 === 3 ? 'CLOSED' : 'OPEN' }));
/** A log as many tools print it: one JSON object a line. */
const jsonLines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ ts: i, level: i % 50 ? 'info' : 'error', msg: `event ${i} {"}` })).join(
  '\n',
);
/** Two JSON text blocks, one page each. */
const twoBlocks: CallToolResult = {
  content: [0, 1].map((p) => ({ type: 'text' as const, text: JSON.stringify(issues.slice(p * 200, p * 200 + 200), null, 2) })),
};
/** A log whose first and last characters are brackets, as JSON's are. */
const bracketLog = Array.from({ length: 2000 }, (_, i) => `[2026-01-01 12:00:${String(i % 60).padStart(2, '0')}] INFO request ${i} [ok]`).join('\n');

async function spilled(result: CallToolResult): Promise<{ header: string; handle: string }> {
  const { delivered, outcome } = await shapeResult(result, { action: 'spill', thresholdTokens: 2000, previewTokens: 300 }, ctx, {
    store,
    counter,
    now,
  });
  expect(outcome.action).toBe('spill');
  return { header: (delivered.content[0] as { text: string }).text, handle: (delivered._meta as Record<string, string>)['spillway/handle']! };
}
async function read(args: Record<string, unknown>): Promise<string> {
  return ((await readResult(store, counter, args, {})).content[0] as { text: string }).text;
}
const contentType = (stat: string) => /Content type: (\w+)/.exec(stat)![1];

describe('the content type stat names agrees with what query can read', () => {
  it('JSON Lines: json, and query reads its lines as an array', async () => {
    const { header, handle } = await spilled({ content: [{ type: 'text', text: jsonLines }] });
    expect(contentType(await read({ handle, op: 'stat' }))).toBe('json');
    expect(header).toContain(`{"handle":"${handle}","op":"query","query":"size()"}`);
    expect(await read({ handle, op: 'query', query: 'size()' })).toContain('3000');
    expect(await read({ handle, op: 'query', query: '$[2999].msg' })).toContain('event 2999 {\\"}');
  });

  it('two JSON text blocks: json, and query reads them as an array of the two', async () => {
    const { handle } = await spilled(twoBlocks);
    expect(contentType(await read({ handle, op: 'stat' }))).toBe('json');
    expect(await read({ handle, op: 'query', query: '$[1][0].number' })).toContain('201');
  });

  it('a log that only starts and ends like JSON: text, and the header suggests no query', async () => {
    const { header, handle } = await spilled({ content: [{ type: 'text', text: bracketLog }] });
    expect(contentType(await read({ handle, op: 'stat' }))).toBe('text');
    expect(header).not.toContain('"op":"query"');
    expect(await read({ handle, op: 'query', query: 'size()' })).toMatch(/not JSON/);
  });

  it('a JSON text stays json, its preview a summary', async () => {
    const { header, handle } = await spilled({ content: [{ type: 'text', text: JSON.stringify(issues) }] });
    expect(contentType(await read({ handle, op: 'stat' }))).toBe('json');
    expect(header).toContain('showing a structural summary');
  });
});

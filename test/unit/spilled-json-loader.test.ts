/**
 * dispatch's argumentsFrom read a spilled JSON of any size and parsed it on the hub's main thread on each
 * call, only to refuse an array (audit s13: 51 MB, ~0.5 s a call). An array, or text that is not JSON, is
 * refused by its first character without reading the rest; an object larger than the read thread's line
 * is refused by its size, since it cannot be made a value without holding this thread.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { handleMessages, SpillStore } from '../../electron/core/spill/spill-store.js';
import { OFF_THREAD_ABOVE_BYTES } from '../../electron/core/spill/read-result.js';
import { spilledJsonLoader } from '../../electron/core/policy/spilled-json.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

let root: string;
let store: SpillStore;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-spilled-json-'));
  store = await SpillStore.open({ dir: join(root, 'spill'), now: Date.now, counter });
});
afterEach(async () => {
  await store.close();
  await rm(root, { recursive: true, force: true });
});

const put = async (text: string) => (await store.put({ content: [{ type: 'text', text }] }, { server: 's', tool: 't' })).handle;
const load = (handle: string) => spilledJsonLoader(store)(handle);
const refusal = async (handle: string) => ((await load(handle).catch((error: unknown) => error)) as Error).message;

// ~6.6 MB as JSON: past OFF_THREAD_ABOVE_BYTES.
const ROWS = Array.from({ length: 120_000 }, (_, i) => ({ id: i, name: `item ${i}`, path: `/some/where/${i}` }));

/** Runs `work` while recording each JSON.parse of more than a megabyte and each read of a whole document. */
async function bigReadsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const reads: string[] = [];
  const parse = JSON.parse;
  JSON.parse = (text: string, reviver?: (key: string, value: unknown) => unknown): unknown => {
    if (text.length > 1_000_000) reads.push(`JSON.parse of ${text.length} characters`);
    return parse(text, reviver) as unknown;
  };
  const readDocument = vi.spyOn(store, 'readDocument');
  const readText = vi.spyOn(store, 'readText');
  try {
    await work();
  } finally {
    JSON.parse = parse;
  }
  for (const call of readDocument.mock.calls) reads.push(`readDocument(${call[0]})`);
  for (const call of readText.mock.calls) reads.push(`readText(${call[0]})`);
  return reads;
}

describe('argumentsFrom', () => {
  it('refuses an array by its first character, without reading it whole', async () => {
    const handle = await put(`\n  ${JSON.stringify(ROWS)}`);
    let message = '';
    expect(await bigReadsDuring(async () => (message = await refusal(handle)))).toEqual([]);
    expect(message).toBe(
      'the spilled result is a JSON array (its text starts with "["), and arguments must be one JSON object: ' +
        'pass them in `arguments` instead, or the handle of a result that is one object.',
    );
  });

  it('refuses an object past the read thread line by its size, without reading it whole', async () => {
    const handle = await put(JSON.stringify({ rows: ROWS }));
    const found = store.lookup(handle);
    expect('entry' in found && found.entry.textBytes).toBeGreaterThan(OFF_THREAD_ABOVE_BYTES);
    let message = '';
    expect(await bigReadsDuring(async () => (message = await refusal(handle)))).toEqual([]);
    expect(message).toMatch(
      /^the spilled result is 6\.\d MB, more than the 5\.7 MB argumentsFrom takes: pass the arguments in `arguments` instead, or the handle of a smaller result\.$/,
    );
  });

  it('reads an object up to that size, and refuses text that is not JSON as before', async () => {
    expect(await load(await put(' {"path": "/tmp/a", "n": 2}'))).toEqual({ path: '/tmp/a', n: 2 });
    const table = { rows: ROWS.slice(0, 100_000) };
    expect(await load(await put(JSON.stringify(table)))).toEqual(table);
    expect(await refusal(await put('plain words'))).toBe('the spilled result is not JSON (its content type is text).');
    expect(await refusal(await put('{"cut": '))).toBe('the spilled result is not JSON (its content type is text).');
    expect(await refusal(await put('   '))).toBe('the spilled result is not JSON (its content type is text).');
  });

  it('tells a result whose files are gone by the handle, without a path', async () => {
    const handle = await put('{"a": 1}');
    await rm(join(store.dir, handle), { recursive: true });
    const message = await refusal(handle);
    expect(message).toBe(handleMessages.unknown(handle));
    expect(message).not.toContain(root);
  });

  it('refuses a result kept with personal data masked, also after the store is opened again (audit s17, D1)', async () => {
    const result = { content: [{ type: 'text' as const, text: '{"text": "[EMAIL_1_e35vg4]"}' }] };
    const handle = (await store.put(result, { server: 's', tool: 't', masked: true })).handle;
    const MASKED = 'this result was kept with personal data masked, so its values cannot be passed on: put the values under `arguments` instead.';
    expect(await refusal(handle)).toBe(MASKED);
    // The same content put again unmasked stays marked: it has the same placeholders.
    await store.put(result, { server: 's', tool: 't' });
    await store.close();
    store = await SpillStore.open({ dir: join(root, 'spill'), now: Date.now, counter });
    expect(await refusal(handle)).toBe(MASKED);
    // An entry without the mark (as stored before it existed) is read as before.
    expect(await load(await put('{"text": "bob@example.com"}'))).toEqual({ text: 'bob@example.com' });
  });
});

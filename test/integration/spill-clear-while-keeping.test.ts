/**
 * Clear removes the results listed when it starts and folders no index lists (a set-aside index's): a
 * result kept while Clear is at work is neither, and stays readable under the handle the model was given.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, expect, it } from 'vitest';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';

const counter = new TokenCounter();
afterAll(() => counter.close());
const meta = { server: 'fs', tool: 'read_file', client: 'claude' };
const textResult = (tag: string): CallToolResult => ({ content: [{ type: 'text', text: `a line of ${tag}\n`.repeat(2000) }] });

it('a result kept while Clear removes the older ones stays listed and readable', async () => {
  const root = await mkdtemp(join(tmpdir(), 'spillway-clear-keep-'));
  const dir = join(root, 'spill');
  const store = await SpillStore.open({ dir, now: () => Date.now(), counter });
  try {
    for (let i = 0; i < 60; i++) await store.put(textResult(`old ${i}`), meta);
    const older = store.list().map((e) => e.handle);
    // Clear starts on the 60 it lists; the new result is kept while it removes them one by one.
    const clearing = store.clear();
    const fresh = await store.put(textResult('kept during clear'), meta);
    expect(await clearing).toBe(older.length);
    expect(store.list().map((e) => e.handle)).toEqual([fresh.handle]);
    await expect(stat(join(dir, fresh.handle))).resolves.toBeDefined();
    expect((await store.readDocument(fresh.handle)).text).toContain('kept during clear');
  } finally {
    await store.close();
    await rm(root, { recursive: true, force: true });
  }
});

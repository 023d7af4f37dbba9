/**
 * A result listed again after a crash (the index is written up to a second after a put) keeps who made it
 * and its "masked" mark (audit s18): it used to come back as server and tool "unknown" and not masked, so
 * spillway__dispatch's argumentsFrom passed its PII placeholders on as real values. A folder with no record
 * of its origin (kept by an older Spillway) is taken for masked: its values are not passed on.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore, type SpillEntry, type SpillMeta } from '../../electron/core/spill/spill-store.js';
import { ORIGIN_FILE } from '../../electron/core/spill/spill-files.js';
import { spilledJsonLoader } from '../../electron/core/policy/spilled-json.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

let root: string;
const now = () => Date.UTC(2026, 0, 1);
const stores: SpillStore[] = [];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-origin-'));
});
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  await rm(root, { recursive: true, force: true });
});

async function open(dir: string): Promise<SpillStore> {
  const store = await SpillStore.open({ dir, now, counter });
  stores.push(store);
  return store;
}

/** Puts `result` with each of `metas` and copies the spill folder right after: what a hub killed then leaves. */
async function putThenCrash(result: CallToolResult, ...metas: SpillMeta[]): Promise<{ dir: string; entry: SpillEntry }> {
  const store = await open(join(root, 'live'));
  let entry: SpillEntry | undefined;
  for (const meta of metas) entry = await store.put(result, meta);
  const dir = join(root, 'after-crash');
  await cp(join(root, 'live'), dir, { recursive: true });
  expect((await readdir(dir)).includes('index.json')).toBe(false); // the index was not written yet
  return { dir, entry: entry! };
}

const contact: CallToolResult = {
  content: [{ type: 'text', text: JSON.stringify({ email: '[EMAIL_1_k3j9x2]', rows: Array.from({ length: 500 }, (_, i) => i) }) }],
};
const refusal = (store: SpillStore, handle: string) =>
  spilledJsonLoader(store)(handle).then(
    () => 'passed on',
    (error: Error) => error.message,
  );

describe('a result listed again after a crash', () => {
  it('keeps its server, tool and masked mark, so dispatch still refuses its placeholders', async () => {
    const { dir, entry } = await putThenCrash(contact, { server: 'crm', tool: 'get_contact', client: 'claude', masked: true });
    const store = await open(dir);
    expect(store.lookup(entry.handle)).toMatchObject({ entry: { server: 'crm', tool: 'get_contact', client: 'claude', masked: true } });
    expect(await refusal(store, entry.handle)).toMatch(/kept with personal data masked/);
  });

  it('not masked, is passed on as before the crash', async () => {
    const { dir, entry } = await putThenCrash(contact, { server: 'crm', tool: 'get_contact' });
    const store = await open(dir);
    expect(store.lookup(entry.handle)).toMatchObject({ entry: { server: 'crm', tool: 'get_contact', client: null } });
    expect(store.lookup(entry.handle)).not.toMatchObject({ entry: { masked: true } });
    expect(await refusal(store, entry.handle)).toBe('passed on');
  });

  it('kept again by another tool, masked, has the last owner and stays masked', async () => {
    const { dir, entry } = await putThenCrash(
      contact,
      { server: 'crm', tool: 'get_contact' },
      { server: 'crm2', tool: 'find_contact', masked: true },
      { server: 'crm3', tool: 'list_contacts' },
    );
    const store = await open(dir);
    expect(store.lookup(entry.handle)).toMatchObject({ entry: { server: 'crm3', tool: 'list_contacts', masked: true } });
  });

  it('with no record of its origin (an older Spillway kept it), is taken for masked and says it is not known', async () => {
    const { dir, entry } = await putThenCrash(contact, { server: 'crm', tool: 'get_contact' });
    await rm(join(dir, entry.handle, ORIGIN_FILE));
    const store = await open(dir);
    expect(store.lookup(entry.handle)).toMatchObject({ entry: { server: 'unknown', tool: 'unknown', masked: true } });
    const refused = await refusal(store, entry.handle);
    expect(refused).toMatch(/kept by an older Spillway .* whether personal data was masked in it is not known/);
    expect(refused).not.toMatch(/kept with personal data masked/);
  });
});

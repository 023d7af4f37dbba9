import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineFramer, type OversizedMessageError } from '../../electron/core/wire/line-framer.js';
import { RawMessageSpool, type SpooledString } from '../../electron/core/wire/raw-spool.js';
import { OrderedDelivery } from '../../electron/core/wire/ordered-delivery.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore, SpillWriteError } from '../../electron/core/spill/spill-store.js';

// Audit s15: a streamed result the disk refused (read-only spill folder, full disk) was dropped whole,
// the model told only that it "could not be written to disk and was skipped". It now arrives cut to the
// head kept in memory, with a note of why, and goes through the usual path (a truncated preview).

/** While true, every write of a spool file fails as on a full disk. */
const disk = vi.hoisted(() => ({ full: false }));
vi.mock('node:fs', async (original) => {
  const fs = await original<typeof import('node:fs')>();
  const write = ((...args: unknown[]) => {
    if (!disk.full) return (fs.write as (...a: unknown[]) => void)(...args);
    const callback = args[args.length - 1] as (error: Error) => void;
    setImmediate(() => callback(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })));
  }) as typeof fs.write;
  return { ...fs, default: { ...fs, write }, write };
});

const dirs: string[] = [];
afterEach(async () => {
  disk.full = false;
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const ping = { jsonrpc: '2.0', id: 1, method: 'ping' } as const;
const long = 'línea 日本 🚀 "q" \\ \t\n'.repeat(20_000); // past the 256 KiB a spool file gathers before its first write
const medium = 'm'.repeat(3000); // spooled (over 1 KiB) but within the head
const bigResult = {
  result: {
    content: [
      { type: 'text', text: long },
      { type: 'text', text: medium },
      { type: 'text', text: 'short' },
    ],
  },
  jsonrpc: '2.0',
  id: 7,
};

async function framing(spoolAt: (dir: string) => string) {
  const dir = await mkdtemp(join(tmpdir(), 'spillway-refused-'));
  dirs.push(dir);
  const messages: { message: JSONRPCMessage; spooled?: SpooledString[] }[] = [];
  const errors: OversizedMessageError[] = [];
  const order = new OrderedDelivery((error) => errors.push(error as OversizedMessageError));
  const framer = new LineFramer({
    onMessage: (message, spooled) => messages.push({ message, spooled }),
    onError: (e) => errors.push(e),
    spool: { aboveBytes: 4096, create: () => new RawMessageSpool({ dir: spoolAt(dir), minStringBytes: 1024, headBytes: 8192 }) },
    order,
  });
  const feed = (text: string) => {
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += 2000) framer.push(bytes.subarray(i, i + 2000));
  };
  const settled = () => new Promise<void>((resolve) => order.run(resolve));
  return { dir, feed, messages, errors, settled };
}

function expectCutToHead(message: JSONRPCMessage, reason: RegExp): void {
  const content = ('result' in message ? (message.result as { content: { text: string }[] }) : { content: [] }).content;
  const [head, note] = content[0]!.text.split('\n\n[Spillway: ');
  expect(head!.length).toBeGreaterThan(1000);
  expect(long.startsWith(head!)).toBe(true);
  expect(note).toMatch(new RegExp(`^this text is cut here, at [\\d,]+ of its ${Buffer.byteLength(long).toLocaleString('en-US')} bytes`));
  expect(note).toMatch(reason);
  expect(note).toContain('call the tool again with narrower arguments');
  expect(content[1]!.text).toBe(medium);
  expect(content[2]!.text).toBe('short');
  expect((message as { id: number }).id).toBe(7);
  // The spill store is told not to keep it as if whole (the answer is a preview saying why).
  const meta = ('result' in message ? message.result._meta : undefined) ?? {};
  expect(meta['spillway/cutShort']).toMatch(/^only [\d,]+ of its [\d,]+ bytes of text reached Spillway; the rest could not be written to disk \(/);
}

describe('a streamed line the disk refuses', () => {
  it('is delivered cut to its heads when its files cannot be created (read-only folder)', async () => {
    const { dir, feed, messages, errors, settled } = await framing((d) => join(d, 'blocker', 'spool'));
    await writeFile(join(dir, 'blocker'), 'a file where the folder should be');
    feed(`${JSON.stringify(bigResult)}\n${JSON.stringify(ping)}\n`);
    await settled();
    expect(errors).toEqual([]);
    expect(messages).toHaveLength(2);
    expect(messages[0]!.spooled).toBeUndefined();
    expectCutToHead(messages[0]!.message, /could not be written to disk \(ENOTDIR/);
    expect(messages[1]!.message).toEqual(ping);
  });

  it('is delivered cut to its heads when the disk fills up while it arrives, and its files are deleted', async () => {
    const { dir, feed, messages, errors, settled } = await framing((d) => d);
    const line = `${JSON.stringify(bigResult)}\n`;
    disk.full = true; // the file is made, its writes fail
    feed(line.slice(0, 400_000));
    // The first write (at 256 KiB) has failed before the line ends: the message waits for its files, which fail.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    feed(line.slice(400_000));
    feed(`${JSON.stringify(ping)}\n`);
    await settled();
    expect(errors).toEqual([]);
    expect(messages).toHaveLength(2);
    expectCutToHead(messages[0]!.message, /could not be written to disk \(ENOSPC: no space left on device, write\)/);
    expect(messages[1]!.message).toEqual(ping);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('a result cut to its heads', () => {
  it('is not kept by the spill store as if whole: its write fails with the reason', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'spillway-refused-'));
    dirs.push(dir);
    const counter = new TokenCounter();
    const store = await SpillStore.open({ dir, now: Date.now, counter });
    const why = 'only 8,192 of its 90,000 bytes of text reached Spillway; the rest could not be written to disk (ENOSPC)';
    const plan = store.plan({ content: [{ type: 'text', text: 'x'.repeat(8192) }], _meta: { 'spillway/cutShort': why } }, { server: 's', tool: 't' });
    expect(plan.answerFirst).toBe(false);
    await expect(plan.write()).rejects.toEqual(new SpillWriteError(why));
    expect(store.list()).toEqual([]);
    await store.close();
    counter.close();
  });
});

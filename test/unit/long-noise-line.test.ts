import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineFramer, type OversizedMessageError } from '../../electron/core/wire/line-framer.js';
import { RawMessageSpool } from '../../electron/core/wire/raw-spool.js';
import { OrderedDelivery } from '../../electron/core/wire/ordered-delivery.js';

// Audit s15: a long stdout line that is not JSON was kept whole in the spool's skeleton (a 200 MB line
// of noise took 746 MB). Past 8 MiB held in memory such a line is skipped as noise, its edges kept.

const MiB = 1024 * 1024;
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function framing() {
  const dir = await mkdtemp(join(tmpdir(), 'spillway-noise-'));
  dirs.push(dir);
  const messages: JSONRPCMessage[] = [];
  const noise: string[] = [];
  const errors: OversizedMessageError[] = [];
  let largestSkeleton = 0;
  class Measured extends RawMessageSpool {
    override push(piece: Buffer): void {
      super.push(piece);
      largestSkeleton = Math.max(largestSkeleton, this.skeletonBytes);
    }
  }
  const order = new OrderedDelivery((error) => errors.push(error as OversizedMessageError));
  const framer = new LineFramer({
    onMessage: (message) => messages.push(message),
    onNoise: (line) => noise.push(line),
    onError: (e) => errors.push(e),
    spool: { aboveBytes: 64 * 1024, create: () => new Measured({ dir }) },
    order,
  });
  const settled = () => new Promise<void>((resolve) => order.run(resolve));
  return { dir, framer, messages, noise, errors, settled, largest: () => largestSkeleton };
}

const ping = { jsonrpc: '2.0', id: 1, method: 'ping' } as const;

describe('a long line of noise', () => {
  it('is skipped once 8 MiB of it is held, reported by its first and last bytes, and the next line is read', async () => {
    const { dir, framer, messages, noise, errors, settled, largest } = await framing();
    const chunk = Buffer.from('x'.repeat(MiB - 5) + 'ab"cd');
    framer.push(Buffer.from('starts here '));
    for (let i = 0; i < 24; i++) framer.push(chunk);
    framer.push(Buffer.from(' ends here\n'));
    framer.push(Buffer.from(`${JSON.stringify(ping)}\n`));
    await settled();
    expect(largest()).toBeLessThanOrEqual(9 * MiB);
    expect(errors).toEqual([]);
    expect(noise).toHaveLength(1);
    expect(noise[0]!.length).toBeLessThan(4096);
    expect(noise[0]).toMatch(/^starts here x+ \[…25,165,\d{3} bytes in all, the middle left out…\] .*ends here$/s);
    expect(messages).toEqual([ping]);
    expect(await readdir(dir)).toEqual([]);
  });

  it('is not cut when it begins as a JSON object: a large result of short strings is delivered whole', async () => {
    const { framer, messages, noise, errors, settled } = await framing();
    const rows = Array.from({ length: 200_000 }, (_, i) => ({ id: i, name: `row ${i}`, tags: ['a', 'b'] }));
    const result = { jsonrpc: '2.0', id: 9, result: { content: [], structuredContent: { rows } } };
    const line = Buffer.from(`${JSON.stringify(result)}\n`);
    expect(line.length).toBeGreaterThan(9 * MiB);
    for (let i = 0; i < line.length; i += MiB) framer.push(line.subarray(i, i + MiB));
    await settled();
    expect(errors).toEqual([]);
    expect(noise).toEqual([]);
    expect(messages).toEqual([result]);
  });
});

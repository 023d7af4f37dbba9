/**
 * The texts the read thread keeps (read-thread.ts ThreadDocuments). Every grep and query now runs there,
 * of small results too: when it kept only the last text read, a grep of a small result pushed out a large
 * one, which was read and parsed again on its next read (audit s13 review: 0.4-1.1 s each for a 33 MB JSON,
 * with every other read waiting behind it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ThreadDocuments } from '../../electron/core/spill/read-thread.js';

let root: string;
const file = (name: string) => join(root, name);
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-thread-docs-'));
  await writeFile(file('large'), 'x'.repeat(2_000));
  for (const name of ['a', 'b', 'c']) await writeFile(file(name), `${name}\n`.repeat(100));
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** Large: over 1,000 bytes. Small ones: 200 bytes of 100 lines, 4,640 of weight (SpillDocument.weight): two fit. */
const options = { largeTextBytes: 1_000, smallTextsWeight: 10_000 };

describe("the read thread's texts", () => {
  it('keep a large text while small ones are read', async () => {
    const docs = new ThreadDocuments(options);
    const large = await docs.get(file('large'));
    for (const name of ['a', 'b', 'c', 'a', 'b', 'c']) await docs.get(file(name));
    expect(await docs.get(file('large'))).toBe(large); // the same document: not read and split again
    expect(docs.kept.large).toEqual([file('large')]);
  });

  it('keep the small ones within their weight, the last read first', async () => {
    const docs = new ThreadDocuments(options);
    const a = await docs.get(file('a'));
    await docs.get(file('b'));
    expect(await docs.get(file('a'))).toBe(a);
    await docs.get(file('c')); // b, the least recently read, makes room
    expect(docs.kept.small.sort()).toEqual([file('a'), file('c')]);
  });

  it('keep one large text: the next one takes its place', async () => {
    await writeFile(file('large2'), 'y'.repeat(3_000));
    const docs = new ThreadDocuments(options);
    await docs.get(file('large'));
    await docs.get(file('large2'));
    expect(docs.kept.large).toEqual([file('large2')]);
  });

  it('give back a text unread for a while, even while others are read', async () => {
    // Moved by hand. It starts past 0: lru-cache takes a start time of 0 for "no time limit".
    let now = 1_000;
    const docs = new ThreadDocuments({ ...options, ttlMs: 1_000, clock: { now: () => now } });
    await docs.get(file('large'));
    for (let i = 0; i < 6; i++) {
      await docs.get(file('a'));
      if (i === 5) expect(docs.kept.large).toEqual([file('large')]); // unread for 1,000 ms: not past its time yet
      now += 200;
    }
    expect(docs.kept).toEqual({ large: [], small: [file('a')] });
  });

  it('share one read among requests at once, and keep no failed read', async () => {
    const docs = new ThreadDocuments(options);
    const [one, two] = await Promise.all([docs.get(file('b')), docs.get(file('b'))]);
    expect(one).toBe(two);
    await expect(docs.get(file('missing'))).rejects.toMatchObject({ code: 'ENOENT' });
    await writeFile(file('missing'), 'here now\n');
    expect((await docs.get(file('missing'))).text).toBe('here now\n');
  });
});

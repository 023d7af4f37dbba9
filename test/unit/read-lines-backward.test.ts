/** readLinesBackward: the lines of a file newest first, across chunk edges, resumable where a budget stopped it. */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLinesBackward } from '../../electron/core/log/journal-files.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-backward-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** About 1.5 MiB: lines of many lengths (one longer than a 256 KiB chunk), with characters of 2 to 4 bytes. */
function lines(): string[] {
  const out: string[] = [];
  for (let i = 0; i < 3000; i++) out.push(`${i} ${'é€😀x'.repeat(i % 97)}`);
  out.splice(1500, 0, `long ${'y'.repeat(300 * 1024)}`);
  return out;
}

it('reads every line newest first, whole, across chunk edges', async () => {
  const all = lines();
  const path = join(dir, 'a.jsonl');
  await writeFile(path, `${all.join('\n')}\n`);
  const seen: string[] = [];
  const done = await readLinesBackward(path, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, (line) => {
    seen.push(line);
    return true;
  });
  expect(done.offset).toBe(0);
  expect(seen).toEqual([...all].reverse());
});

it('stops near its byte budget at a line boundary and goes on from there', async () => {
  const all = lines();
  const path = join(dir, 'b.jsonl');
  await writeFile(path, `${all.join('\n')}\n`);
  const seen: string[] = [];
  let offset = Number.MAX_SAFE_INTEGER;
  let reads = 0;
  do {
    const read = await readLinesBackward(path, offset, 100 * 1024, (line, start) => {
      expect(start).toBeLessThan(offset);
      seen.push(line);
      return true;
    });
    expect(read.bytesRead).toBeLessThanOrEqual(512 * 1024);
    offset = read.offset;
    reads++;
  } while (offset > 0);
  expect(reads).toBeGreaterThan(4);
  expect(seen).toEqual([...all].reverse());
});

it('stops where the visitor says and a missing file reads as empty', async () => {
  const path = join(dir, 'c.jsonl');
  await writeFile(path, 'one\ntwo\nthree\n');
  const seen: string[] = [];
  const read = await readLinesBackward(path, 100, 1 << 20, (line) => (seen.push(line), seen.length < 2));
  expect(seen).toEqual(['three', 'two']);
  expect(read.offset).toBe(4);
  expect(await readLinesBackward(join(dir, 'gone.jsonl'), 10, 10, () => true)).toEqual({ offset: 0, bytesRead: 0 });
});

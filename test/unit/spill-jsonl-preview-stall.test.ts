/**
 * Review s21: buildPreview parsed a whole JSON Lines text on the main thread (parseJsonSequence) only to
 * suggest `size()` in the header: a 0.36 s stall for 41.7 M characters. Now several values one after
 * another are told from the text's first SEQUENCE_START_CHARS (sequenceStart), walked and parsed there.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { buildPreview } from '../../electron/core/spill/result-preview.js';
import { parseJsonSequence, SEQUENCE_START_CHARS, sequenceStart, viewResult } from '../../electron/core/spill/result-view.js';
import { longestStallDuring } from '../support/main-thread-stalls.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

const jsonLines = (count: number): string =>
  Array.from({ length: count }, (_, i) =>
    JSON.stringify({ id: i, name: `item ${i}`, body: 'lorem ipsum dolor sit amet '.repeat(5), tags: ['a', 'b', { k: i }] }),
  ).join('\n');
const preview = async (text: string) => {
  const result = { content: [{ type: 'text' as const, text }] };
  return buildPreview(result, viewResult(result), 300, counter);
};

describe('the preview of JSON Lines', () => {
  it('of 40 MB holds the main thread for much less than parsing all of it takes, and still suggests size()', async () => {
    const text = jsonLines(200_000);
    expect(text.length).toBeGreaterThan(40_000_000);
    await preview(jsonLines(10)); // the tokenizer loaded
    const parseAll = await longestStallDuring(async () => expect(parseJsonSequence(text)?.value).toHaveLength(200_000));
    let got: Awaited<ReturnType<typeof preview>> | undefined;
    const stall = await longestStallDuring(async () => (got = await preview(text)));
    expect(got).toMatchObject({ query: 'size()', summary: false });
    expect(got?.notJson).toBeUndefined();
    expect(stall).toBeLessThan(parseAll / 2);
  }, 120_000);

  it('is told from the start: values in it, a break in it, or a first value running past it', () => {
    const text = jsonLines(20_000);
    expect(sequenceStart(text)).toMatchObject({ value: expect.any(Array) });
    expect((sequenceStart(text) as { value: unknown[] }).value.length).toBeLessThan(20_000);
    expect(sequenceStart(`{"a":1}\n{"b":2`)).toBe(false); // never closes
    expect(sequenceStart(`{"a":1}\nnot json\n{"b":2}`)).toBe(false);
    expect(sequenceStart(`{"a":1,}\n{"b":2}`)).toBe(false); // a value that is not JSON
    expect(sequenceStart(`{"a":1}  `)).toBe(false); // one value only
    expect(sequenceStart(`{"a":1}\n{"b":"${'x'.repeat(SEQUENCE_START_CHARS)}"}`)).toEqual({ value: [{ a: 1 }] });
    expect(sequenceStart(`{"a":"${'x'.repeat(SEQUENCE_START_CHARS)}"}\n{"b":2}`)).toBeUndefined();
  });

  it('says a text that only starts and ends as JSON does is not JSON, from its start', async () => {
    expect((await preview(`{"a":1}\nnot json\n${jsonLines(100)}`)).notJson).toBe(true);
    expect((await preview(`{"a":1,}`)).notJson).toBe(true);
    expect(await preview(jsonLines(100))).toMatchObject({ query: 'size()' });
  });
});

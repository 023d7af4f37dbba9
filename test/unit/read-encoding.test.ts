/**
 * The TOON view of a spilled table and a query's TOON answer are made under a deadline (audit s11): a
 * table whose TOON takes too long is shown as JSON with a note, and that finding is kept with the document
 * so the next read does not try again.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { decode } from '@toon-format/toon';
import { linesView, queryAnswer, TOON_VIEW_MAX_CHARS } from '../../electron/core/spill/read-encoding.js';
import { documentCache, SpillDocument } from '../../electron/core/spill/spill-document.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

const rowsOf = (count: number) => ({ rows: Array.from({ length: count }, (_, i) => ({ id: i, label: `row number ${i} with some words` })) });

describe('linesView', () => {
  it('reads a table of normal size on its TOON view, one row a line', async () => {
    const view = await linesView(new SpillDocument(JSON.stringify(rowsOf(3_000))), 'auto', counter);
    expect(view?.header).toMatch(/^\[Lines of the result as TOON: shown as TOON \(tabular\), \d+% fewer tokens than JSON; /);
    expect(view?.doc.lines[0]).toBe('rows[3000]{id,label}:');
    expect(decode(view!.doc.text)).toEqual(rowsOf(3_000));
  });

  it('shows the JSON with a note when the TOON takes past its deadline, and keeps that finding', async () => {
    const doc = new SpillDocument(JSON.stringify(rowsOf(20_000))); // ~1.1 MB: under the size limit
    expect(doc.text.length).toBeLessThan(TOON_VIEW_MAX_CHARS);
    const limits = { maxChars: TOON_VIEW_MAX_CHARS, deadlineMs: 1 };
    const first = linesView(doc, 'auto', counter, limits);
    const view = await first;
    expect(view?.doc).toBe(doc);
    expect(view?.header).toMatch(/^\[Lines of the result as JSON: it is too large to turn into TOON .* e\.g\. `\.rows \| limit\(100\)`\]$/);
    // The next read of the same document gets the same answer without trying again.
    expect(linesView(doc, 'auto', counter)).toBe(first);
  });

  it('does not try a text over the size limit, nor JSON that is not a table, nor the json encoding', async () => {
    const large = new SpillDocument(JSON.stringify(rowsOf(3_000)));
    const view = await linesView(large, 'toon', counter, { maxChars: 1_000, deadlineMs: 60_000 });
    expect(view).toEqual({ doc: large, header: expect.stringMatching(/too large to turn into TOON/) });
    expect(await linesView(new SpillDocument('{"a":1,"b":[1,2]}'), 'auto', counter)).toBeUndefined();
    expect(await linesView(new SpillDocument(JSON.stringify(rowsOf(3_000))), 'json', counter)).toBeUndefined();
  });
});

describe('queryAnswer', () => {
  it('answers a table as TOON, or as its JSON with a note past the deadline', async () => {
    const value = rowsOf(20_000).rows;
    const pretty = JSON.stringify(value, null, 2);
    expect(await queryAnswer(value.slice(0, 3), JSON.stringify(value.slice(0, 3), null, 2), 'auto', counter)).toMatch(
      /^\[3\]\{id,label\}:\n[\s\S]*\n\[shown as TOON/,
    );
    expect(await queryAnswer(value, pretty, 'auto', counter, 1)).toBe(`${pretty}\n[shown as JSON: too large to turn into TOON quickly]`);
  });
});

describe('the read-back cache counts what a document holds, not only its text', () => {
  it('weighs the lines a text is split into and the value a JSON text parses to', () => {
    const log = new SpillDocument('a short line\n'.repeat(10_000));
    expect(log.weight).toBeGreaterThanOrEqual(log.text.length * 3 + 10_000 * 40);
    const json = new SpillDocument(JSON.stringify(rowsOf(1_000)));
    expect(json.weight).toBeGreaterThanOrEqual(json.text.length * 5);
    // A cache of 1 MB takes fewer such documents than their text alone would let in.
    const cache = documentCache(1_000_000);
    for (let i = 0; i < 10; i++) cache.set(`h${i}`, new SpillDocument(`${i} ${'a line of a log\n'.repeat(4_000)}`));
    expect(cache.size).toBeLessThan(Math.floor(1_000_000 / (16 * 4_000 * 3)));
  });
});

/**
 * JSON whose numbers a double cannot hold (64-bit ids, 1e400), read back as the upstream wrote them
 * (audit s15): query answers, filters and sorts on them, stat and the summary of such a value.
 */
import { describe, expect, it } from 'vitest';
import { exactNumberLiterals, isLosslessNumber, jsonText, parseJsonExactly } from '../../electron/core/spill/exact-json.js';
import { shape, summarizeJson } from '../../electron/core/spill/json-summary.js';
import { queryJson } from '../../electron/core/spill/read-ops.js';
import { SpillDocument } from '../../electron/core/spill/spill-document.js';

const IDS = ['1189594358021324801', '1189594358021324808', '1189594358021324815'];
const TEXT = `{"limit": 1e400, "ratio": 0.1, "dup": 1, "dup": 2, "messages": [${IDS.map((id, i) => `{"id": ${id}, "n": ${i}, "author": "user${i}"}`).join(', ')}]}`;

const answer = (query: string, text = TEXT) => {
  const got = queryJson(new SpillDocument(text), query);
  return typeof got === 'string' ? got : got.pretty;
};

describe('parseJsonExactly', () => {
  it('keeps numbers a double cannot hold as their text, and the others as numbers', () => {
    const { value } = parseJsonExactly(TEXT) as { value: { limit: unknown; ratio: unknown; dup: unknown; messages: { id: unknown; n: unknown }[] } };
    expect(isLosslessNumber(value.limit) && value.limit.value).toBe('1e400');
    expect(isLosslessNumber(value.messages[0]!.id) && value.messages[0]!.id.value).toBe(IDS[0]);
    expect(value.ratio).toBe(0.1);
    expect(value.messages[1]!.n).toBe(1);
    expect(value.dup).toBe(2); // the last of a key given twice, as JSON.parse
    expect(jsonText(value.messages[2])).toBe(`{"id":${IDS[2]},"n":2,"author":"user2"}`);
    expect(parseJsonExactly('{"a": 1')).toBeUndefined();
  });

  it('is used by a document only when JSON.parse would change a number', () => {
    expect(new SpillDocument('{"a": [1, 2.5]}').json).toEqual({ value: { a: [1, 2.5] } });
    expect(isLosslessNumber((new SpillDocument('{"a": 12345678901234567890}').json!.value as { a: unknown }).a)).toBe(true);
  });
});

describe('queries on a JSON text with 64-bit ids', () => {
  it('answer the ids and 1e400 as written', () => {
    expect(answer('$.messages[0].id')).toBe(`Query "$.messages[0].id":\n${IDS[0]}`);
    expect(answer('.limit')).toBe('Query ".limit":\n1e400');
    expect(answer('.messages | map(.id)')).toBe(`Query ".messages | map(.id)":\n[\n  ${IDS.join(',\n  ')}\n]`);
  });

  it('filter by an id exactly (JSON.parse makes the three ids one double)', () => {
    expect(answer(`.messages | filter(.id == ${IDS[1]}) | map(.author)`)).toContain('[\n  "user1"\n]');
    expect(answer(`.messages | filter(.id != ${IDS[1]}) | map(.n)`)).toContain('[\n  0,\n  2\n]');
    expect(answer(`.messages | filter(.id > ${IDS[0]}) | map(.n)`)).toContain('[\n  1,\n  2\n]');
    expect(answer(`.messages | filter(.id <= ${IDS[1]}) | map(.n)`)).toContain('[\n  0,\n  1\n]');
    expect(answer(`.messages | filter(.id in [${IDS[2]}, 5]) | map(.n)`)).toContain('[\n  2\n]');
    expect(answer('.messages | sort(.id, "desc") | map(.n)')).toContain('[\n  2,\n  1,\n  0\n]');
    expect(answer('.messages | map(.id) | max()')).toContain(IDS[2]);
    expect(answer('.limit > 1e300')).toContain('true');
  });

  it('compare plain numbers as before', () => {
    expect(answer('.messages | filter(.n >= 1) | map(.author)')).toContain('"user1",\n  "user2"');
  });
});

describe('exactNumberLiterals', () => {
  it('writes number literals a double cannot hold as exactNumber calls, leaving strings and property names', () => {
    expect(exactNumberLiterals('.a == 1189594358021324801')).toBe('.a == exactNumber("1189594358021324801")');
    expect(exactNumberLiterals('.a == -1189594358021324801')).toBe('.a == exactNumber("-1189594358021324801")');
    expect(exactNumberLiterals('.a-1189594358021324801')).toBe('.a-exactNumber("1189594358021324801")');
    expect(exactNumberLiterals('.a == 12 and .b == "1189594358021324801" and .c.1189594358021324801')).toBe(
      '.a == 12 and .b == "1189594358021324801" and .c.1189594358021324801',
    );
  });
});

describe('the summary and stat of such a value', () => {
  it('show the numbers as written', () => {
    const { value } = parseJsonExactly(TEXT)!;
    expect(shape((value as { limit: unknown }).limit)).toBe('number 1e400');
    const summary = summarizeJson(value, 10_000);
    expect(summary).toContain('"limit": number 1e400');
    expect(summary).toContain(`[0] {"id":${IDS[0]},"n":0,"author":"user0"}`);
  });
});

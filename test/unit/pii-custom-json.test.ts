/**
 * Custom PII patterns on JSON text. They read each JSON string as a line of its own (so `.*` stops at
 * the end of a string), and the text as it is too: a pattern written for the JSON itself, quotes and all,
 * still masks what it matches, and the masked text stays valid JSON.
 */
import { describe, expect, it } from 'vitest';
import { createMasker, restoreText } from '../../electron/core/pii/index.js';

const masker = createMasker({
  types: [],
  custom: [
    { name: 'acct', pattern: '"account":\\s*"\\w+"' },
    { name: 'tok', pattern: 'token=\\w+' },
    { name: 'cust', pattern: '"customer_id":\\s*\\d+' },
  ],
});

const maskedJson = (text: string) => {
  const { text: masked, vault } = masker.maskText(text);
  return { masked, parsed: JSON.parse(masked) as unknown, restored: restoreText(masked, vault) };
};

describe('custom patterns on JSON text', () => {
  it('a pattern with quotes masks the JSON it matches, and the text stays valid JSON', () => {
    const text = '{"account": "AB12345", "x": 1}';
    const { masked, parsed, restored } = maskedJson(text);
    expect(masked).not.toContain('AB12345');
    expect(masked).toBe('{"[ACCT_1]": "[ACCT_2]", "x": 1}');
    expect(parsed).toEqual({ '[ACCT_1]': '[ACCT_2]', x: 1 });
    expect(restored).toBe(text);
  });

  it('a pattern with quotes that ends in a number token masks the number as a quoted placeholder', () => {
    const text = '{"customer_id": 90210, "ok": true}';
    const { masked, parsed, restored } = maskedJson(text);
    expect(masked).not.toContain('90210');
    expect(parsed).toEqual({ '[CUST_1]': '[CUST_2]', ok: true });
    expect(restored).toBe(text);
  });

  it('in a JSON argument (a string holding JSON) and in plain text alike', () => {
    const { masked } = masker.maskArguments({ body: '[{"account": "ZX999"}]', text: 'plain "account": "ZX999" here' });
    expect(JSON.stringify(masked)).not.toContain('ZX999');
    expect(JSON.parse(masked.body)).toEqual([{ '[ACCT_1]': '[ACCT_2]' }]);
    expect(masked.text).toBe('plain [ACCT_3] here');
  });

  it('a pattern without quotes masks inside the string only', () => {
    const text = '{"url": "https://x/?token=abc123", "n": 2}';
    const { masked, restored } = maskedJson(text);
    expect(masked).toBe('{"url": "https://x/?[TOK_1]", "n": 2}');
    expect(restored).toBe(text);
  });

  it('where the line reading matched, its match stands: `.*` stops at the end of a string', () => {
    const note = createMasker({ types: [], custom: [{ name: 'note', pattern: 'note: .*' }] });
    expect(note.maskText('{"a":"note: knee","b":"fine","n":3}').text).toBe('{"a":"[NOTE_1]","b":"fine","n":3}');
  });
});

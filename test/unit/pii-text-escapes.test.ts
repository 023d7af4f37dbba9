/**
 * Escapes outside whole JSON, and JSON that starts with a byte order mark. Text that is not whole JSON
 * (JSON lines cut off at the end, a log quoting JSON) can still hold `\n` before personal data: the
 * escape ends a word there, so the data is found and the escape is kept, not turned into `\[EMAIL_1]`.
 */
import { describe, expect, it } from 'vitest';
import { createMasker, PiiVault, restoreText } from '../../electron/core/pii/index.js';

const all = createMasker();
const BOM = '\ufeff';

describe('JSON with a byte order mark', () => {
  it('is read as JSON: the escape before an address is kept and the text stays valid JSON', () => {
    const text = `${BOM}{"note": "\\nalice@example.com", "n": 1}`;
    const { text: masked, vault } = all.maskText(text);
    expect(masked).toBe(`${BOM}{"note": "\\n[EMAIL_1]", "n": 1}`);
    expect(JSON.parse(masked.slice(1))).toEqual({ note: '\n[EMAIL_1]', n: 1 });
    expect(restoreText(masked, vault)).toBe(text);
  });

  it('an original restored into it is escaped as in any JSON text', () => {
    const vault = new PiiVault();
    const p = vault.placeholderFor('NAME', 'Bob "the builder"');
    expect(restoreText(`${BOM}{"name":"${p}"}`, vault)).toBe(`${BOM}{"name":"Bob \\"the builder\\""}`);
  });
});

describe('escapes in text that is not whole JSON', () => {
  it('JSON lines cut off at the end: each whole line stays valid JSON', () => {
    const text = '{"a":"x"}\n{"note": "\\nbob@example.com"}\n{"b":1';
    const { text: masked, vault } = all.maskText(text);
    expect(masked).toBe('{"a":"x"}\n{"note": "\\n[EMAIL_1]"}\n{"b":1');
    expect(JSON.parse(masked.split('\n')[1]!)).toEqual({ note: '\n[EMAIL_1]' });
    expect(restoreText(masked, vault)).toBe(text);
  });

  it.each([
    ['a phone after \\n', 'log: {"to":"\\n555-234-5678"', '555-234-5678', 'log: {"to":"\\n[PHONE_1]"'],
    ['an SSN after \\t', 'log: {"row":"ssn:\\t123-45-6789"', '123-45-6789', 'log: {"row":"ssn:\\t[SSN_1]"'],
    ['an address after \\r', 'log: "\\rcarol@example.com"', 'carol@example.com', 'log: "\\r[EMAIL_1]"'],
    ['an address after \\u0020', 'log: "\\u0020dave@example.com"', 'dave@example.com', 'log: "\\u0020[EMAIL_1]"'],
  ])('%s is masked and the escape kept whole', (_name, text, pii, expected) => {
    const { text: masked, vault } = all.maskText(text);
    expect(masked).not.toContain(pii);
    expect(masked).toBe(expected);
    expect(restoreText(masked, vault)).toBe(text);
  });

  it('an escaped backslash does not start an escape: its n is a letter of the address', () => {
    expect(all.maskText('log: "\\\\nbob@example.com"').text).toBe('log: "\\\\[EMAIL_1]"');
  });

  it('a custom pattern written with a backslash and its letter still matches', () => {
    const masker = createMasker({ types: [], custom: [{ name: 'home', pattern: 'C:\\\\Users\\\\nancy' }] });
    expect(masker.maskText('opened C:\\Users\\nancy\\notes.txt').text).toBe('opened [HOME_1]\\notes.txt');
  });
});

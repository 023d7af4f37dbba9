/**
 * Masking and restoring inside JSON text: personal data right after an escape (`\n`, `\t`, `\u00e9`) is
 * found and masked, the masked text is still valid JSON (a placeholder never replaces part of an escape,
 * a quote, a comma or a brace), and originals restored into a server's JSON text are escaped there.
 */
import { describe, expect, it } from 'vitest';
import { createMasker, PiiPatternError, PiiVault, restore, restoreText } from '../../electron/core/pii/index.js';

const all = createMasker();
const maskJsonText = (value: unknown, masker = all) => {
  const text = JSON.stringify(value);
  const { masked, vault } = masker.maskResult({ content: [{ type: 'text', text }] });
  return { text: masked.content[0]!.text, vault };
};

describe('PII right after a JSON escape', () => {
  it.each<[string, Record<string, string>, string]>([
    ['a phone on its own line', { contact: 'Alice Smith\n555-234-5678' }, '555-234-5678'],
    ['an SSN after a tab', { row: 'ssn:\t123-45-6789' }, '123-45-6789'],
    ['an IPv4 at the start of an access-log line', { log: '203.0.113.7 GET /a\n198.51.100.9 GET /b' }, '198.51.100.9'],
    ['a card on its own line', { note: 'card:\n4111 1111 1111 1111' }, '4111 1111 1111 1111'],
    ['an email on its own line', { contact: 'Alice\nalice@example.com' }, 'alice@example.com'],
    ['a date of birth after a tab', { note: 'DOB:\t04/12/1990' }, '04/12/1990'],
  ])('%s is masked and the text stays valid JSON', (_name, value, pii) => {
    const { text, vault } = maskJsonText(value);
    expect(text).not.toContain(pii);
    const parsed = JSON.parse(text) as Record<string, string>;
    expect(restore(parsed, vault)).toEqual(value);
  });

  it('after a \\u escape: masked, and the escape is kept whole', () => {
    const text = '{"who":"Ren\\u00e9\\u0020rene@example.fr"}';
    const { masked } = all.maskResult({ content: [{ type: 'text', text }] });
    expect(masked.content[0]!.text).toBe('{"who":"Ren\\u00e9\\u0020[EMAIL_1]"}');
  });

  it('the email match does not swallow the letter of a \\n escape', () => {
    expect(maskJsonText({ contact: 'Alice\nalice@example.com' }).text).toBe('{"contact":"Alice\\n[EMAIL_1]"}');
  });

  it('pretty-printed JSON keeps its layout and its numbers as written', () => {
    const text = '{\n  "id": 12345678901234567890,\n  "price": 1.50,\n  "to": "a@x.com",\n  "note": "x\\ty"\n}';
    expect(all.maskText(text).text).toBe('{\n  "id": 12345678901234567890,\n  "price": 1.50,\n  "to": "[EMAIL_1]",\n  "note": "x\\ty"\n}');
  });

  it('JSON lines: each line masked inside its strings', () => {
    const text = '{"msg":"from\\nalice@example.com"}\n{"msg":"ok\\t555-234-5678"}\n';
    const { text: masked, vault } = all.maskText(text);
    expect(masked).toBe('{"msg":"from\\n[EMAIL_1]"}\n{"msg":"ok\\t[PHONE_1]"}\n');
    expect(restoreText(masked, vault)).toBe(text);
  });

  it('a custom pattern reads the end of a string as the end of a line', () => {
    const masker = createMasker({ types: [], custom: [{ name: 'note', pattern: 'Patient note: .*' }] });
    const text = '{"a":"Patient note: knee","b":"fine","c":"Patient note: hip","n":3}';
    const { text: masked, vault } = masker.maskText(text);
    expect(masked).toBe('{"a":"[NOTE_1]","b":"fine","c":"[NOTE_2]","n":3}');
    expect(restoreText(masked, vault)).toBe(text);
  });

  it('a custom pattern that reaches past a string masks the strings it covers and keeps the structure', () => {
    const masker = createMasker({ types: [], custom: [{ name: 'note', pattern: 'note: [^;]*' }] });
    const text = '{"a":"note: x","b":"y"}';
    const { text: masked, vault } = masker.maskText(text);
    expect(masked).toBe('{"a":"[NOTE_1]","[NOTE_2]":"[NOTE_3]"}');
    expect(restoreText(masked, vault)).toBe(text);
  });

  it('in plain text a backslash is left as it is: a Windows path is not read as escapes', () => {
    const masker = createMasker({ types: [], custom: [{ name: 'user_path', pattern: 'C:\\\\Users\\\\[^\\\\]+' }] });
    expect(masker.maskText('C:\\Users\\nancy\\notes.txt').text).toBe('[USER_PATH_1]\\notes.txt');
  });

  it('a card number written as a JSON number is masked as a string, and restored as the number', () => {
    const text = '{"card":4111111111111111,"amount":12.5}';
    const { text: masked, vault } = all.maskText(text);
    expect(masked).toBe('{"card":"[CREDIT_CARD_1]","amount":12.5}');
    expect(JSON.parse(masked)).toEqual({ card: '[CREDIT_CARD_1]', amount: 12.5 });
    expect(restoreText(masked, vault)).toBe(text);
    // Outside JSON text the placeholder becomes the digits.
    expect(restoreText('card [CREDIT_CARD_1]', vault)).toBe('card 4111111111111111');
  });

  it('text that only looks like JSON is masked as plain text', () => {
    expect(all.maskText('Error: {"to":"a@x.com"').text).toBe('Error: {"to":"[EMAIL_1]"');
    expect(all.maskText('[EMAIL_9] wrote from a@x.com').text).toBe('[EMAIL_9] wrote from [EMAIL_1]');
  });
});

describe('a big JSON text', () => {
  it('a custom pattern past its deadline is still cut off, and the built-ins mask the same 2 MB, escapes and all', () => {
    const slow = createMasker({ types: [], custom: [{ name: 'slow', pattern: 'a[ab]{500}[^ab]' }], deadlineMs: 50 });
    let seed = 7;
    const ab = () => Array.from({ length: 1000 }, () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0x100 ? 'a' : 'b')).join('');
    const rows = Array.from({ length: 2000 }, (_, i) => ({ id: i, text: `${ab()}\n`, contact: `user${i}@example.com\t555-234-5678` }));
    const text = JSON.stringify(rows);
    const started = performance.now();
    expect(() => slow.maskText(text)).toThrow(PiiPatternError);
    expect(performance.now() - started).toBeLessThan(2_000);

    const { text: masked, vault } = all.maskText(text);
    expect(masked).not.toMatch(/user\d+@example\.com|555-234-5678/);
    expect(restoreText(masked, vault)).toBe(text);
  });
});

describe("restoring into a server's JSON text", () => {
  it('a Windows user path comes back as valid JSON', () => {
    const masker = createMasker({ types: [], custom: [{ name: 'user_path', pattern: 'C:\\\\Users\\\\[^\\\\]+' }] });
    const args = { path: 'C:\\Users\\alice\\notes.txt' };
    const { masked, vault } = masker.maskArguments(args);
    expect(masked.path).toBe('[USER_PATH_1]\\notes.txt');
    // The upstream answers with JSON.stringify of what it received (as most MCP servers do).
    const upstream = { content: [{ type: 'text' as const, text: JSON.stringify({ opened: masked.path, ok: true }) }] };
    const text = restore(upstream, vault).content[0]!.text;
    expect(JSON.parse(text)).toEqual({ opened: 'C:\\Users\\alice\\notes.txt', ok: true });
  });

  it('an address over two lines comes back as valid JSON', () => {
    const masker = createMasker({ types: [], custom: [{ name: 'address', pattern: '\\d+ \\w+ St\\s+\\w+' }] });
    const { masked, vault } = masker.maskArguments({ to: '12 Main St\nSpringfield' });
    const upstream = { content: [{ type: 'text' as const, text: JSON.stringify({ shipped_to: masked.to }) }] };
    expect(JSON.parse(restore(upstream, vault).content[0]!.text)).toEqual({ shipped_to: '12 Main St\nSpringfield' });
  });

  it('a quote in the original is escaped in JSON text and left as it is in plain text', () => {
    const vault = new PiiVault();
    const p = vault.placeholderFor('NAME', 'Bob "the builder"');
    expect(restoreText(`{"name":"${p}"}`, vault)).toBe('{"name":"Bob \\"the builder\\""}');
    expect(restoreText(`Hello ${p}`, vault)).toBe('Hello Bob "the builder"');
  });
});

/**
 * Custom PII patterns: accepted ones mask, refused ones say why. They run on the linear-time engine
 * (issue 13, item 10), so patterns that backtrack exponentially in JavaScript are fine and fast; what it
 * cannot run (lookahead, backreferences) is refused by name, and a slow masking is cut off.
 */
import { describe, expect, it } from 'vitest';
import { checkCustomPattern, createMasker, PiiPatternError } from '../../electron/core/pii/index.js';

describe('custom patterns', () => {
  it('masks with a label made from the name', () => {
    const masker = createMasker({
      types: [],
      custom: [
        { name: 'employee-id', pattern: 'EMP-\\d{6}' },
        { name: 'Ticket', pattern: 'tkt_[a-z0-9]{8}', flags: 'i' },
      ],
    });
    expect(masker.maskText('EMP-123456 filed TKT_ab12CD34 about EMP-123456').text).toBe('[EMPLOYEE_ID_1] filed [TICKET_1] about [EMPLOYEE_ID_1]');
  });

  it.each([
    ['(\\d{3}-){2}\\d{4}', 'a bounded repeat of a fixed group'],
    ['[A-Z]{2}\\d{6}', 'classes and counts'],
    ['(?:ab|cd)+x', 'a repeated group without a repeat inside'],
    ['(a+){2,5}', 'nested repeat with a small bound'],
    ['[(+*]+\\d', 'quantifier characters inside a class'],
    ['\\(\\d+\\)+', 'escaped parentheses'],
    ['(a+)+$', 'a nested repeat (linear on this engine)'],
    ['(\\w+\\s?)+!', 'repeated words'],
    ['((ab)*c)+', 'a repeat inside a repeat'],
    ['(?:\\d+,?){2,}', 'an unbounded count of a repeat'],
    ['(?<![\\w-])EMP-\\d{6}', 'a lookbehind'],
    ['(?<id>\\u0041\\d+)', 'a named group and a \\u escape'],
  ])('accepts %s (%s)', (pattern) => {
    expect(checkCustomPattern({ name: 'x', pattern })).toEqual({ ok: true, label: 'X' });
  });

  it.each([
    [{ name: 'x', pattern: 'EMP(?!-0)\\d+' }, /lookahead \(\?=…\) and \(\?!…\) is not supported: patterns run on a linear-time engine/],
    [{ name: 'x', pattern: '(\\d)\\1' }, /backreferences \(\\1, \\k<name>\) are not supported/],
    [{ name: 'x', pattern: 'a{1001}' }, /invalid repeat count/],
    [{ name: 'x', pattern: '(unclosed' }, /not a valid regular expression/],
    [{ name: 'x', pattern: 'a*' }, /matches the empty string/],
    [{ name: 'x', pattern: '' }, /empty/],
    [{ name: 'x', pattern: 'a'.repeat(1001) }, /longer than 1000/],
    [{ name: 'x', pattern: 'a', flags: 'g' }, /flags "g" are not allowed/],
    [{ name: 'x', pattern: 'a', flags: 'y' }, /not allowed/],
    [{ name: '9lives', pattern: 'a' }, /name must start with a letter/],
    [{ name: '', pattern: 'a' }, /name must start with a letter/],
    [{ name: 'email', pattern: 'a' }, /taken by a built-in type/],
  ])('refuses %j', (pattern, message) => {
    const check = checkCustomPattern(pattern);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.message).toMatch(message);
  });

  it('createMasker throws a PiiPatternError naming the pattern', () => {
    let error: unknown;
    try {
      createMasker({ custom: [{ name: 'account', pattern: '(\\d+)\\1' }] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PiiPatternError);
    expect((error as PiiPatternError).patternName).toBe('account');
    expect((error as Error).message).toMatch(/^Custom PII pattern "account": not a valid regular expression: backreferences/);
  });

  it('refuses two patterns with the same label', () => {
    expect(() =>
      createMasker({
        custom: [
          { name: 'a-b', pattern: 'x' },
          { name: 'A B', pattern: 'y' },
        ],
      }),
    ).toThrow(/A_B is used twice/);
  });

  it('maps the flags i, m, s and u as JavaScript does', () => {
    const mask = (pattern: string, flags: string | undefined, text: string) =>
      createMasker({ types: [], custom: [{ name: 'x', pattern, ...(flags === undefined ? {} : { flags }) }] }).maskText(text).text;
    expect(mask('emp-\\d+', undefined, 'EMP-1 emp-2')).toBe('EMP-1 [X_1]');
    expect(mask('emp-\\d+', 'i', 'EMP-1 emp-2')).toBe('[X_1] [X_2]');
    expect(mask('^id \\d+$', undefined, 'id 1\nid 2')).toBe('id 1\nid 2');
    expect(mask('^id \\d+$', 'm', 'id 1\nid 2')).toBe('[X_1]\n[X_2]');
    expect(mask('<s>.+</s>', undefined, '<s>a\nb</s>')).toBe('<s>a\nb</s>');
    expect(mask('<s>.+</s>', 's', '<s>a\nb</s>')).toBe('[X_1]');
    expect(mask('\\u{1F600}+', 'u', 'hi 😀😀!')).toBe('hi [X_1]!');
  });

  it("masks in linear time where JavaScript's engine backtracks for seconds (the issue's inputs)", () => {
    const masker = createMasker({
      types: [],
      custom: [
        { name: 'runs', pattern: '(a|aa)+$' },
        { name: 'hash', pattern: '(\\w|\\w\\w)+$' },
      ],
    });
    expect(masker.maskText(`${'a'.repeat(42)}!`).text).toBe(`${'a'.repeat(42)}!`);
    expect(masker.maskText('id b5f0c3a9e1d2f4a6b8c0d2e4f6a8b0c2d4e6f8a0!').text).toBe('id b5f0c3a9e1d2f4a6b8c0d2e4f6a8b0c2d4e6f8a0!');
    expect(masker.maskText('id b5f0c3a9e1d2f4a6b8c0d2e4f6a8b0c2d4e6f8a0').text).toBe('id [HASH_1]');
    expect(masker.maskText('then aaaa').text).toBe('then [RUNS_1]');
  });

  it('cuts off a masking that runs past its deadline, naming the pattern; the masker works afterwards', () => {
    // Linear but slow: each character keeps ~500 automaton states alive (~2.5 s per megabyte).
    const masker = createMasker({
      types: ['email'],
      custom: [
        { name: 'employee', pattern: 'EMP-\\d{6}' },
        { name: 'slow', pattern: 'a[ab]{500}[^ab]' },
      ],
      deadlineMs: 50,
    });
    let seed = 7;
    const ab = Array.from({ length: 300_000 }, () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0x100 ? 'a' : 'b')).join('');
    let error: unknown;
    try {
      masker.maskArguments({ note: `EMP-123456 ${ab}` });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PiiPatternError);
    expect((error as PiiPatternError).patternName).toBe('slow');
    expect((error as Error).message).toMatch(
      /^Custom PII pattern "slow": masking took longer than 0.05 s and was stopped \(the call is refused rather than sent unmasked\): simplify/,
    );
    expect(() => masker.maskResult({ content: [{ type: 'text', text: ab }] })).toThrow(PiiPatternError);
    expect(masker.maskArguments({ note: 'EMP-123456 wrote to bob@example.net' }).masked).toEqual({ note: '[EMPLOYEE_1] wrote to [EMAIL_1]' });
  });
});

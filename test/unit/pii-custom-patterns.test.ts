/** Custom PII patterns: accepted ones mask, refused ones say why (catastrophic patterns among them). */
import { describe, expect, it } from 'vitest';
import { checkCustomPattern, createMasker, findNestedQuantifier, PiiPatternError } from '../../electron/core/pii/index.js';

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
  ])('accepts %s (%s)', (pattern) => {
    expect(checkCustomPattern({ name: 'x', pattern })).toEqual({ ok: true, label: 'X' });
  });

  it.each([
    [{ name: 'x', pattern: '(a+)+$' }, /catastrophic backtracking/],
    [{ name: 'x', pattern: '(\\w+\\s?)*!' }, /repeated group \(\\w\+\\s\?\)\* contains a repeat/],
    [{ name: 'x', pattern: '((ab)*c)+' }, /catastrophic/],
    [{ name: 'x', pattern: '(?:\\d+,?){2,}' }, /catastrophic/],
    [{ name: 'x', pattern: '(a|b*){1,100}x' }, /catastrophic/],
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
      createMasker({ custom: [{ name: 'account', pattern: '(\\d+)+' }] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PiiPatternError);
    expect((error as PiiPatternError).patternName).toBe('account');
    expect((error as Error).message).toMatch(/^Custom PII pattern "account": the repeated group \(\\d\+\)\+/);
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

  it('findNestedQuantifier returns the offending group or null', () => {
    expect(findNestedQuantifier('x(a+)*y')).toBe('(a+)*');
    expect(findNestedQuantifier('(?<n>[a-z]+\\.)+com')).toBe('(?<n>[a-z]+\\.)+');
    expect(findNestedQuantifier('(a+)?b')).toBeNull();
    expect(findNestedQuantifier('[(a+)+]')).toBeNull();
  });
});

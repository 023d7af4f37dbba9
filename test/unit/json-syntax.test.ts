/**
 * The config's JSON faults are found and placed without quoting the text (a hand-typed secret could be
 * in it): findJsonFault agrees with JSON.parse on what is valid, and gives the line and column.
 */
import { describe, expect, it } from 'vitest';
import { findJsonFault } from '../../shared/json-syntax.js';
import { pick, seededRandom } from '../support/seeded-random.js';

const VALID = `{
\t"version": 1,
\t"servers": {
\t\t"gh": { "type": "stdio", "command": "npx", "args": ["-y", "x"], "env": { "GITHUB_TOKEN": "<secret>", "U": "\\u00e9\\n" } },
\t\t"web": { "type": "http", "url": "https://x/mcp?api_key=<secret>", "enabled": false, "timeoutMs": 1.5e3, "n": -0.25, "z": null }
\t},
\t"settings": { "spill": { "thresholdTokens": 10000 } }
}
`;

describe('findJsonFault', () => {
  it.each([
    ['a bare word where a value goes', '{\n  "a": ghp_R4nd0m123\n}', 2, 8, /a value is expected/],
    ['a missing comma', '{"a": "x" "b": 1}', 1, 11, /"," or "}" is expected/],
    ['a comma before the brace', '{"a": 1,\n}', 2, 1, /comma before "}"/],
    ['a comma before the bracket', '[1,]', 1, 4, /comma before "]"/],
    ['an unquoted name', '{a: 1}', 1, 2, /name in double quotes/],
    ['a missing colon', '{"a" 1}', 1, 6, /":" is expected/],
    ['an unclosed string', '{"a": "sk-live-xyz', 1, 19, /ends too early/],
    ['an unclosed object', '{"a": 1', 1, 8, /ends too early/],
    ['a bad escape', '{"a": "C:\\Users"}', 1, 10, /backslash/],
    ['a line break in a string', '{"a": "x\ny"}', 1, 9, /line break/],
    ['a number with a leading dot', '{"a": .5}', 1, 7, /a value is expected/],
    ['a number ending in a dot', '{"a": 1.}', 1, 7, /number/],
    ['a lone minus', '{"a": -}', 1, 7, /number/],
    ['text after the end', '{}\n{}', 2, 1, /more text after the end/],
    ['nothing at all', '   ', 1, 4, /ends too early/],
  ])('places %s', (_label, text, line, column, problem) => {
    expect(() => JSON.parse(text)).toThrow();
    const fault = findJsonFault(text);
    expect(fault).toMatchObject({ line, column });
    expect(fault!.problem).toMatch(problem);
  });

  it('finds no fault in valid JSON', () => {
    expect(findJsonFault(VALID)).toBeUndefined();
    for (const text of ['0', '-1.5E+3', '"x"', 'true', '[]', '{}', ' [ null , false ] ']) expect(findJsonFault(text)).toBeUndefined();
  });

  it('agrees with JSON.parse on thousands of damaged configs', () => {
    const next = seededRandom(15);
    const damage = ['', ',', '"', '}', ']', '{', '[', ':', '\\', '\n', 'x', '0', '.', '-', 'e', ' '];
    for (let i = 0; i < 5000; i++) {
      let text = VALID;
      for (let edits = 1 + Math.floor(next() * 3); edits > 0; edits--) {
        const at = Math.floor(next() * text.length);
        const cut = Math.floor(next() * 3);
        text = text.slice(0, at) + pick(next, damage) + text.slice(at + cut);
      }
      let valid = true;
      try {
        JSON.parse(text);
      } catch {
        valid = false;
      }
      expect({ text, fault: findJsonFault(text) !== undefined }).toEqual({ text, fault: !valid });
    }
  });
});

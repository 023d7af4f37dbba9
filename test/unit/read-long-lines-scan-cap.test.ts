/**
 * Review s21: grep of a long line found all its matches to count them, scanning the whole line where
 * test() had stopped at the first match: on a 20 MB minified JSON with 3 matches at its start grep went
 * from 7 ms to 916 ms, and on 50 MB it ran into the 2 s deadline and failed. Now, past a line's first
 * match, grep looks for more no further than COUNTED_SCAN_CHARS across its long lines, and says
 * "at least" for what it found.
 */
import { describe, expect, it } from 'vitest';
import { grepMatches } from '../../electron/core/spill/read-ops.js';
import { COUNTED_SCAN_CHARS } from '../../electron/core/spill/read-long-lines.js';
import { SpillDocument } from '../../electron/core/spill/spill-document.js';

const filler = (n: number): string => '{"k":"abcdefghij"},'.repeat(Math.ceil(n / 19)).slice(0, n);
const grep = (text: string, pattern: string, maxMatches?: number): string => {
  const doc = new SpillDocument(text);
  void doc.lines;
  return grepMatches(doc, { pattern, maxMatches }, {}).text;
};

describe('grep of a long line with matches near its start', () => {
  it('answers for a 50 MB line within the deadline, saying "at least" for the matches found', () => {
    const text = `[${'{"id":"needle"},'.repeat(3)}${filler(50_000_000)}{"id":"needle"}]`;
    const answer = grep(text, 'needle');
    const lines = answer.split('\n');
    expect(lines[0]).toBe('grep /needle/i: 1 matching line of 1:');
    expect(lines[1]).toMatch(
      /^1:\[line 1 is 50,000,0\d\d characters long and holds at least 3 matches, each shown below \(grep looked no further than character 1,000,008 of the line\) with the offset /,
    );
    expect(lines.slice(2).map((l) => /^1:\[offset (\d+)\]/.exec(l)?.[1])).toEqual(['8', '24', '40']);
  }, 60_000);

  it('looks no further than its allowance across the long lines of a grep', () => {
    // Each line 0.6 M characters, a match at its start and one at its end: the first line is counted whole,
    // the second only up to what is left of the allowance.
    const line = (i: number): string => `{"id":"needle${i}",${filler(600_000)},"end":"needle"}`;
    const answer = grep([line(0), line(1), line(2)].join('\n'), 'needle');
    const notes = answer.split('\n').filter((l) => l.includes('characters long and holds'));
    expect(COUNTED_SCAN_CHARS).toBeLessThan(1_200_000);
    expect(notes).toHaveLength(3);
    expect(notes[0]).toContain('holds 2 matches, each shown below');
    expect(notes[1]).toContain('holds at least 1 match, shown below (grep looked no further than character');
    expect(notes[2]).toContain('holds at least 1 match, shown below (grep looked no further than character 507 of the line)');
  });

  it('counts every match of a line within the allowance, and none of a line without', () => {
    const text = `${filler(3_000_000)}\n${filler(1_000)}needle${filler(2_000)}needle${filler(10)}`;
    const answer = grep(text, 'needle');
    expect(answer.split('\n')[0]).toBe('grep /needle/i: 1 matching line of 2:');
    expect(answer).toContain('[line 2 is 3,022 characters long and holds 2 matches, each shown below');
  });

  it('does not count a match the cut end of the scan may have made', () => {
    // The scan is cut right after the second "needle", which `\b` would take for a word's end there.
    const text = `needle ${'x'.repeat(COUNTED_SCAN_CHARS - 13)}needle${'y'.repeat(2_000_000)}`;
    const answer = grep(text, 'needle\\b');
    expect(answer).toContain('holds at least 1 match,');
    const anchored = grep(`needle$|^needle ${'x'.repeat(3_000_000)}`, 'needle$|^needle');
    expect(anchored).toContain('holds at least 1 match,');
  });
});

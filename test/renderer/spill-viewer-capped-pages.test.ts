/**
 * The viewer pages by the lines a read returned (audit s15): a page the output cap cut short of 100 lines
 * is shown as what it holds and Next goes on from its last line; notes around the lines are not shown.
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import SpillViewer from '../../renderer/src/views/SpillViewer.svelte';
import { SpillViewerState } from '../../renderer/src/lib/spill-viewer.svelte.js';
import { parsePage } from '../../renderer/src/lib/spill-pages.js';
import { FakeBackend } from './fake-backend.js';

const LINES = Array.from({ length: 2_000 }, (_, i) => `${i + 1} ts=2026-01-01 level=info`);
/** Lines a page holds before the (pretend) cap: long lines make fewer than the 100 asked for fit. */
const FIT = 26;

function setup() {
  const fake = new FakeBackend();
  const entry = fake.spill.add('h_capped', LINES.join('\n'));
  // The hub's answer to a slice of long lines: a view's note, the lines that fit, the cap's note.
  fake.spill.handlers['spill.read'] = (req) => {
    if (req.op !== 'slice') return { ok: false, code: 'invalid', message: 'slice only' };
    const start = req.start!;
    const last = Math.min(start + FIT - 1, LINES.length);
    const text =
      `[a note above the lines]\nLines ${start}-${last} of 2,000:\n${LINES.slice(start - 1, last).join('\n')}\n` +
      `[output capped at 8,000 tokens; ask for fewer lines: ${last - start + 1} of the 100 asked for are shown (whole lines); the rest: {"op":"slice","start":${last + 1},"end":${start + 99}}]`;
    return { ok: true, value: { text } };
  };
  render(SpillViewer, { viewer: new SpillViewerState(fake, entry), fallback: '' });
  return fake;
}

const original = () => screen.getByLabelText('Spilled original').textContent;

describe('a page the output cap cut short', () => {
  it('shows the lines it holds, and Next reads on from the line after them', async () => {
    const fake = setup();
    await screen.findByText('Lines 1–26 of 2,000');
    expect(original()).toBe(LINES.slice(0, 26).join('\n'));
    await fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    await screen.findByText('Lines 27–52 of 2,000');
    expect(original()!.startsWith('27 ts=')).toBe(true);
    expect(fake.callsOf('spill.read').at(-1)).toEqual({ handle: 'h_capped', op: 'slice', start: 27, end: 126 });
  });
});

describe('parsePage', () => {
  it('reads the header after a leading note and leaves the notes out of the page', () => {
    expect(parsePage('[Lines of the result as TOON: …]\nLines 5-6 of 9:\nfive\nsix\n[output capped …]', 5, 100, 9)).toEqual({
      from: 5,
      to: 6,
      total: 9,
      text: 'five\nsix',
    });
  });
});

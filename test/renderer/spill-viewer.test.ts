import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import SpillViewer from '../../renderer/src/views/SpillViewer.svelte';
import { SpillViewerState } from '../../renderer/src/lib/spill-viewer.svelte.js';
import { FakeBackend } from './fake-backend.js';

const LINES = 26_000;
const TEXT = Array.from({ length: LINES }, (_, i) => `line ${i + 1}: ${i % 5000 === 0 ? 'NEEDLE ' : ''}status=ok`).join('\n');

afterEach(() => vi.restoreAllMocks());

function setup() {
  const fake = new FakeBackend();
  const entry = fake.spill.add('h_long', TEXT);
  const viewer = new SpillViewerState(fake, entry);
  render(SpillViewer, { viewer, fallback: 'line 1: the preview' });
  return { fake, viewer };
}

const original = () => screen.getByLabelText('Spilled original');

describe('the spilled original viewer', () => {
  it('pages through the whole original, not just its preview', async () => {
    const { fake } = setup();
    await screen.findByText('Lines 1–100 of 26,000');
    expect(original().textContent).toMatch(/^line 1: NEEDLE status=ok\n/);
    expect(original().textContent).toMatch(/line 100: status=ok$/);
    expect((screen.getByRole('button', { name: 'Previous' }) as HTMLButtonElement).disabled).toBe(true);

    await fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    await screen.findByText('Lines 101–200 of 26,000');
    expect(original().textContent).toMatch(/^line 101: status=ok\n/);
    await fireEvent.click(screen.getByRole('button', { name: 'Previous' }));
    await screen.findByText('Lines 1–100 of 26,000');
    expect(fake.callsOf('spill.read')).toEqual([
      { handle: 'h_long', op: 'slice', start: 1, end: 100 },
      { handle: 'h_long', op: 'slice', start: 101, end: 200 },
      { handle: 'h_long', op: 'slice', start: 1, end: 100 },
    ]);
  });

  it("searches with the model's grep and jumps to the page of a match", async () => {
    const { fake } = setup();
    await screen.findByText('Lines 1–100 of 26,000');
    await fireEvent.input(screen.getByLabelText('Search pattern'), { target: { value: 'needle' } });
    await fireEvent.submit(screen.getByRole('search'));
    const results = await screen.findByRole('list', { name: 'Search results' });
    expect(screen.getByText(/6 matching lines of 26,000/)).toBeTruthy();
    expect(fake.callsOf('spill.read').at(-1)).toEqual({ handle: 'h_long', op: 'grep', pattern: 'needle', maxMatches: 200 });

    const hit = within(results).getByText('line 25001: NEEDLE status=ok').closest('button')!;
    await fireEvent.click(hit);
    await screen.findByText('Lines 25,001–25,100 of 26,000');
    expect(original().textContent).toMatch(/^line 25001: NEEDLE status=ok\n/);
    await fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    await screen.findByText('Lines 25,101–25,200 of 26,000');
  });

  it('says what is wrong with a bad pattern, next to the search', async () => {
    setup();
    await fireEvent.input(screen.getByLabelText('Search pattern'), { target: { value: '(unclosed' } });
    await fireEvent.submit(screen.getByRole('search'));
    expect((await screen.findByRole('alert')).textContent).toContain('Bad regular expression');
  });

  it('saves the whole original, read in chunks', async () => {
    const { fake, viewer } = setup();
    const blobs: Blob[] = [];
    const downloads: string[] = [];
    URL.createObjectURL = vi.fn((blob: Blob) => {
      blobs.push(blob);
      return 'blob:spill';
    });
    URL.revokeObjectURL = vi.fn();
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      downloads.push(this.download);
    });
    await fireEvent.click(screen.getByRole('button', { name: 'Save the whole original' }));
    await waitFor(() => expect(downloads).toEqual(['spillway-h_long.txt']));
    expect(blobs[0]!.size).toBe(new TextEncoder().encode(TEXT).length);
    expect(fake.callsOf('spill.read').filter((r) => (r as { op: string }).op === 'read').length).toBeGreaterThan(1);
    expect(await viewer.wholeText()).toBe(TEXT);
  });
});

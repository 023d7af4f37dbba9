/**
 * One size and one token count per result in the window (issue 14, item 4): Activity's row, the call's
 * details and its spilled original show the same figures, "≈" while the count is an estimate, the exact
 * count once `call.counted` lands; each figure says what it is on hover.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import ActivityView from '../../renderer/src/views/ActivityView.svelte';
import SavingsView from '../../renderer/src/views/SavingsView.svelte';
import SettingsView from '../../renderer/src/views/SettingsView.svelte';
import { ActivityLog } from '../../renderer/src/lib/activity.svelte.js';
import { PoliciesState } from '../../renderer/src/lib/policies.svelte.js';
import { SavingsState } from '../../renderer/src/lib/savings.svelte.js';
import { SettingsState } from '../../renderer/src/lib/settings.svelte.js';
import { SpillPreviewState } from '../../renderer/src/lib/spill-preview.svelte.js';
import { SpillStorageState } from '../../renderer/src/lib/spill-storage.svelte.js';
import { DISK_HELP, RESULT_SIZE_HELP, SCHEMA_SAVED_HELP, TOKENS_ESTIMATED_HELP, TOKENS_HELP } from '../../renderer/src/lib/figure-help.js';
import { FakeBackend } from './fake-backend.js';

let stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops) stop();
  stops = [];
});

const logRegion = () => within(screen.getByRole('region', { name: 'Live log' }));

describe('the figures of one result', () => {
  it('shows the size the model reads and the estimate marked ≈, then the exact count everywhere once counted', async () => {
    const fake = new FakeBackend();
    const log = new ActivityLog(fake, { schedule: (flush) => queueMicrotask(flush) });
    stops = [log.start()];
    render(ActivityView, { log, spill: new SpillPreviewState(fake), testHeight: 600 });
    // The kept copy holds the text and the structured copy: its JSON size is twice the text's.
    fake.spill.add('h_two', 'x'.repeat(2000), { lines: 1, bytes: 4_400_000, tokens: 636_740, tokensEstimated: true });
    await waitFor(() => expect(log.loading).toBe(false));
    fake.emit({
      type: 'call.finished',
      level: 'info',
      callId: 'c9',
      server: 'files',
      tool: 'read_file',
      exposedName: 'files__read_file',
      durationMs: 40,
      isError: false,
      action: 'spill',
      bytesUpstream: 4_400_000,
      bytesDelivered: 5_000,
      resultBytes: 2_200_000,
      resultBytesDelivered: 4_000,
      tokensUpstream: 636_740,
      tokensEstimated: true,
      tokensDelivered: 1_000,
      handle: 'h_two',
    });
    const row = await logRegion().findByText(/files__read_file spilled/);
    expect(row.textContent).toContain('≈636.7K → 1K tokens');
    expect(row.getAttribute('title')).toContain(TOKENS_ESTIMATED_HELP);
    await fireEvent.click(row);

    const details = screen.getByRole('region', { name: 'files__read_file' });
    const produced = within(details).getByTestId('produced');
    expect(produced.textContent).toMatch(/2\.1 MB\s*·\s*≈636,740 tokens/);
    expect(within(produced).getByText('2.1 MB').getAttribute('title')).toBe(RESULT_SIZE_HELP);
    expect(within(produced).getByText('≈636,740 tokens').getAttribute('title')).toBe(TOKENS_ESTIMATED_HELP);
    expect(within(details).getByTestId('delivered').textContent).toMatch(/3\.9 KB\s*·\s*1,000 tokens/);
    const original = await within(details).findByTestId('original-figures');
    expect(original.textContent).toMatch(/2\.1 MB\s*·\s*1 line\s*·\s*≈636,740 tokens/);
    // The hover texts are also the figures' descriptions for screen readers.
    expect(document.getElementById('help-size')?.textContent).toBe(RESULT_SIZE_HELP);

    // The ledger's exact count lands: every place shows it, unmarked.
    fake.emit({
      type: 'call.counted',
      level: 'debug',
      callId: 'c9',
      server: 'files',
      tool: 'read_file',
      exposedName: 'files__read_file',
      tokensUpstream: 648_742,
      tokensDelivered: 1_000,
      tokensEstimated: false,
    });
    await waitFor(() => expect(within(details).getByTestId('produced').textContent).toMatch(/2\.1 MB\s*·\s*648,742 tokens/));
    expect(within(within(details).getByTestId('produced')).getByText('648,742 tokens').getAttribute('title')).toBe(TOKENS_HELP);
    expect(within(details).getByTestId('original-figures').textContent).toMatch(/·\s*648,742 tokens/);
    expect(within(details).getByTestId('original-figures').textContent).not.toContain('≈');
    expect((await logRegion().findByText(/files__read_file spilled/)).textContent).toContain('648.7K → 1K tokens');
    // The counted event itself is a debug detail: not a row of its own at Info and up.
    expect(logRegion().queryByText(/counted/)).toBeNull();
  });

  it('Savings says where tool-list tokens were saved, and Storage that its figure is what the disk holds', async () => {
    const fake = new FakeBackend();
    fake.ledger.list(12_000, 5_600);
    const savings = new SavingsState(fake);
    stops = [savings.start()];
    const view = render(SavingsView, { savings });
    const schema = await screen.findByLabelText('Tokens saved on tool lists');
    expect(schema.textContent).toContain('the output schemas of tools whose results it may shorten');
    expect(schema.getAttribute('title')).toBe(SCHEMA_SAVED_HELP);
    expect(document.getElementById(schema.getAttribute('aria-describedby')!)?.textContent).toBe(SCHEMA_SAVED_HELP);
    view.unmount();

    fake.spill.add('h_two', 'x'.repeat(2000));
    const settings = new SettingsState(fake);
    const storage = new SpillStorageState(fake);
    const policies = new PoliciesState(fake);
    stops.push(settings.start(), storage.start(), policies.start());
    render(SettingsView, { settings, storage, policies });
    const disk = await screen.findByText(/on disk$/);
    expect(disk.getAttribute('title')).toBe(DISK_HELP);
    expect(DISK_HELP).toContain('both copies are kept');
  });
});

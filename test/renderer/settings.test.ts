import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import SettingsView from '../../renderer/src/views/SettingsView.svelte';
import { SettingsState } from '../../renderer/src/lib/settings.svelte.js';
import { SpillStorageState } from '../../renderer/src/lib/spill-storage.svelte.js';
import { PoliciesState } from '../../renderer/src/lib/policies.svelte.js';
import { FakeBackend } from './fake-backend.js';

let stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops) stop();
  stops = [];
});

async function setup(seed?: (fake: FakeBackend) => void, secretStore?: 'keychain' | 'encrypted-file', endpoint?: string) {
  const fake = new FakeBackend();
  seed?.(fake);
  const settings = new SettingsState(fake);
  const storage = new SpillStorageState(fake);
  const policies = new PoliciesState(fake);
  stops = [settings.start(), storage.start(), policies.start()];
  render(SettingsView, { settings, storage, policies, secretStore, endpoint });
  await screen.findByLabelText('Threshold');
  return { fake, settings, storage, policies };
}

describe('Settings', () => {
  it('saves the threshold when the slider is let go and shows the value in force', async () => {
    const { fake } = await setup();
    expect(screen.getByText(/In force: 10,000 tokens/)).toBeTruthy();

    const slider = screen.getByLabelText('Threshold') as HTMLInputElement;
    // Step 6 of 500, 1k, 2k, 5k, 10k, 20k, 50k...
    await fireEvent.input(slider, { target: { value: '6' } });
    expect(slider.getAttribute('aria-valuetext')).toBe('50,000 tokens');
    expect(fake.callsOf('settings.set')).toEqual([]);
    await fireEvent.change(slider, { target: { value: '6' } });

    await waitFor(() => expect(fake.settings.spill.thresholdTokens).toBe(50_000));
    expect(await screen.findByText(/In force: 50,000 tokens/)).toBeTruthy();
    // Only the threshold is sent: the hub keeps the other spill settings as they were.
    expect(fake.callsOf('settings.set')[0]).toEqual({ spill: { thresholdTokens: 50_000 } });
    expect(fake.settings.spill).toMatchObject({ previewTokens: 1000, action: 'spill' });
    expect(screen.getByRole('status').textContent).toBe('Saved');
  });

  it('shows the hub’s refusal next to the control it names and keeps the value in force', async () => {
    const { fake } = await setup();
    fake.failNext('settings.set', {
      code: 'invalid',
      field: 'spill.previewTokens',
      message: 'the preview must be smaller than the threshold',
    });
    const preview = screen.getByLabelText('Preview the model sees') as HTMLInputElement;
    await fireEvent.change(preview, { target: { value: '10' } });

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('the preview must be smaller than the threshold');
    expect(alert.id).toBe('settings-spill-previewTokens-error');
    expect(preview.getAttribute('aria-invalid')).toBe('true');
    expect(preview.getAttribute('aria-describedby')).toBe(alert.id);
    expect(screen.getByText(/In force: 1,000 tokens/)).toBeTruthy();
    expect(fake.settings.spill.previewTokens).toBe(1000);
  });

  it('shows a validation error for an out-of-range value at its control', async () => {
    const { fake } = await setup();
    const exact = screen.getByLabelText('Preview the model sees, exact tokens');
    await fireEvent.change(exact, { target: { value: '10' } });
    const alert = await screen.findByRole('alert');
    expect(alert.id).toBe('settings-spill-previewTokens-error');
    // A sentence naming the setting, not zod's words (issue 14, item 6).
    expect(alert.textContent).toBe('The preview must be at least 50 tokens.');
    expect(fake.settings.spill.previewTokens).toBe(1000);
  });

  it('warns when the preview is not below the threshold, while the slider moves and once saved', async () => {
    const { fake } = await setup();
    expect(screen.queryByText(/is not below the threshold/)).toBeNull();
    const exact = screen.getByLabelText('Preview the model sees, exact tokens');
    await fireEvent.change(exact, { target: { value: '20000' } });
    await waitFor(() => expect(fake.settings.spill.previewTokens).toBe(20_000));
    expect(
      await screen.findByText(
        'The preview (20,000 tokens) is not below the threshold (10,000 tokens), so a large result saves little or nothing: lower the preview or raise the threshold.',
      ),
    ).toBeTruthy();
    // Dragging the threshold above the preview clears it before anything is saved.
    const threshold = screen.getByLabelText('Threshold') as HTMLInputElement;
    await fireEvent.input(threshold, { target: { value: '6' } });
    await waitFor(() => expect(screen.queryByText(/is not below the threshold/)).toBeNull());
    // Spilling off: no threshold, nothing to warn about.
    await fireEvent.input(threshold, { target: { value: '4' } });
    expect(await screen.findByText(/is not below the threshold/)).toBeTruthy();
    await fireEvent.click(screen.getByLabelText('Act on large results'));
    await waitFor(() => expect(fake.settings.spill.thresholdTokens).toBeNull());
    await waitFor(() => expect(screen.queryByText(/is not below the threshold/)).toBeNull());
  });

  it('shows a port conflict at the port field', async () => {
    const { fake } = await setup();
    await fireEvent.change(screen.getByLabelText(/^Port/), { target: { value: '8080' } });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('port 8080 is in use');
    expect(screen.getByLabelText(/^Port/).getAttribute('aria-invalid')).toBe('true');
    expect(fake.settings.port).toBe(47821);
  });

  it('shows the disk spilled results use and clears them only after the user confirms', async () => {
    const { fake } = await setup((f) => {
      f.spill.add('h_1', 'x'.repeat(2048));
      f.spill.add('h_2', 'y'.repeat(1024));
    });
    expect(await screen.findByText(/3\.0 KB/)).toBeTruthy();
    expect(screen.getByText(/2 results/)).toBeTruthy();

    await fireEvent.click(screen.getByRole('button', { name: 'Clear spilled results' }));
    const dialog = screen.getByRole('dialog', { name: 'Clear spilled results?' });
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(fake.callsOf('spill.clear')).toEqual([]);

    await fireEvent.click(screen.getByRole('button', { name: 'Clear spilled results' }));
    await fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete 2 results' }));
    expect(await screen.findByText('Deleted 2 spilled results')).toBeTruthy();
    expect(fake.spill.entries.size).toBe(0);
    expect(await screen.findByText(/0 results/)).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Clear spilled results' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('says one result in the singular, and gives the focus to what was deleted once Clear is disabled', async () => {
    await setup((f) => f.spill.add('h_1', 'x'.repeat(2048)));
    const clear = await screen.findByRole('button', { name: 'Clear spilled results' });
    await waitFor(() => expect((clear as HTMLButtonElement).disabled).toBe(false));
    clear.focus();
    await fireEvent.click(clear);
    await fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete 1 result' }));
    const note = await screen.findByText('Deleted 1 spilled result');
    await waitFor(() => expect(document.activeElement).toBe(note));
    expect((clear as HTMLButtonElement).disabled).toBe(true);
  });

  it('says where keys and sign-in tokens are kept: the keychain, or the encrypted file when none answered', async () => {
    await setup(undefined, 'keychain');
    expect(screen.getByTestId('secret-store').textContent).toMatch(/kept in this computer's keychain/);
    document.body.innerHTML = '';
    for (const stop of stops) stop();
    await setup(undefined, 'encrypted-file');
    const line = (screen.getByTestId('secret-store').textContent ?? '').replace(/\s+/g, ' ');
    expect(line).toMatch(/encrypted file .*secrets\.enc.*no system keychain answered/);
    expect(line).not.toMatch(/keychain\.$/);
  });

  it('shows the port in use when it is not the saved one, and nothing when it is', async () => {
    const { settings } = await setup(undefined, undefined, 'http://127.0.0.1:35879/mcp');
    const saved = settings.saved!.port;
    expect(saved).not.toBe(35879);
    expect(screen.getByTestId('port-in-use').textContent).toMatch(/In use now: 35879\. A change applies the next time Spillway starts\./);
    document.body.innerHTML = '';
    for (const stop of stops) stop();
    await setup(undefined, undefined, `http://127.0.0.1:${saved}/mcp`);
    expect(screen.queryByTestId('port-in-use')).toBeNull();
  });

  it('turns dispatch-only on through policies.setDefaults', async () => {
    const { fake } = await setup();
    const box = (await screen.findByLabelText(/Dispatch only/)) as HTMLInputElement;
    expect(box.checked).toBe(false);
    await fireEvent.click(box);
    await waitFor(() => expect(fake.policies.defaults.dispatchOnly).toBe(true));
    expect(fake.callsOf('policies.setDefaults')).toEqual([{ dispatchOnly: true }]);
  });

  it('says exposure and disk use are not available yet when the hub does not offer them', async () => {
    await setup((f) => f.withhold('policies', 'pins', 'spill'));
    expect(await screen.findByText(/Exposure settings are not available yet/)).toBeTruthy();
    expect(screen.getByText(/Disk use of spilled results is not available yet/)).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

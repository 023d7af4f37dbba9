import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import SettingsView from '../../renderer/src/views/SettingsView.svelte';
import { SettingsState } from '../../renderer/src/lib/settings.svelte.js';
import { FakeBackend } from './fake-backend.js';

let stop: (() => void) | undefined;
afterEach(() => stop?.());

async function setup() {
  const fake = new FakeBackend();
  const settings = new SettingsState(fake);
  stop = settings.start();
  render(SettingsView, { settings });
  await screen.findByLabelText('Threshold');
  return { fake, settings };
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
    // The other spill settings were sent as they were, not reset.
    expect(fake.callsOf('settings.set')[0]).toMatchObject({ spill: { previewTokens: 1000, action: 'spill' } });
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
    expect(alert.textContent).toMatch(/spill\.previewTokens/);
    expect(fake.settings.spill.previewTokens).toBe(1000);
  });

  it('shows a port conflict at the port field', async () => {
    const { fake } = await setup();
    await fireEvent.change(screen.getByLabelText(/^Port/), { target: { value: '8080' } });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('port 8080 is in use');
    expect(screen.getByLabelText(/^Port/).getAttribute('aria-invalid')).toBe('true');
    expect(fake.settings.port).toBe(47821);
  });
});

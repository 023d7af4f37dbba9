import { afterEach, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
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

it('turning "Act on large results" off and on brings back the threshold the user set, not the default', async () => {
  const fake = new FakeBackend();
  const settings = new SettingsState(fake);
  stops = [settings.start(), new SpillStorageState(fake).start()];
  render(SettingsView, { settings, storage: new SpillStorageState(fake), policies: new PoliciesState(fake) });
  const slider = (await screen.findByLabelText('Threshold')) as HTMLInputElement;
  // Step 3 of 500, 1k, 2k, 5k, 10k...
  await fireEvent.change(slider, { target: { value: '3' } });
  await waitFor(() => expect(fake.settings.spill.thresholdTokens).toBe(5000));

  const act = screen.getByRole('checkbox', { name: 'Act on large results' }) as HTMLInputElement;
  await fireEvent.click(act);
  await waitFor(() => expect(fake.settings.spill.thresholdTokens).toBe(null));
  expect(await screen.findByText(/In force: off, every result passes/)).toBeTruthy();
  // While off, the slider shows what will come back.
  expect(slider.getAttribute('aria-valuetext')).toBe('5,000 tokens');

  await fireEvent.click(act);
  await waitFor(() => expect(fake.settings.spill.thresholdTokens).toBe(5000));
  expect(fake.callsOf('settings.set').at(-1)).toEqual({ spill: { thresholdTokens: 5000 } });
  expect(await screen.findByText(/In force: 5,000 tokens/)).toBeTruthy();
});

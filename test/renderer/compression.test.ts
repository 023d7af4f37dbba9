import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import SettingsView from '../../renderer/src/views/SettingsView.svelte';
import { SettingsState } from '../../renderer/src/lib/settings.svelte.js';
import { SpillStorageState } from '../../renderer/src/lib/spill-storage.svelte.js';
import { PoliciesState } from '../../renderer/src/lib/policies.svelte.js';
import { CompressionState } from '../../renderer/src/lib/compression.svelte.js';
import { FakeBackend } from './fake-backend.js';

let stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops) stop();
  stops = [];
});

async function setup(seed?: (fake: FakeBackend) => void) {
  const fake = new FakeBackend();
  seed?.(fake);
  const settings = new SettingsState(fake);
  const storage = new SpillStorageState(fake);
  const policies = new PoliciesState(fake);
  stops = [settings.start(), storage.start(), policies.start()];
  render(SettingsView, { settings, storage, policies, compression: new CompressionState(fake) });
  const section = within(await screen.findByRole('region', { name: 'Compression' }));
  return { fake, section };
}

describe('Settings → Compression', () => {
  it('saves base URL, model and key, then Test shows the latency', async () => {
    const { fake, section } = await setup();
    await fireEvent.input(section.getByLabelText('Base URL'), { target: { value: 'http://127.0.0.1:11434/v1' } });
    await fireEvent.input(section.getByLabelText('Model'), { target: { value: 'qwen2.5' } });
    await fireEvent.input(section.getByLabelText('API key'), { target: { value: 'sk-secret' } });
    await fireEvent.click(section.getByRole('button', { name: 'Test' }));
    await section.findByText('Works: qwen2.5 answered in 123 ms.');
    expect(fake.settings.compression).toMatchObject({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5', apiKey: 'sk-secret' });
    // The hub shows the stored key masked; the field keeps it that way.
    expect((section.getByLabelText('API key') as HTMLInputElement).value).toBe('***');
  });

  it('keeps the stored key when the masked value is sent back, and shows a failed test', async () => {
    const { fake, section } = await setup((f) => {
      f.settings = {
        ...f.settings,
        compression: { ...f.settings.compression, baseUrl: 'http://unreachable.test/v1', model: 'm', apiKey: 'sk-stored' },
      };
    });
    await waitFor(() => expect((section.getByLabelText('API key') as HTMLInputElement).value).toBe('***'));
    expect(section.getByText(/A key is stored/)).toBeTruthy();
    await fireEvent.input(section.getByLabelText('Model'), { target: { value: 'other-model' } });
    await fireEvent.click(section.getByRole('button', { name: 'Save' }));
    await section.findByText('Saved');
    expect(fake.settings.compression.apiKey).toBe('sk-stored');
    expect(fake.settings.compression.model).toBe('other-model');

    await fireEvent.click(section.getByRole('button', { name: 'Test' }));
    expect((await section.findByRole('alert')).textContent).toContain('ECONNREFUSED unreachable.test');
  });
});

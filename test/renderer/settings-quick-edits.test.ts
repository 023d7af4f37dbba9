/** Settings changed while an earlier change is still saving: neither the hub nor the form loses one. */
import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { renderSettings } from './render-views.js';

async function setup() {
  const fake = renderSettings(undefined, { compression: true });
  await screen.findByLabelText('Threshold');
  return fake;
}

describe('Quick settings changes', () => {
  it('keeps both of two spill settings changed while the first is saving', async () => {
    const fake = await setup();
    fake.hold('settings.set');
    await fireEvent.change(screen.getByLabelText('When a result is over the threshold'), { target: { value: 'truncate' } });
    await fireEvent.change(screen.getByLabelText('Keep spilled results for (hours)'), { target: { value: '48' } });

    fake.release();
    await waitFor(() => expect(fake.callsOf('settings.set')).toHaveLength(2));
    expect(fake.settings.spill).toMatchObject({ action: 'truncate', ttlHours: 48 });
    await waitFor(() => expect((screen.getByLabelText('When a result is over the threshold') as HTMLSelectElement).value).toBe('truncate'));
    expect((screen.getByLabelText('Keep spilled results for (hours)') as HTMLInputElement).value).toBe('48');
  });

  it('keeps a compression field typed in while the form is saving, to save next', async () => {
    const fake = await setup();
    const section = within(await screen.findByRole('region', { name: 'Compression' }));
    const model = section.getByLabelText('Model') as HTMLInputElement;
    await fireEvent.input(section.getByLabelText('Base URL'), { target: { value: 'http://127.0.0.1:11434/v1' } });
    await fireEvent.input(model, { target: { value: 'qwen2.5' } });
    fake.hold('settings.set');
    await fireEvent.click(section.getByRole('button', { name: 'Save' }));
    await fireEvent.input(model, { target: { value: 'qwen2.5-coder' } });

    fake.release();
    await waitFor(() => expect(fake.settings.compression.model).toBe('qwen2.5'));
    await waitFor(() => expect(section.getByRole('button', { name: 'Save' })).toHaveProperty('disabled', false));
    expect(model.value).toBe('qwen2.5-coder');
    expect((section.getByLabelText('Base URL') as HTMLInputElement).value).toBe('http://127.0.0.1:11434/v1');

    await fireEvent.click(section.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(fake.settings.compression.model).toBe('qwen2.5-coder'));
    expect(fake.settings.compression.baseUrl).toBe('http://127.0.0.1:11434/v1');
  });
});

/**
 * Update and Go back on a Browse entry's detail page, pressed from the keyboard: the pressed button is
 * disabled while it runs and gone after, so focus moves to the line that says what happened (and a screen
 * reader reads it) instead of falling to the page's body. After a refused Go back the page shows what is
 * true: no Go back when there is no earlier version to go back to any more.
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { renderBrowse } from './render-views.js';
import { AIRTABLE } from './fake-registry.js';
import type { FakeBackend } from './fake-backend.js';

const pkg = { name: 'airtable-mcp-server', version: '1.7.3', latest: '1.7.4' };

async function openAirtable(seed: (fake: FakeBackend) => void) {
  const { fake, browse } = await renderBrowse(seed);
  await browse.open(AIRTABLE.name);
  const detail = await screen.findByRole('article', { name: 'airtable-mcp-server' });
  return { fake, detail };
}

/** Presses `button` as a keyboard user does: focus on it, then Enter (which clicks it). */
async function press(button: HTMLElement) {
  button.focus();
  expect(document.activeElement).toBe(button);
  await fireEvent.click(button);
}

describe('Servers: Browse, focus after Update and Go back', () => {
  it('moves focus to the status line after an Update', async () => {
    const { detail } = await openAirtable((f) => f.registry.installed.set('airtable', { ...pkg, updateAvailable: true }));
    await press(await within(detail).findByRole('button', { name: 'Update to 1.7.4' }));
    const status = await within(detail).findByText('airtable was updated to airtable-mcp-server 1.7.4 from 1.7.3.');
    expect(status.getAttribute('role')).toBe('status');
    await waitFor(() => expect(document.activeElement).toBe(status));
    expect(within(detail).getByText(/running version 1\.7\.4/)).toBeTruthy();
    expect(await within(detail).findByRole('button', { name: 'Go back to 1.7.3' })).toBeTruthy();
  });

  it('moves focus to the status line after a Go back', async () => {
    const { detail } = await openAirtable((f) =>
      f.registry.installed.set('airtable', { ...pkg, version: '1.7.4', previous: '1.7.3', updateAvailable: false }),
    );
    await press(await within(detail).findByRole('button', { name: 'Go back to 1.7.3' }));
    const status = await within(detail).findByText(/went back to/);
    await waitFor(() => expect(document.activeElement).toBe(status));
    expect(within(detail).queryByRole('button', { name: /Go back/ })).toBeNull();
  });

  it('after a refused Go back, focuses the refusal and no longer offers Go back when it cannot', async () => {
    const { fake, detail } = await openAirtable((f) =>
      f.registry.installed.set('airtable', { ...pkg, version: '1.7.4', previous: '1.7.3', updateAvailable: false }),
    );
    const back = await within(detail).findByRole('button', { name: 'Go back to 1.7.3' });
    // Another window went back meanwhile: the hub keeps no earlier version now, and refuses.
    const { previous: _gone, ...now } = fake.registry.installed.get('airtable')!;
    fake.registry.installed.set('airtable', { ...now, version: '1.7.3', updateAvailable: true });
    await press(back);
    const alert = await within(detail).findByRole('alert');
    expect(alert.textContent).toContain('has no earlier version kept to go back to');
    await waitFor(() => expect(document.activeElement).toBe(alert));
    await waitFor(() => expect(within(detail).queryByRole('button', { name: /Go back/ })).toBeNull());
    expect(within(detail).getByRole('button', { name: 'Update to 1.7.4' })).toBeTruthy();
  });
});

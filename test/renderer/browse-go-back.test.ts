/**
 * Go back on a Browse entry's detail page: an added server whose last Update kept the version before
 * offers "Go back to <version>" beside the version it runs; while it runs the button says so, and the
 * outcome (or the hub's refusal) shows in the page. The fake answers as registry-go-back.ts does.
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, screen, within } from '@testing-library/svelte';
import { renderBrowse } from './render-views.js';
import { AIRTABLE } from './fake-registry.js';
import type { FakeBackend } from './fake-backend.js';

const updated = { name: 'airtable-mcp-server', version: '1.7.4', previous: '1.7.3' };

async function openAirtable(seed: (fake: FakeBackend) => void) {
  const { fake, browse } = await renderBrowse(seed);
  await browse.open(AIRTABLE.name);
  const detail = await screen.findByRole('article', { name: 'airtable-mcp-server' });
  return { fake, detail };
}

describe('Servers: Browse, Go back after an Update', () => {
  it('offers Go back beside the running version; it calls registry.goBack, says so, and the Update is offered again', async () => {
    const { fake, detail } = await openAirtable((f) => f.registry.installed.set('airtable', { ...updated, latest: '1.7.4', updateAvailable: false }));
    const back = await within(detail).findByRole('button', { name: 'Go back to 1.7.3' });
    expect(within(detail).getByText(/running version 1\.7\.4/)).toBeTruthy();
    // A real button, reachable with Tab.
    expect(back.tagName).toBe('BUTTON');
    expect((back as HTMLButtonElement).disabled).toBe(false);
    expect(back.tabIndex).toBe(0);

    fake.hold('registry.goBack');
    await fireEvent.click(back);
    const going = await within(detail).findByRole('button', { name: 'Going back to 1.7.3…' });
    expect((going as HTMLButtonElement).disabled).toBe(true);
    fake.release();

    expect((await within(detail).findByText(/went back to/)).textContent).toBe(
      'airtable went back to airtable-mcp-server 1.7.3 from 1.7.4. Its settings are kept.',
    );
    expect(
      within(detail)
        .getByText(/went back to/)
        .getAttribute('role'),
    ).toBe('status');
    expect(fake.callsOf('registry.goBack')).toEqual([{ id: 'airtable' }]);
    expect(await within(detail).findByRole('button', { name: 'Update to 1.7.4' })).toBeTruthy();
    expect(within(detail).getByText(/running version 1\.7\.3/)).toBeTruthy();
    expect(within(detail).queryByRole('button', { name: /Go back/ })).toBeNull();
  });

  it('is disabled while an Update runs, and shows the hub’s refusal in the page', async () => {
    const { fake, detail } = await openAirtable((f) => f.registry.installed.set('airtable', { ...updated, latest: '1.7.5', updateAvailable: true }));
    const back = await within(detail).findByRole('button', { name: 'Go back to 1.7.3' });
    fake.hold('registry.update');
    fake.failNext('registry.update', { code: 'unavailable', message: 'Could not reach the npm registry.' });
    await fireEvent.click(within(detail).getByRole('button', { name: 'Update to 1.7.5' }));
    await within(detail).findByRole('button', { name: 'Updating…' });
    expect((back as HTMLButtonElement).disabled).toBe(true);
    fake.release();
    expect((await within(detail).findByRole('alert')).textContent).toContain('Could not reach the npm registry.');
    expect((back as HTMLButtonElement).disabled).toBe(false);

    const refusal = '"airtable" is being updated: wait for that update to finish, then go back if you still want to.';
    fake.failNext('registry.goBack', { code: 'conflict', field: 'id', message: refusal });
    await fireEvent.click(back);
    expect((await within(detail).findByRole('alert')).textContent).toContain(refusal);
    expect(within(detail).getByRole('button', { name: 'Go back to 1.7.3' })).toBeTruthy();
    expect(within(detail).queryByText(/went back to/)).toBeNull();
  });
});

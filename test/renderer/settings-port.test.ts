/**
 * The Port field: emptying it (to type another port) must not save port 0, which would move Spillway to a
 * random port at the next start without a word. What cannot be a port is said at the field and not sent.
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/svelte';
import { renderSettings } from './render-views.js';

async function setup() {
  const fake = renderSettings((f) => (f.settings = { ...f.settings, port: 47821 }));
  const port = (await screen.findByLabelText('Port (0 picks a free one at every start)')) as HTMLInputElement;
  await waitFor(() => expect(port.value).toBe('47821'));
  return { fake, port };
}

const RULE = 'Enter a port from 1 to 65535, or 0 to pick a free one at every start. Nothing was saved: the port stays 47821.';

describe('the Port field', () => {
  it('an emptied field is not saved as port 0: it says what to enter, and the saved port stays', async () => {
    const { fake, port } = await setup();
    await fireEvent.change(port, { target: { value: '' } });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe(RULE);
    expect(alert.id).toBe(port.getAttribute('aria-describedby'));
    expect(port.getAttribute('aria-invalid')).toBe('true');
    expect(fake.callsOf('settings.set')).toEqual([]);
    expect(fake.settings.port).toBe(47821);

    // A port typed next is saved, and the note goes.
    await fireEvent.change(port, { target: { value: '47900' } });
    await waitFor(() => expect(fake.settings.port).toBe(47900));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(port.getAttribute('aria-invalid')).toBe('false');
    expect(screen.getByRole('status').textContent).toBe('Saved');
  });

  it('a number that is no port, or no whole number, is not sent either', async () => {
    const { fake, port } = await setup();
    for (const value of ['70000', '-1', '80.5']) {
      await fireEvent.change(port, { target: { value } });
      expect((await screen.findByRole('alert')).textContent).toBe(RULE);
    }
    expect(fake.callsOf('settings.set')).toEqual([]);
  });

  it('0 is a port setting of its own (a free port at every start) and is saved', async () => {
    const { fake, port } = await setup();
    await fireEvent.change(port, { target: { value: '0' } });
    await waitFor(() => expect(fake.settings.port).toBe(0));
    expect(fake.callsOf('settings.set')).toEqual([{ port: 0 }]);
  });
});

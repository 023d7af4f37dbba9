/** "Any other client": New key asks first, then revokes the old key and shows the new one with a plain note. */
import { afterEach, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import ClientsView from '../../renderer/src/views/ClientsView.svelte';
import { ClientsState } from '../../renderer/src/lib/clients.svelte.js';
import { FakeBackend } from './fake-backend.js';
import { FAKE_NEW_OTHER_KEY, FAKE_OTHER_KEY } from './fake-clients.js';

let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
  stop = undefined;
});

it('New key: Cancel changes nothing; Make new key shows the new key and says the old one no longer works', async () => {
  const fake = new FakeBackend();
  const clients = new ClientsState(fake);
  stop = clients.start();
  render(ClientsView, { clients, endpoint: 'http://127.0.0.1:47821/mcp' });
  await screen.findByText('No AI apps found on this computer');
  await fireEvent.click(screen.getByRole('button', { name: 'New key (the old one stops working)' }));
  const question = await screen.findByRole('dialog', { name: 'Make a new key' });
  expect(question.textContent).toContain('The old key stops working at once');
  await fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
  expect(screen.queryByRole('dialog')).toBeNull();
  expect(fake.clients.otherKey).toBe(FAKE_OTHER_KEY);

  await fireEvent.click(screen.getByRole('button', { name: 'New key (the old one stops working)' }));
  await fireEvent.click(await screen.findByRole('button', { name: 'Make new key' }));
  expect((await screen.findByLabelText('Address with key')).textContent).toBe(`http://127.0.0.1:47821/mcp?token=${FAKE_NEW_OTHER_KEY}`);
  expect(screen.getByRole('status').textContent).toContain('the old key no longer works');
  expect(document.body.textContent).not.toContain(FAKE_OTHER_KEY);
  expect(screen.queryByRole('dialog')).toBeNull();
});

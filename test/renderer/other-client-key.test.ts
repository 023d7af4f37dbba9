/**
 * "Any other client": the address the window hands out works, as it carries the key (`?token=`) or says
 * which header to add; the key is a secret, so it shows only when asked, and the status line copies it unseen.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import ClientsView from '../../renderer/src/views/ClientsView.svelte';
import StatusLine from '../../renderer/src/components/StatusLine.svelte';
import { ClientsState } from '../../renderer/src/lib/clients.svelte.js';
import { StatusState } from '../../renderer/src/lib/status.svelte.js';
import { FakeBackend } from './fake-backend.js';
import { FAKE_OTHER_KEY } from './fake-clients.js';

let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
  stop = undefined;
  vi.unstubAllGlobals();
});

it('Clients: shows the address with its key and the header only after "Show address with key", and hides them again', async () => {
  const fake = new FakeBackend();
  const clients = new ClientsState(fake);
  stop = clients.start();
  render(ClientsView, { clients, endpoint: 'http://127.0.0.1:47821/mcp' });
  await screen.findByText('No AI apps found on this computer');
  expect(document.body.textContent).not.toContain(FAKE_OTHER_KEY);
  await fireEvent.click(screen.getByRole('button', { name: 'Show address with key' }));
  expect((await screen.findByLabelText('Address with key')).textContent).toBe(`http://127.0.0.1:47821/mcp?token=${FAKE_OTHER_KEY}`);
  expect(screen.getByLabelText('Header with key').textContent).toBe(`Authorization: Bearer ${FAKE_OTHER_KEY}`);
  await fireEvent.click(screen.getByRole('button', { name: 'Hide the key' }));
  expect(document.body.textContent).not.toContain(FAKE_OTHER_KEY);
});

it('the status line copies the endpoint with its key, and never shows the key', async () => {
  const writeText = vi.fn(() => Promise.resolve());
  vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
  const fake = new FakeBackend();
  const status = new StatusState(fake);
  stop = status.start();
  render(StatusLine, { status });
  const footer = screen.getByRole('contentinfo', { name: 'Status' });
  await fireEvent.click(await within(footer).findByRole('button', { name: 'Copy with key' }));
  await waitFor(() => expect(writeText).toHaveBeenCalledWith(`http://127.0.0.1:47821/mcp?token=${FAKE_OTHER_KEY}`));
  await within(footer).findByRole('button', { name: 'Copied with key' });
  expect(footer.textContent).not.toContain(FAKE_OTHER_KEY);
});

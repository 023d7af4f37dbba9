/**
 * The Disconnect dialog of an app whose config file Spillway created and which holds nothing else: it says
 * the file is deleted (the service's `deletes`), instead of "everything else in the file stays".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import ClientsView from '../../renderer/src/views/ClientsView.svelte';
import { ClientsState } from '../../renderer/src/lib/clients.svelte.js';
import { FakeBackend } from './fake-backend.js';

let stop: (() => void) | undefined;
afterEach(() => stop?.());

const FILE = '/home/me/.config/cursor/mcp.json';
const NOTE = `Spillway created ${FILE} when it connected Cursor and nothing else is in it: Disconnect deletes the file. Restore brings it back.`;

async function disconnectDialog(deletes: boolean) {
  const fake = new FakeBackend();
  fake.clients.add('cursor', 'Cursor', { state: 'current' });
  const disconnect = fake.clients.handlers['clients.disconnect']!;
  fake.clients.handlers['clients.disconnect'] = (req, raw) => {
    const r = disconnect(req, raw);
    return r.ok && deletes ? { ok: true, value: { ...r.value, file: FILE, deleted: [FILE] } } : r;
  };
  const preview = fake.clients.handlers['clients.previewDisconnect']!;
  fake.clients.handlers['clients.previewDisconnect'] = (req, raw) => {
    const r = preview(req, raw);
    return r.ok && deletes ? { ok: true, value: { ...r.value, deletes: [FILE], notes: [NOTE] } } : r;
  };
  const clients = new ClientsState(fake);
  stop = clients.start();
  render(ClientsView, { clients });
  await waitFor(() => expect(clients.loaded).toBe(true));
  await fireEvent.click(within(screen.getByRole('listitem', { name: 'Cursor' })).getByRole('button', { name: 'Disconnect' }));
  return screen.findByRole('dialog', { name: 'Disconnect Cursor' });
}

describe('Clients: Disconnect of a file Spillway created', () => {
  it('says the file is deleted, not that everything else in it stays', async () => {
    const dialog = await disconnectDialog(true);
    expect(dialog.textContent).toContain(`Spillway will remove its entry from ${FILE} and delete the file:`);
    expect(dialog.textContent).not.toContain('everything else in the file stays');
    expect(within(dialog).getByText(NOTE)).toBeTruthy();
    expect(within(dialog).getByLabelText('Entry to remove').textContent).toContain('"spillway"');
  });

  it('says everything else stays when the file is kept', async () => {
    const dialog = await disconnectDialog(false);
    expect(dialog.textContent).toContain('everything else in the file stays');
    expect(dialog.textContent).not.toContain('delete the file');
  });

  it('after Disconnect, says the file was deleted and that Restore brings it back', async () => {
    const dialog = await disconnectDialog(true);
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Disconnect' }));
    const card = within(screen.getByRole('listitem', { name: 'Cursor' }));
    await waitFor(() => expect(card.getByTestId('client-state').textContent).toBe('Not connected'));
    const note = card.getByRole('status').textContent ?? '';
    expect(note).toContain(`Disconnected Cursor: deleted ${FILE} (Spillway had created it; Restore brings it back).`);
    expect(note).not.toContain('was updated');
  });
});

/**
 * What the clients service added to its answers reaches the window (audit s17, connecting apps): the
 * Disconnect preview's notes (Codex: the whole config.toml is written anew, its comments lost), and every
 * file a change wrote (Cline keeps its servers in two files), in the note after Disconnect and after Restore.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import ClientsView from '../../renderer/src/views/ClientsView.svelte';
import { ClientsState } from '../../renderer/src/lib/clients.svelte.js';
import { FakeBackend } from './fake-backend.js';

let stop: (() => void) | undefined;
afterEach(() => stop?.());

const REWRITE = 'Spillway has to write the whole file anew: comments in it will be lost.';
const EXTENSION = '/home/me/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json';
const CLI = '/home/me/.cline/data/settings/cline_mcp_settings.json';

async function setup(seed: (fake: FakeBackend) => void) {
  const fake = new FakeBackend();
  seed(fake);
  const clients = new ClientsState(fake);
  stop = clients.start();
  render(ClientsView, { clients });
  await waitFor(() => expect(clients.loaded).toBe(true));
  return fake;
}

const card = (name: string) => within(screen.getByRole('listitem', { name }));

describe('Clients: notes and every file changed', () => {
  it("shows the Disconnect preview's notes, as the Connect preview shows its own", async () => {
    await setup((fake) => {
      fake.clients.add('codex', 'Codex', { state: 'current' });
      const preview = fake.clients.handlers['clients.previewDisconnect']!;
      fake.clients.handlers['clients.previewDisconnect'] = (req, raw) => {
        const r = preview(req, raw);
        return r.ok ? { ok: true, value: { ...r.value, notes: [REWRITE] } } : r;
      };
    });
    await fireEvent.click(card('Codex').getByRole('button', { name: 'Disconnect' }));
    const dialog = await screen.findByRole('dialog', { name: 'Disconnect Codex' });
    expect(within(dialog).getByText(REWRITE).className).toContain('muted');
  });

  it('names both files of a two-file change after Disconnect and after Restore', async () => {
    await setup((fake) => {
      fake.clients.add('cline', 'Cline', { state: 'current' });
      const disconnect = fake.clients.handlers['clients.disconnect']!;
      fake.clients.handlers['clients.disconnect'] = (req, raw) => {
        const r = disconnect(req, raw);
        return r.ok ? { ok: true, value: { ...r.value, file: EXTENSION, files: [EXTENSION, CLI] } } : r;
      };
      const restore = fake.clients.handlers['clients.restore']!;
      fake.clients.handlers['clients.restore'] = (req, raw) => {
        const r = restore(req, raw);
        return r.ok ? { ok: true, value: { ...r.value, file: CLI, files: [CLI, EXTENSION] } } : r;
      };
    });
    await fireEvent.click(card('Cline').getByRole('button', { name: 'Disconnect' }));
    await fireEvent.click(within(await screen.findByRole('dialog', { name: 'Disconnect Cline' })).getByRole('button', { name: 'Disconnect' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await waitFor(() => expect(card('Cline').getByTestId('client-state').textContent).toBe('Not connected'));
    expect(card('Cline').getByRole('status').textContent).toContain(`Disconnected: ${EXTENSION} and ${CLI} were updated.`);

    await fireEvent.click(card('Cline').getByRole('button', { name: 'Restore backup' }));
    await fireEvent.click(
      within(await screen.findByRole('dialog', { name: "Restore Cline's settings" })).getByRole('button', { name: 'Restore backup' }),
    );
    await waitFor(() => expect(card('Cline').getByTestId('client-state').textContent).toBe('Connected'));
    expect(card('Cline').getByRole('status').textContent).toContain(`Restored ${CLI} and ${EXTENSION} from their backups.`);
  });
});

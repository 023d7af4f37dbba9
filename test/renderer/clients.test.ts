import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import ClientsView from '../../renderer/src/views/ClientsView.svelte';
import { ClientsState } from '../../renderer/src/lib/clients.svelte.js';
import { FakeBackend } from './fake-backend.js';
import { ConfigParseError } from '../../electron/core/clients/config-errors.js';

let stop: (() => void) | undefined;
afterEach(() => stop?.());

async function setup(seed?: (fake: FakeBackend) => void) {
  const fake = new FakeBackend();
  fake.clients.add('claude-desktop', 'Claude Desktop', { servers: { memory: 'npx -y @modelcontextprotocol/server-memory' } });
  fake.clients.add('cursor', 'Cursor', { state: 'current', lastSeen: new Date().toISOString() });
  fake.clients.add('zed', 'Zed', { installed: false });
  seed?.(fake);
  const clients = new ClientsState(fake);
  stop = clients.start();
  render(ClientsView, { clients, endpoint: 'http://127.0.0.1:47821/mcp' });
  await waitFor(() => expect(clients.loaded).toBe(true));
  return { fake, clients };
}

const card = (name: string) => within(screen.getByRole('listitem', { name }));

describe('Clients', () => {
  it('lists the apps using Spillway now, one row per app, and never says none is connected beside Connected (issue 14, item 8)', async () => {
    const { fake, clients } = await setup();
    const now = Date.now();
    const at = (ms: number) => new Date(now - ms).toISOString();
    expect(screen.getByText(/No app is using Spillway right now/).textContent).toContain(
      'The apps connected above start using it when you open them.',
    );
    expect(screen.queryByText(/No client is connected/)).toBeNull();

    fake.clients.sessions = [
      ...[1, 2, 3].map((i) => ({ id: `c${i}`, transport: 'http' as const, client: 'cursor', openedAt: at(60_000 * i), lastActivity: at(1000 * i) })),
      { id: 'd1', transport: 'bridge' as const, client: 'claude-ai', clientVersion: '0.1.0', openedAt: at(30_000), lastActivity: at(10_000) },
    ];
    await clients.refreshSessions();
    const table = await screen.findByRole('table', { name: 'Apps using Spillway now' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0].textContent).toContain('cursor · 3 sessions');
    expect(rows[0].textContent).toContain('Web address');
    expect(rows[1].textContent).toContain('claude-ai 0.1.0');
    expect(rows[1].textContent).toContain('Connector program');
    expect(rows[1].textContent).not.toMatch(/bridge|sessions/);
  });

  it('shows each client with its state', async () => {
    await setup();
    expect(card('Claude Desktop').getByTestId('client-state').textContent).toBe('Not connected');
    expect(card('Cursor').getByTestId('client-state').textContent).toBe('Connected');
    expect(card('Cursor').getByText(/last seen today/)).toBeTruthy();
    expect(card('Zed').getByTestId('client-state').textContent).toBe('Not installed');
    expect(card('Zed').queryByRole('button', { name: 'Connect' })).toBeNull();
  });

  it('shows an app whose "spillway" server is its user\'s own as taken: what to do, and neither Connect nor Disconnect', async () => {
    await setup((fake) => fake.clients.add('windsurf', 'Windsurf', { state: 'taken' }));
    const windsurf = card('Windsurf');
    expect(windsurf.getByTestId('client-state').textContent).toBe('Has its own “spillway”');
    expect(windsurf.getByText(/Windsurf has its own server named “spillway”, which Spillway leaves alone/).textContent).toContain(
      "rename or remove it in Windsurf's settings, then press Check again",
    );
    expect(windsurf.queryByRole('button', { name: /Connect|Update|Disconnect/ })).toBeNull();
  });

  it('connects only after showing the exact entry, and can be cancelled', async () => {
    const { fake } = await setup();
    await fireEvent.click(card('Claude Desktop').getByRole('button', { name: 'Connect' }));
    let dialog = await screen.findByRole('dialog', { name: 'Connect Claude Desktop' });
    expect(within(dialog).getByLabelText('Entry to write').textContent).toContain('"args": ["bridge"]');
    expect(within(dialog).getByText('/home/me/.config/claude-desktop/mcp.json')).toBeTruthy();
    await fireEvent.keyDown(dialog, { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(fake.callsOf('clients.connect')).toEqual([]);

    await fireEvent.click(card('Claude Desktop').getByRole('button', { name: 'Connect' }));
    dialog = await screen.findByRole('dialog', { name: 'Connect Claude Desktop' });
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Connect' }));
    await waitFor(() => expect(card('Claude Desktop').getByTestId('client-state').textContent).toBe('Connected'));
    expect(card('Claude Desktop').getByRole('status').textContent).toContain('Quit and reopen Claude Desktop.');
    expect(fake.callsOf('clients.connect')).toEqual([{ id: 'claude-desktop' }]);

    await fireEvent.click(card('Claude Desktop').getByRole('button', { name: 'Disconnect' }));
    dialog = await screen.findByRole('dialog', { name: 'Disconnect Claude Desktop' });
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Disconnect' }));
    await waitFor(() => expect(card('Claude Desktop').getByTestId('client-state').textContent).toBe('Not connected'));
  });

  it('Disconnect shows the entry as the file has it now, even when it is stale or the port is 0, and asks for no Connect preview', async () => {
    const written = `"spillway": {\n  "url": "http://127.0.0.1:4810/mcp",\n  "headers": { "Authorization": "Bearer ••••" }\n}`;
    const { fake } = await setup((f) => {
      f.clients.add('vscode', 'VS Code', { state: 'stale', written });
      // A port that changes at every start: the Connect preview refuses an HTTP entry.
      f.settings = { ...f.settings, port: 0 };
    });
    await fireEvent.click(card('VS Code').getByRole('button', { name: 'Disconnect' }));
    const dialog = await screen.findByRole('dialog', { name: 'Disconnect VS Code' });
    expect(within(dialog).getByLabelText('Entry to remove').textContent).toContain('http://127.0.0.1:4810/mcp');
    expect(fake.callsOf('clients.preview')).toEqual([]);
    expect(fake.callsOf('clients.previewDisconnect')).toEqual([{ id: 'vscode' }]);
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Disconnect' }));
    await waitFor(() => expect(card('VS Code').getByTestId('client-state').textContent).toBe('Not connected'));
    expect(fake.callsOf('clients.disconnect')).toEqual([{ id: 'vscode' }]);
  });

  it('imports a client’s servers, replacing them in its file when asked, and restores the backup', async () => {
    const { fake } = await setup();
    await fireEvent.click(card('Claude Desktop').getByRole('button', { name: 'Import servers' }));
    const dialog = await screen.findByRole('dialog', { name: 'Import servers from Claude Desktop' });
    expect((within(dialog).getByRole('checkbox', { name: /memory/ }) as HTMLInputElement).checked).toBe(true);
    await fireEvent.click(within(dialog).getByRole('checkbox', { name: /Also replace them/ }));
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Import 1' }));

    await waitFor(() => expect(fake.servers.has('memory')).toBe(true));
    expect(fake.callsOf('clients.import')).toEqual([{ id: 'claude-desktop', names: ['memory'], replace: true }]);
    await waitFor(() => expect(card('Claude Desktop').getByTestId('client-state').textContent).toBe('Connected'));
    expect(card('Claude Desktop').getByRole('status').textContent).toContain('Imported 1 server');

    await fireEvent.click(card('Claude Desktop').getByRole('button', { name: 'Restore backup' }));
    await fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Restore backup' }));
    await waitFor(() => expect(card('Claude Desktop').getByTestId('client-state').textContent).toBe('Not connected'));
    expect(card('Claude Desktop').getByText('1 other server in its settings')).toBeTruthy();
  });

  it('lists a server that uses the app’s own variables without offering it, and says why; Restore says what it undoes', async () => {
    const { fake } = await setup((f) => {
      f.clients.add('vscode', 'VS Code', { servers: { files: 'npx -y server-filesystem ${workspaceFolder}', fetch: 'uvx mcp-server-fetch' } });
      // Spillway changed its file before (the hub has a backup to undo): Restore backup is offered.
      const c = f.clients.byId.get('vscode')!;
      c.info = { ...c.info, restorable: true };
    });
    await fireEvent.click(card('VS Code').getByRole('button', { name: 'Import servers' }));
    const dialog = await screen.findByRole('dialog', { name: 'Import servers from VS Code' });
    const files = within(dialog).getByRole('checkbox', { name: /^files/ }) as HTMLInputElement;
    expect([files.checked, files.disabled]).toEqual([false, true]);
    expect(
      within(dialog).getByText('Not for Spillway: it uses ${workspaceFolder}, which only VS Code can fill in; it stays in VS Code.'),
    ).toBeTruthy();
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Import 1' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(card('VS Code').getByRole('status').textContent).toContain('Imported 1 server');
    expect(fake.callsOf('clients.import')).toEqual([{ id: 'vscode', names: ['fetch'], replace: false }]);

    await fireEvent.click(card('VS Code').getByRole('button', { name: 'Restore backup' }));
    const restore = await screen.findByRole('dialog', { name: "Restore VS Code's settings" });
    expect(restore.textContent).toContain('goes back to how it was before your last change through Spillway');
  });

  it('stays modal when there is nothing to confirm: focus inside, Tab kept in, Escape closes, wherever the focus is', async () => {
    // Every server of the client runs behind Spillway already: "Import 0" is disabled.
    await setup((f) => f.seedServer('memory', { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } as never));
    const opener = card('Claude Desktop').getByRole('button', { name: 'Import servers' });
    opener.focus();
    await fireEvent.click(opener);
    const dialog = await screen.findByRole('dialog', { name: 'Import servers from Claude Desktop' });
    expect((within(dialog).getByRole('button', { name: 'Import 0' }) as HTMLButtonElement).disabled).toBe(true);
    expect(document.activeElement).toBe(dialog);

    // Tab from the dialog (or from the page, once a focused control is disabled) goes to its first control, never behind it.
    await fireEvent.keyDown(document.activeElement ?? document.body, { key: 'Tab' });
    expect(dialog.contains(document.activeElement)).toBe(true);
    const cancel = within(dialog).getByRole('button', { name: 'Cancel' });
    cancel.focus();
    await fireEvent.keyDown(cancel, { key: 'Tab' });
    expect(dialog.contains(document.activeElement)).toBe(true);
    document.body.focus();
    await fireEvent.keyDown(document.body, { key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(cancel);

    document.body.focus();
    await fireEvent.keyDown(document.body, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(document.activeElement).toBe(opener);
  });

  it('shows a failed change on the client it was about', async () => {
    await setup((f) => {
      f.clients.add('vscode', 'VS Code', { state: 'error' });
      // The hub offers Restore for Cursor, but the fake has no backup: the restore fails.
      const c = f.clients.byId.get('cursor')!;
      c.info = { ...c.info, restorable: true };
    });
    expect(card('Claude Desktop').queryByRole('button', { name: 'Restore backup' })).toBeNull();
    await fireEvent.click(card('Cursor').getByRole('button', { name: 'Restore backup' }));
    await fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Restore backup' }));
    const alert = await card('Cursor').findByRole('alert');
    expect(alert.textContent).toContain('there is no backup');
    expect(card('Claude Desktop').queryByRole('alert')).toBeNull();
    expect(card('VS Code').getByTestId('client-state').textContent).toBe('Cannot read its settings');
  });

  it("says where a client's file is not valid JSON, that it was left untouched, and what to do — as the hub words it", async () => {
    const file = '/home/me/.config/Claude/claude_desktop_config.json';
    // The hub's own message (clients/config-errors.ts): the window shows it as it is.
    const error = new ConfigParseError(file, 'a character that does not belong there, so it is not valid JSON', 1, 19).message;
    await setup((f) => {
      f.clients.add('vscode', 'VS Code', { state: 'error' });
      const c = f.clients.byId.get('vscode')!;
      c.info = { ...c.info, configPath: file, error, restorable: true };
    });
    const note = card('VS Code').getByText(/There is a mistake in/);
    expect(note.textContent).toBe(error);
    expect(error).toMatch(
      /at line 1, column 19: .*Spillway left the file untouched\. Fix it in a text editor, then try again\. If Spillway changed this file before, Restore backup/,
    );
    expect(card('VS Code').getByRole('button', { name: 'Restore backup' })).toBeTruthy();
  });

  it('after Restore, says how the app picks up its file again, and that changes made to it since were kept', async () => {
    const { fake } = await setup();
    await fireEvent.click(card('Claude Desktop').getByRole('button', { name: 'Connect' }));
    await fireEvent.click(within(await screen.findByRole('dialog', { name: /Connect Claude Desktop/ })).getByRole('button', { name: 'Connect' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    fake.clients.byId.get('claude-desktop')!.editedSince = true;

    await fireEvent.click(card('Claude Desktop').getByRole('button', { name: 'Restore backup' }));
    const dialog = await screen.findByRole('dialog', { name: "Restore Claude Desktop's settings" });
    const said = dialog.textContent!.replace(/\s+/g, ' ');
    expect(said).toContain("If Claude Desktop or you changed the file since, only Spillway's change is undone and the rest is kept.");
    expect(said).toContain('Restart Claude Desktop afterwards.');
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Restore backup' }));
    await waitFor(() => expect(card('Claude Desktop').getByTestId('client-state').textContent).toBe('Not connected'));
    const note = card('Claude Desktop').getByRole('status').textContent;
    expect(note).toContain('The file had changed since (the app or you edited it): those changes were kept.');
    expect(note).toContain('Quit and reopen Claude Desktop.');
  });

  it('says connecting clients is not available yet when the hub does not offer it', async () => {
    const { clients } = await setup((f) => f.withhold('clients'));
    await waitFor(() => expect(clients.available).toBe(false));
    expect(screen.getByText('Connecting clients is not available yet')).toBeTruthy();
    expect(screen.getByText('http://127.0.0.1:47821/mcp')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

describe('Set up again', () => {
  it('asks for setup and says so when no app can be set up', async () => {
    const fake = new FakeBackend();
    fake.clients.add('zed', 'Zed', { installed: false });
    const clients = new ClientsState(fake);
    stop = clients.start();
    const asked: number[] = [];
    render(ClientsView, { clients, onsetup: async () => (asked.push(1), false) });
    await waitFor(() => expect(clients.loaded).toBe(true));
    await fireEvent.click(screen.getByRole('button', { name: 'Set up again' }));
    expect(asked).toEqual([1]);
    expect((await screen.findByRole('status')).textContent).toBe('No AI app that Spillway can set up was found on this computer.');
  });
});

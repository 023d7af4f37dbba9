/**
 * Two windows editing one server (audit s16): the Edit form sends back the revision it was opened with;
 * when the server was changed elsewhere since, Save is refused, the form says so and keeps what was
 * typed until Reload loads the server's current settings. The on/off switch sends only the switch.
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import type { ServerConfig } from '../../shared/config.js';
import { renderServers as setup } from './render-views.js';

const WORK: ServerConfig = { type: 'http', url: 'https://work.example.com/mcp', headers: { 'X-Team': 'alpha' }, enabled: true, prefix: true };
const form = () => within(screen.getByRole('form', { name: 'Edit work' }));
const card = () => within(screen.getByRole('article', { name: 'work' }));

describe('Servers: a server changed elsewhere while its Edit form is open', () => {
  it('refuses Save with a plain message, keeps the typed values, and Reload shows the current settings', async () => {
    const { fake } = await setup((f) => f.seedServer('work', WORK));
    await fireEvent.click(card().getByRole('button', { name: 'Edit' }));
    const opened = fake.servers.get('work')!.revision;

    // Another window saves a new address meanwhile (its list reads the change; this form stays open).
    fake.seedServer('work', { ...WORK, url: 'https://work.example.com/v2/mcp' });
    fake.emit({ type: 'config.changed', level: 'info', what: 'servers.work' });

    await fireEvent.input(form().getByLabelText('URL'), { target: { value: 'https://mine.example.com/mcp' } });
    await fireEvent.click(form().getByRole('button', { name: 'Save changes' }));
    const alert = await form().findByRole('alert');
    expect(alert.textContent).toContain('changed after you opened this form');
    expect(alert.textContent).toContain('What you typed stays in the form until you reload');
    expect(fake.callsOf('upstreams.update')).toEqual([expect.objectContaining({ id: 'work', revision: opened })]);
    expect((form().getByLabelText('URL') as HTMLInputElement).value).toBe('https://mine.example.com/mcp');
    expect(fake.servers.get('work')?.config).toMatchObject({ url: 'https://work.example.com/v2/mcp' });

    await fireEvent.click(form().getByRole('button', { name: 'Reload current settings' }));
    await waitFor(() => expect((form().getByLabelText('URL') as HTMLInputElement).value).toBe('https://work.example.com/v2/mcp'));
    expect(form().queryByRole('alert')).toBeNull();
    expect(form().getByRole('status').textContent).toContain("The form now shows this server's current settings");

    // Made again on the current settings, the change is saved with their revision.
    await fireEvent.click(form().getByLabelText('Prefix tool names with the server name'));
    await fireEvent.click(form().getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(screen.queryByRole('form')).toBeNull());
    expect(fake.servers.get('work')?.config).toMatchObject({ url: 'https://work.example.com/v2/mcp', prefix: false });
  });

  it('says so when the server was removed elsewhere before Reload', async () => {
    const { fake } = await setup((f) => f.seedServer('work', WORK));
    await fireEvent.click(card().getByRole('button', { name: 'Edit' }));
    fake.seedServer('work', { ...WORK, label: 'Renamed elsewhere' });
    await fireEvent.click(form().getByRole('button', { name: 'Save changes' }));
    await form().findByRole('button', { name: 'Reload current settings' });
    fake.servers.delete('work');
    await fireEvent.click(form().getByRole('button', { name: 'Reload current settings' }));
    expect(await form().findByText(/This server was removed elsewhere\. Press Cancel to close the form/)).toBeTruthy();
  });

  it('keeps what was typed when Reload cannot read the servers, and says why', async () => {
    const { fake } = await setup((f) => f.seedServer('work', WORK));
    await fireEvent.click(card().getByRole('button', { name: 'Edit' }));
    fake.seedServer('work', { ...WORK, url: 'https://work.example.com/v2/mcp' });
    await fireEvent.input(form().getByLabelText('URL'), { target: { value: 'https://mine.example.com/mcp' } });
    await fireEvent.click(form().getByRole('button', { name: 'Save changes' }));
    await form().findByRole('button', { name: 'Reload current settings' });
    fake.failNext('upstreams.list', { code: 'unavailable', message: 'Spillway is busy: try again in a moment.' });
    await fireEvent.click(form().getByRole('button', { name: 'Reload current settings' }));
    expect(await form().findByText('Spillway is busy: try again in a moment.')).toBeTruthy();
    expect((form().getByLabelText('URL') as HTMLInputElement).value).toBe('https://mine.example.com/mcp');
    expect(form().getByRole('button', { name: 'Reload current settings' })).toBeTruthy();
  });
});

describe('Servers: the on/off switch', () => {
  it('sends only the switch, so a change saved elsewhere after the list was read stays', async () => {
    const { fake } = await setup((f) => f.seedServer('work', WORK));
    // Changed elsewhere; this window's list still holds the old copy (no event).
    fake.seedServer('work', { ...WORK, url: 'https://work.example.com/v2/mcp' });
    await fireEvent.click(card().getByRole('button', { name: 'Disable' }));
    expect(await card().findByText('Disabled')).toBeTruthy();
    expect(fake.callsOf('upstreams.setEnabled')).toEqual([{ id: 'work', enabled: false }]);
    expect(fake.callsOf('upstreams.update')).toEqual([]);
    expect(fake.servers.get('work')?.config).toMatchObject({ url: 'https://work.example.com/v2/mcp', enabled: false });
  });

  it("used while the server's Edit form is open, is taken by the form: Save is not refused and keeps the switch", async () => {
    const { fake } = await setup((f) => f.seedServer('work', WORK));
    await fireEvent.click(card().getByRole('button', { name: 'Edit' }));
    await fireEvent.input(form().getByLabelText('URL'), { target: { value: 'https://mine.example.com/mcp' } });
    await fireEvent.click(card().getByRole('button', { name: 'Disable' }));
    expect(await card().findByText('Disabled')).toBeTruthy();
    await waitFor(() => expect((form().getByLabelText('Enabled') as HTMLInputElement).checked).toBe(false));
    await fireEvent.click(form().getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(screen.queryByRole('form')).toBeNull());
    expect(fake.servers.get('work')?.config).toMatchObject({ url: 'https://mine.example.com/mcp', enabled: false });
  });

  it('leaves the form to its Reload when the server was also changed elsewhere', async () => {
    const { fake } = await setup((f) => f.seedServer('work', WORK));
    await fireEvent.click(card().getByRole('button', { name: 'Edit' }));
    // Another window's change, not yet in this window's list; the switch then reads it with its own.
    fake.seedServer('work', { ...WORK, url: 'https://work.example.com/v2/mcp' });
    await fireEvent.click(card().getByRole('button', { name: 'Disable' }));
    expect(await card().findByText('Disabled')).toBeTruthy();
    await fireEvent.click(form().getByRole('button', { name: 'Save changes' }));
    expect(await form().findByRole('button', { name: 'Reload current settings' })).toBeTruthy();
    expect(fake.servers.get('work')?.config).toMatchObject({ url: 'https://work.example.com/v2/mcp', enabled: false });
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import SettingsView from '../../renderer/src/views/SettingsView.svelte';
import { SettingsState } from '../../renderer/src/lib/settings.svelte.js';
import { SpillStorageState } from '../../renderer/src/lib/spill-storage.svelte.js';
import ToolsView from '../../renderer/src/views/ToolsView.svelte';
import { PoliciesState } from '../../renderer/src/lib/policies.svelte.js';
import { ServersState } from '../../renderer/src/lib/servers.svelte.js';
import { ToolsState } from '../../renderer/src/lib/tools.svelte.js';
import { FakeBackend } from './fake-backend.js';

let stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops) stop();
  stops = [];
});

describe('the encoding select (issue 18)', () => {
  it('Settings: "Tables as TOON" shows the global setting and saves a change', async () => {
    const fake = new FakeBackend();
    const settings = new SettingsState(fake);
    const storage = new SpillStorageState(fake);
    const policies = new PoliciesState(fake);
    stops = [settings.start(), storage.start(), policies.start()];
    render(SettingsView, { settings, storage, policies });
    const select = (await screen.findByLabelText('Tables as TOON: fewer tokens for lists of records')) as HTMLSelectElement;
    expect(select.value).toBe('auto');
    await fireEvent.change(select, { target: { value: 'json' } });
    await waitFor(() => expect(fake.callsOf('policies.setDefaults')).toEqual([{ encoding: 'json' }]));
  });

  it("Tool policy: the select sets the tool's encoding, with the value in force and where it comes from", async () => {
    const fake = new FakeBackend();
    fake.seedServer('files', { type: 'stdio', command: 'files', args: [], enabled: true, prefix: true } as never);
    const servers = new ServersState(fake);
    const tools = new ToolsState(fake);
    const policies = new PoliciesState(fake);
    stops = [servers.start(), policies.start()];
    render(ToolsView, { servers, tools, policies });
    await fireEvent.click(await screen.findByRole('button', { name: 'Edit policy of read_file' }));
    const editor = screen.getByRole('group', { name: 'Policy for read_file' });
    expect(await within(editor).findByText(/In force: tables where they save at least 15%/)).toBeTruthy();
    const select = within(editor).getByLabelText('Tables as TOON: fewer tokens for lists of records') as HTMLSelectElement;
    expect(select.value).toBe('');
    await fireEvent.change(select, { target: { value: 'toon' } });
    await waitFor(() => expect(fake.policies.policies.tools.files?.read_file).toEqual({ encoding: 'toon' }));
    expect(await within(editor).findByText(/In force: tables always/)).toBeTruthy();
  });
});

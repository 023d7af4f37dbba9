/**
 * Session 12 audit of the add-server form: "Add all" added the same servers again, a failed one could
 * not be fixed, stand-in keys looked filled in, and a good paste after an error hid "Add all".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import ServersView from '../../renderer/src/views/ServersView.svelte';
import { ServersState } from '../../renderer/src/lib/servers.svelte.js';
import { ServerDraft } from '../../renderer/src/lib/server-draft.svelte.js';
import { SnippetBatch } from '../../renderer/src/lib/snippet-batch.svelte.js';
import { FakeBackend } from './fake-backend.js';

let stop: (() => void) | undefined;
afterEach(() => stop?.());

async function setup() {
  const fake = new FakeBackend();
  const servers = new ServersState(fake);
  stop = servers.start();
  render(ServersView, { servers });
  await waitFor(() => expect(servers.loaded).toBe(true));
  await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
  return { fake, servers };
}

const form = () => within(screen.getByRole('form', { name: 'Add a server' }));
const value = (label: string) => (form().getByLabelText(label) as HTMLInputElement).value;

async function paste(text: string) {
  await fireEvent.input(form().getByLabelText(/JSON with/), { target: { value: text } });
  await fireEvent.click(form().getByRole('button', { name: 'Fill the form' }));
}

/** Claude Desktop servers as the auditor pasted them: the third has a variable with no name. */
const THREE = JSON.stringify({
  mcpServers: {
    mem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
    everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
    broken: { command: 'npx', args: ['-y', 'broken-mcp'], env: { '': 'x' } },
  },
});

describe('Add all', () => {
  it('adds each server once: pressing it again retries only the ones that failed', async () => {
    const { fake } = await setup();
    await paste(THREE);
    // The hub refuses the first add once (as a busy hub may); the third fails in the form.
    fake.failNext('upstreams.add', { code: 'internal', message: 'The hub could not save the config: try again.' });
    await fireEvent.click(form().getByRole('button', { name: 'Add all 3' }));
    await waitFor(() => expect(form().getByText('Added everything.')).toBeTruthy());
    expect([...fake.servers.keys()]).toEqual(['everything']);

    await fireEvent.click(form().getByRole('button', { name: 'Add all 2' }));
    await waitFor(() => expect(form().getByText('Added mem.')).toBeTruthy());
    expect([...fake.servers.keys()].sort()).toEqual(['everything', 'mem']);
    // Nothing is left to add twice.
    expect(form().queryByRole('button', { name: /^Add all/ })).toBeNull();
  });

  it('opens the one that failed in the form, says what to fix, and adds it once fixed', async () => {
    const { fake } = await setup();
    await paste(THREE);
    await fireEvent.click(form().getByRole('button', { name: 'Add all 3' }));
    await waitFor(() => expect(value('Name')).toBe('broken'));
    expect(form().getByText(/“broken” was not added: it is in the form below\. Fix what is marked there, then press Add server\./)).toBeTruthy();
    expect(form().getByText(/Every environment variable needs a name/)).toBeTruthy();
    expect(form().getByRole('group', { name: 'Environment variables' }).getAttribute('aria-describedby')).toContain('server-env-error');

    await fireEvent.input(form().getByLabelText('Variable 1'), { target: { value: 'MODE' } });
    await fireEvent.click(form().getByRole('button', { name: 'Add server' }));
    await waitFor(() => expect(screen.queryByRole('form')).toBeNull());
    expect([...fake.servers.keys()].sort()).toEqual(['broken', 'everything', 'mem']);
    expect(fake.servers.get('broken')?.config).toMatchObject({ env: { MODE: 'x' } });
  });

  it('offers to open a failed server the form does not show', async () => {
    const { fake } = await setup();
    await paste(THREE);
    fake.failNext('upstreams.add', { code: 'internal', message: 'The hub could not save the config: try again.' });
    await fireEvent.click(form().getByRole('button', { name: 'Add all 3' }));
    expect(await form().findByText(/“broken” was not added: Every environment variable needs a name/)).toBeTruthy();
    expect(value('Name')).toBe('mem');
    await fireEvent.click(form().getByRole('button', { name: 'Open broken in the form' }));
    expect(value('Name')).toBe('broken');
    expect(form().getByRole('group', { name: 'Environment variables' }).classList.contains('invalid')).toBe(true);
    expect(form().getByText(/Every environment variable needs a name: type its name/)).toBeTruthy();
  });

  it('does not add twice when pressed again while it is adding', async () => {
    const fake = new FakeBackend();
    const servers = new ServersState(fake);
    const draft = new ServerDraft();
    const batch = new SnippetBatch(draft, servers);
    batch.paste(THREE);
    const [first, second] = await Promise.all([batch.addAll(), batch.addAll()]);
    expect([first, second]).toEqual([false, false]);
    expect(fake.callsOf('upstreams.add')).toHaveLength(2);
    expect([...fake.servers.keys()].sort()).toEqual(['everything', 'mem']);
  });

  it('moves on to the next pasted server after the form’s own Add', async () => {
    const { fake } = await setup();
    await paste('{"mcpServers":{"one":{"command":"node","args":["one.js"]},"two":{"command":"node","args":["two.js"]}}}');
    await fireEvent.click(form().getByRole('button', { name: 'Add server' }));
    await waitFor(() => expect(value('Name')).toBe('two'));
    expect(form().getByText('Added one.')).toBeTruthy();
    await fireEvent.click(form().getByRole('button', { name: 'Add server' }));
    await waitFor(() => expect(screen.queryByRole('form')).toBeNull());
    expect([...fake.servers.keys()].sort()).toEqual(['one', 'two']);
  });
});

describe('stand-in values in a pasted snippet', () => {
  const BRAVE =
    '{"mcpServers":{"brave-search":{"command":"npx","args":["-y","@brave/brave-search-mcp-server"],"env":{"BRAVE_API_KEY":"YOUR_API_KEY_HERE"}}}}';

  it('leaves the field empty, says so next to it, and refuses to add until the real value is typed', async () => {
    const { fake } = await setup();
    await paste(BRAVE);
    const key = form().getByLabelText('Value of BRAVE_API_KEY') as HTMLInputElement;
    expect(key.value).toBe('');
    const notes = document.getElementById('server-env-placeholders')!;
    expect(notes.textContent).toMatch(/The snippet had a placeholder for BRAVE_API_KEY \(YOUR_API_KEY_HERE\), not a real value: type the real value/);
    const group = form().getByRole('group', { name: 'Environment variables' });
    expect(group.getAttribute('aria-describedby')).toContain('server-env-placeholders');

    await fireEvent.click(form().getByRole('button', { name: 'Add server' }));
    expect(form().getByRole('alert').textContent).toMatch(/placeholder \(YOUR_API_KEY_HERE\) for the variable BRAVE_API_KEY, not a real value/);
    expect(group.classList.contains('invalid')).toBe(true);
    expect(fake.callsOf('upstreams.add')).toEqual([]);

    await fireEvent.input(key, { target: { value: 'BSA-real-key' } });
    expect(document.getElementById('server-env-placeholders')!.textContent).toBe('');
    await fireEvent.click(form().getByRole('button', { name: 'Add server' }));
    await waitFor(() => expect(screen.queryByRole('form')).toBeNull());
    expect(fake.servers.get('brave-search')?.config).toMatchObject({ env: { BRAVE_API_KEY: 'BSA-real-key' } });
  });
});

describe('the paste section', () => {
  it('stays open with "Add all" after an error was followed by a good paste', async () => {
    await setup();
    const details = form()
      .getByText(/^Paste a snippet/)
      .closest('details')!;
    await paste('{"mcpServers": {"a": {"command": "npx" "args": []}}}');
    expect(details.open).toBe(true);
    await paste(THREE);
    expect(form().getByRole('button', { name: 'Add all 3' })).toBeTruthy();
    expect(details.open).toBe(true);
  });
});

/**
 * Where the keyboard focus goes in Servers when something opens or goes away (WCAG 2.4.3, audit s14,
 * window, items 2 and 3): the form opens with the focus in its first field, Escape closes it like Cancel,
 * and closing gives the focus back to the button that opened it; Undo of a removal puts it on the card
 * put back, Dismiss on the heading. Each of these left it on the page body. Also: a name past the label's
 * limit is told next to Name, not at the bottom of the form.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import ServersView from '../../renderer/src/views/ServersView.svelte';
import { ServersState } from '../../renderer/src/lib/servers.svelte.js';
import { FakeBackend } from './fake-backend.js';

let stop: (() => void) | undefined;
afterEach(() => stop?.());

async function setup() {
  const fake = new FakeBackend();
  fake.seedServer('files', { type: 'stdio', command: 'node', args: [], env: {}, enabled: true, prefix: true });
  fake.seedServer('weather', { type: 'http', url: 'https://weather.example.com/mcp', headers: {}, enabled: true, prefix: true });
  const servers = new ServersState(fake);
  stop = servers.start();
  render(ServersView, { servers });
  await waitFor(() => expect(servers.loaded).toBe(true));
  return { fake };
}

const focused = () => document.activeElement;
const addButton = () => screen.getByRole('button', { name: 'Add server' });
const card = (name: string) => within(screen.getByRole('article', { name }));

describe('Servers: keyboard focus', () => {
  it('opens Add server with the focus on Name; Escape closes the form and gives the focus back to Add server', async () => {
    await setup();
    await fireEvent.click(addButton());
    const form = within(screen.getByRole('form', { name: 'Add a server' }));
    await waitFor(() => expect(focused()).toBe(form.getByLabelText('Name')));
    await fireEvent.input(form.getByLabelText('Name'), { target: { value: 'notes' } });
    await fireEvent.keyDown(form.getByLabelText('Command'), { key: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('form')).toBeNull());
    await waitFor(() => expect(focused()).toBe(addButton()));
  });

  it('gives the focus back to Add server after Cancel and after adding', async () => {
    await setup();
    await fireEvent.click(addButton());
    await fireEvent.click(within(screen.getByRole('form')).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(focused()).toBe(addButton()));

    await fireEvent.click(addButton());
    const form = within(screen.getByRole('form'));
    await fireEvent.input(form.getByLabelText('Name'), { target: { value: 'notes' } });
    await fireEvent.input(form.getByLabelText('Command'), { target: { value: 'node' } });
    await fireEvent.click(form.getByRole('button', { name: 'Add server' }));
    await waitFor(() => expect(screen.queryByRole('form')).toBeNull());
    await waitFor(() => expect(focused()).toBe(addButton()));
  });

  it('opens Edit with the focus on the command (or the address), and gives it back to that card’s Edit', async () => {
    await setup();
    await fireEvent.click(card('files').getByRole('button', { name: 'Edit' }));
    await waitFor(() => expect(focused()).toBe(within(screen.getByRole('form')).getByLabelText('Command')));
    await fireEvent.keyDown(focused()!, { key: 'Escape' });
    await waitFor(() => expect(focused()).toBe(card('files').getByRole('button', { name: 'Edit' })));

    await fireEvent.click(card('weather').getByRole('button', { name: 'Edit' }));
    await waitFor(() => expect(focused()).toBe(within(screen.getByRole('form')).getByLabelText('URL')));
    await fireEvent.click(within(screen.getByRole('form')).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(focused()).toBe(card('weather').getByRole('button', { name: 'Edit' })));
  });

  it('puts the focus on the card put back by Undo, and on the heading after Dismiss', async () => {
    await setup();
    const remove = async (id: string) => {
      await fireEvent.click(card(id).getByRole('button', { name: 'Remove…' }));
      await fireEvent.click(card(id).getByRole('button', { name: `Remove ${id}` }));
      await waitFor(() => expect(screen.queryByRole('article', { name: id })).toBeNull());
    };
    await remove('files');
    await fireEvent.click(screen.getByRole('button', { name: 'Undo' }));
    await waitFor(() => expect(focused()).toBe(card('files').getByRole('heading', { name: 'files' })));

    await remove('weather');
    await fireEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    await waitFor(() => expect(focused()).toBe(screen.getByRole('heading', { level: 1, name: 'Servers' })));
  });
});

describe('Servers: a name that is too long', () => {
  it('is told next to Name', async () => {
    await setup();
    await fireEvent.click(addButton());
    const form = within(screen.getByRole('form'));
    await fireEvent.input(form.getByLabelText('Name'), { target: { value: 'My knowledge base '.repeat(12) } });
    await fireEvent.input(form.getByLabelText('Command'), { target: { value: 'node' } });
    await fireEvent.click(form.getByRole('button', { name: 'Add server' }));
    const name = form.getByLabelText('Name');
    await waitFor(() => expect(name.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById('server-name-error')?.textContent).toMatch(/too long \(at most 200/);
    expect(form.getAllByRole('alert')).toHaveLength(1);
  });
});

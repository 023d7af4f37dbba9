/** Wording a first-time user reads: counts that agree in number, errors last in a sentence, empty states that say what to do. */
import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../renderer/src/App.svelte';
import ClientsView from '../../renderer/src/views/ClientsView.svelte';
import SavingsView from '../../renderer/src/views/SavingsView.svelte';
import ServersView from '../../renderer/src/views/ServersView.svelte';
import { ClientsState } from '../../renderer/src/lib/clients.svelte.js';
import { SavingsState } from '../../renderer/src/lib/savings.svelte.js';
import { ServersState } from '../../renderer/src/lib/servers.svelte.js';
import { summarize } from '../../renderer/src/lib/event-summary.js';
import type { HubEvent } from '../../shared/events.js';
import { FakeBackend } from './fake-backend.js';

let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
  stop = undefined;
  localStorage.clear();
});

const failedCall: HubEvent = {
  type: 'call.finished',
  seq: 1,
  level: 'warn',
  time: new Date().toISOString(),
  callId: 'c1',
  server: 'files',
  tool: 'crash',
  exposedName: 'files__crash',
  durationMs: 8,
  isError: true,
  action: 'error',
  bytesUpstream: 0,
  bytesDelivered: 103,
  error: 'Server "files" closed the connection during "crash"; Spillway is reconnecting.',
};

describe('plain wording', () => {
  it('puts a failed call’s error last, and names resources and prompts only when there are some', () => {
    expect(summarize(failedCall)).toBe('files__crash failed in 8 ms: Server "files" closed the connection during "crash"; Spillway is reconnecting.');
    const time = new Date().toISOString();
    expect(summarize({ type: 'catalog.changed', seq: 2, level: 'info', time, tools: 17, resources: 0, prompts: 0 })).toBe('Tools changed: 17 tools');
    expect(summarize({ type: 'catalog.changed', seq: 2, level: 'info', time, tools: 1, resources: 1, prompts: 0 })).toBe(
      'Tools changed: 1 tool, 1 resource',
    );
  });

  it('tells a dispatch answer and a tool list by what they are, not as a call that produced nothing', () => {
    const time = new Date().toISOString();
    const counted = { type: 'call.counted', seq: 3, level: 'info', time, callId: 'c', tokensEstimated: false } as const;
    const answer = { ...counted, server: 'spillway', tool: 'dispatch', exposedName: 'spillway__dispatch', tokensUpstream: 0, tokensDelivered: 412 };
    expect(summarize({ ...answer, dispatchAnswer: true })).toBe('spillway__dispatch: answered with 412 tokens');
    const list = { ...counted, server: 'spillway', tool: 'tools/list', exposedName: 'tools/list', tokensUpstream: 6425, tokensDelivered: 1165 };
    expect(summarize({ ...list, listed: true })).toBe('Tool list sent: 1,165 tokens of tool descriptions (your servers offer 6,425)');
  });

  it('says "No servers yet" and "1 server ready" in the status line, never "0 of 0 servers" or "1 of 1 servers"', async () => {
    const fake = new FakeBackend();
    render(App, { backend: fake, flags: { getItem: () => '1', setItem: () => {} } });
    const footer = screen.getByRole('contentinfo', { name: 'Status' });
    await within(footer).findByText('No servers yet');
    expect(within(footer).queryByText(/0 of 0/)).toBeNull();
  });

  it('counts one ready server in the singular', async () => {
    const fake = new FakeBackend();
    fake.seedServer('files', { type: 'stdio', command: 'files-server', args: [], env: {}, enabled: true, prefix: true });
    render(App, { backend: fake, flags: { getItem: () => '1', setItem: () => {} } });
    const footer = screen.getByRole('contentinfo', { name: 'Status' });
    await within(footer).findByText('1 server ready');
  });

  it('Clients: with only apps that are not installed, says what to do instead of pointing at an empty list; Check again answers', async () => {
    const fake = new FakeBackend();
    fake.clients.add('zed', 'Zed', { installed: false });
    const clients = new ClientsState(fake);
    stop = clients.start();
    render(ClientsView, { clients, endpoint: 'http://127.0.0.1:47821/mcp' });
    await screen.findByText('No AI apps found on this computer');
    expect(screen.getByText(/No app is using Spillway right now/).textContent).not.toContain('Connect an app above');

    await fireEvent.click(screen.getByRole('button', { name: 'Check again' }));
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Checked: 0 apps found on this computer.'));
  });

  it('Savings: tool lists that cost more than they saved say "added 513", not "kept -513"', async () => {
    const fake = new FakeBackend();
    fake.ledger.list(1000, 1513);
    const savings = new SavingsState(fake);
    stop = savings.start();
    render(SavingsView, { savings });
    const schema = await screen.findByLabelText('Tokens saved on tool lists');
    await waitFor(() => expect(schema.textContent).toMatch(/Spillway's own tools added\s*513\s*tokens/));
    expect(schema.textContent).not.toContain('-513');
  });

  it('Servers: a new server named like one already there says it is added beside it, and the cards tell the two apart', async () => {
    const fake = new FakeBackend();
    fake.seedServer('my-files', { type: 'stdio', command: 'files', args: [], env: {}, enabled: true, prefix: true, label: 'My files' });
    const servers = new ServersState(fake);
    stop = servers.start();
    render(ServersView, { servers });
    const card = within(await screen.findByRole('article', { name: 'My files' }));
    expect(card.getByText('my-files')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    const form = within(screen.getByRole('form', { name: 'Add a server' }));
    await fireEvent.input(form.getByLabelText('Name'), { target: { value: 'my files' } });
    expect(form.getByRole('status').textContent).toContain('You already have a server named “My files”');
  });
});

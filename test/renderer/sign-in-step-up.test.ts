/**
 * A tool that needs more access than the sign-in gave (a step-up, audit s19 oauth 2): only that call
 * fails, the server stays signed in and ready, and the hub puts a notice on its sign-in info. The card
 * says it beside "Signed in" and offers Sign in (which asks for the scopes already granted plus the new
 * one); the other tools keep working, so Sign out stays offered too.
 */
import { afterEach, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import ServersView from '../../renderer/src/views/ServersView.svelte';
import { ServersState } from '../../renderer/src/lib/servers.svelte.js';
import { FakeBackend } from './fake-backend.js';

const NOTICE = 'A tool needs more access (scope admin): press Sign in to allow it. The other tools work meanwhile.';

let stop: (() => void) | undefined;
afterEach(() => stop?.());

it('shows a step-up notice on a signed-in card, with Sign in and Sign out', async () => {
  const fake = new FakeBackend();
  const remote = fake.seedServer('remote', {
    type: 'http',
    url: 'https://mcp.example.com/mcp',
    headers: {},
    enabled: true,
    prefix: true,
    label: 'Remote notes',
  });
  fake.servers.set('remote', { ...remote, status: 'ready', tools: 2, auth: { state: 'signed-in', notice: NOTICE } });
  fake.seedServer('plain', { type: 'http', url: 'https://other.example.com/mcp', headers: {}, enabled: true, prefix: true });
  fake.servers.set('plain', { ...fake.servers.get('plain')!, status: 'ready', tools: 1, auth: { state: 'signed-in' } });
  const servers = new ServersState(fake, () => undefined);
  stop = servers.start();
  render(ServersView, { servers });
  await waitFor(() => expect(servers.loaded).toBe(true));

  const card = within(screen.getByRole('article', { name: 'Remote notes' }));
  expect(card.getByText('Signed in to mcp.example.com')).toBeTruthy();
  expect(card.getByRole('status').textContent).toBe(NOTICE);
  expect(card.getByRole('button', { name: 'Sign out…' })).toBeTruthy();
  await fireEvent.click(card.getByRole('button', { name: 'Sign in' }));
  await waitFor(() => expect(fake.calls.some((c) => c.method === 'upstreams.signIn' && (c.req as { id: string }).id === 'remote')).toBe(true));

  // A signed-in server without a notice offers no Sign in.
  const plain = within(screen.getByRole('article', { name: 'plain' }));
  expect(plain.queryByRole('button', { name: 'Sign in' })).toBeNull();
  expect(plain.queryByText(NOTICE)).toBeNull();
});

it('shows why a server that needs more access to connect needs a sign-in', async () => {
  const fake = new FakeBackend();
  const notice = 'The server needs more access (scope tools) to connect: press Sign in to allow it.';
  const remote = fake.seedServer('remote', {
    type: 'http',
    url: 'https://mcp.example.com/mcp',
    headers: {},
    enabled: true,
    prefix: true,
    label: 'Remote notes',
  });
  fake.servers.set('remote', { ...remote, status: 'needs-sign-in', tools: 0, auth: { state: 'needs-sign-in', notice } });
  const servers = new ServersState(fake, () => undefined);
  stop = servers.start();
  render(ServersView, { servers });
  await waitFor(() => expect(servers.loaded).toBe(true));
  const card = within(screen.getByRole('article', { name: 'Remote notes' }));
  expect(card.getByText('Remote notes needs you to sign in to mcp.example.com.')).toBeTruthy();
  expect(card.getByText(notice)).toBeTruthy();
  expect(card.getByRole('button', { name: 'Sign in' })).toBeTruthy();
});

/**
 * Sign-in on a server's card (issue 15), against the in-memory contract: the sentence and Sign in for a
 * server that needs one, the page opened (by the window in the browser UI, not again when the desktop app
 * opened it), the wait with Cancel, the card turning to Signed in by itself from hub events, Sign out
 * with its warning, and a sign-in address that is not a web address refused unopened.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import ServersView from '../../renderer/src/views/ServersView.svelte';
import { ServersState } from '../../renderer/src/lib/servers.svelte.js';
import type { ApiFailure, Backend } from '../../renderer/src/lib/api.js';
import type { ApiResult, MethodName, Req, Res, UpstreamInfo } from '../../shared/api.js';
import { FakeBackend } from './fake-backend.js';

const URL_OF_SERVER = 'https://mcp.example.com/mcp';
const AUTHORIZE = 'https://auth.example.com/authorize?client_id=c1&state=s1';

let stop: (() => void) | undefined;
afterEach(() => stop?.());

/** The fake hub plus the two sign-in methods, answering as the real hub does. */
type SignInAnswer = { authorizationUrl: string; openedInBrowser?: boolean } | ApiFailure;

function signInBackend(fake: FakeBackend, answer: SignInAnswer): Backend {
  return {
    subscribe: (fn) => fake.subscribe(fn),
    watchConnection: (fn) => fake.watchConnection(fn),
    call<M extends MethodName>(method: M, req: Req<M>): Promise<ApiResult<Res<M>>> {
      if (method !== 'upstreams.signIn' && method !== 'upstreams.signOut') return fake.call(method, req);
      fake.calls.push({ method, req });
      const { id } = req as { id: string };
      const server = fake.servers.get(id);
      if (!server) return Promise.resolve({ ok: false, code: 'not_found', message: `no server ${id}` });
      if (method === 'upstreams.signOut') {
        fake.servers.set(id, { ...server, status: 'needs-sign-in', auth: { state: 'needs-sign-in' } });
        fake.emit({ type: 'upstream.status', level: 'info', server: id, status: 'needs-sign-in' });
      }
      if (method === 'upstreams.signIn' && 'ok' in answer) return Promise.resolve(answer);
      const value = method === 'upstreams.signIn' ? answer : { revoked: true };
      return Promise.resolve({ ok: true, value } as ApiResult<Res<M>>);
    },
  };
}

async function setup(answer: SignInAnswer = { authorizationUrl: AUTHORIZE }) {
  const fake = new FakeBackend();
  const remote = fake.seedServer('remote', { type: 'http', url: URL_OF_SERVER, headers: {}, enabled: true, prefix: true, label: 'Remote notes' });
  fake.servers.set('remote', { ...remote, status: 'needs-sign-in', tools: 0, auth: { state: 'needs-sign-in' } });
  fake.seedServer('files', { type: 'stdio', command: 'node', args: [], env: {}, enabled: true, prefix: true });
  const opened: string[] = [];
  const servers = new ServersState(signInBackend(fake, answer), (url) => opened.push(url));
  stop = servers.start();
  render(ServersView, { servers });
  await waitFor(() => expect(servers.loaded).toBe(true));
  const card = () => within(screen.getByRole('article', { name: 'Remote notes' }));
  return { fake, opened, card };
}

/** What the hub does once the browser's redirect came back: tokens kept, the server connects by itself. */
function hubSignsIn(fake: FakeBackend): void {
  const server = fake.servers.get('remote') as UpstreamInfo;
  fake.servers.set('remote', { ...server, status: 'ready', tools: 2, auth: { state: 'signed-in' } });
  fake.emit({ type: 'upstream.status', level: 'info', server: 'remote', status: 'connecting' });
  fake.emit({ type: 'upstream.status', level: 'info', server: 'remote', status: 'ready', tools: 2 });
}

describe('Servers: signing in to a web server', () => {
  it('says who needs a sign-in where, opens the page, waits, and turns to Signed in by itself', async () => {
    const { fake, opened, card } = await setup();
    expect(card().getByText('Needs sign-in')).toBeTruthy();
    expect(card().getByText('Remote notes needs you to sign in to mcp.example.com.')).toBeTruthy();
    // A program on this computer never signs in.
    expect(within(screen.getByRole('article', { name: 'files' })).queryByRole('button', { name: /Sign/ })).toBeNull();

    await fireEvent.click(card().getByRole('button', { name: 'Sign in' }));
    await card().findByText('Waiting for you to finish signing in in your browser…');
    expect(fake.callsOf('upstreams.signIn')).toEqual([{ id: 'remote' }]);
    expect(opened).toEqual([AUTHORIZE]);
    const again = card().getByRole('link', { name: 'Open the sign-in page again' });
    expect(again.getAttribute('href')).toBe(AUTHORIZE);
    expect(again.getAttribute('rel')).toBe('noopener noreferrer');

    hubSignsIn(fake);
    await card().findByText('Signed in to mcp.example.com');
    expect(card().getByText('Ready')).toBeTruthy();
    expect(card().queryByText(/Waiting for you/)).toBeNull();
    expect(card().getByRole('button', { name: 'Sign out…' })).toBeTruthy();
  });

  it('does not open the page a second time when the desktop app opened it', async () => {
    const { opened, card } = await setup({ authorizationUrl: AUTHORIZE, openedInBrowser: true });
    await fireEvent.click(card().getByRole('button', { name: 'Sign in' }));
    await card().findByText('Waiting for you to finish signing in in your browser…');
    expect(opened).toEqual([]);
  });

  it('Cancel stops waiting, tells the hub (which then refuses the redirect), and offers Sign in again', async () => {
    const { card, fake } = await setup();
    await fireEvent.click(card().getByRole('button', { name: 'Sign in' }));
    await fireEvent.click(await card().findByRole('button', { name: 'Cancel' }));
    expect(card().queryByText(/Waiting for you/)).toBeNull();
    expect(card().getByRole('button', { name: 'Sign in' })).toBeTruthy();
    await waitFor(() => expect(fake.callsOf('upstreams.cancelSignIn')).toEqual([{ id: 'remote' }]));
  });

  it('refuses, unopened, a sign-in address that is not a web address', async () => {
    const { opened, card } = await setup({ authorizationUrl: 'javascript:alert(1)' });
    await fireEvent.click(card().getByRole('button', { name: 'Sign in' }));
    expect((await card().findByRole('alert')).textContent).toContain('not a web address');
    expect(opened).toEqual([]);
    expect(card().queryByText(/Waiting for you/)).toBeNull();
  });

  it('shows the hub’s refusal on the card', async () => {
    const { card } = await setup({ ok: false, code: 'unavailable', message: 'Signing in could not start: fetch failed' });
    await fireEvent.click(card().getByRole('button', { name: 'Sign in' }));
    expect((await card().findByRole('alert')).textContent).toBe('Signing in could not start: fetch failed');
  });

  it('Sign out warns that the sign-in is forgotten, then the server needs a sign-in again', async () => {
    const { fake, card } = await setup();
    hubSignsIn(fake);
    await fireEvent.click(await card().findByRole('button', { name: 'Sign out…' }));
    expect(card().getByText(/forgets this server's sign-in.*cannot be undone/)).toBeTruthy();
    // Each press removes the button it was made on: the keyboard focus moves to the one shown instead.
    await waitFor(() => expect(document.activeElement).toBe(card().getByRole('button', { name: 'Sign out of mcp.example.com' })));
    await fireEvent.click(card().getByRole('button', { name: 'Stay signed in' }));
    expect(fake.callsOf('upstreams.signOut')).toEqual([]);
    await waitFor(() => expect(document.activeElement).toBe(card().getByRole('button', { name: 'Sign out…' })));

    await fireEvent.click(card().getByRole('button', { name: 'Sign out…' }));
    await fireEvent.click(card().getByRole('button', { name: 'Sign out of mcp.example.com' }));
    await card().findByText('Remote notes needs you to sign in to mcp.example.com.');
    expect(fake.callsOf('upstreams.signOut')).toEqual([{ id: 'remote' }]);
    expect(card().getByText('Needs sign-in')).toBeTruthy();
    await waitFor(() => expect(document.activeElement).toBe(card().getByRole('button', { name: 'Sign in' })));
  });
});

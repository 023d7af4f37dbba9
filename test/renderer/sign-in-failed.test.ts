/**
 * A sign-in that fails in the browser (audit s13, oauth 4): access denied, an error from the provider, a
 * code that could not be exchanged, or a sign-in that expired. The hub logs it and keeps why on the
 * server's sign-in info; the card, waiting for the browser, reads the server again, stops waiting (its
 * "Open the sign-in page again" link would lead to a used-up sign-in), says what happened and offers Sign
 * in again. A failure the hub still reported from before this Sign in does not end the new wait.
 */
import { afterEach, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import ServersView from '../../renderer/src/views/ServersView.svelte';
import { ServersState } from '../../renderer/src/lib/servers.svelte.js';
import type { Backend } from '../../renderer/src/lib/api.js';
import type { ApiResult, MethodName, Req, Res, UpstreamInfo } from '../../shared/api.js';
import { FakeBackend } from './fake-backend.js';

const AUTHORIZE = 'https://auth.example.com/authorize?client_id=c1&state=s1';
const DENIED = 'Access was denied in the browser. To use this server, press Sign in and allow access.';

let stop: (() => void) | undefined;
afterEach(() => stop?.());

/** The fake hub, answering Sign in as the real one does (it forgets the last failure when a sign-in starts). */
function signInBackend(fake: FakeBackend): Backend {
  return {
    subscribe: (fn) => fake.subscribe(fn),
    watchConnection: (fn) => fake.watchConnection(fn),
    call<M extends MethodName>(method: M, req: Req<M>): Promise<ApiResult<Res<M>>> {
      if (method !== 'upstreams.signIn') return fake.call(method, req);
      fake.calls.push({ method, req });
      setAuth(fake, { state: 'needs-sign-in' });
      return Promise.resolve({ ok: true, value: { authorizationUrl: AUTHORIZE } } as ApiResult<Res<M>>);
    },
  };
}

function setAuth(fake: FakeBackend, auth: NonNullable<UpstreamInfo['auth']>): void {
  const server = fake.servers.get('remote') as UpstreamInfo;
  fake.servers.set('remote', { ...server, auth });
}

async function setup() {
  const fake = new FakeBackend();
  const remote = fake.seedServer('remote', {
    type: 'http',
    url: 'https://mcp.example.com/mcp',
    headers: {},
    enabled: true,
    prefix: true,
    label: 'Remote notes',
  });
  fake.servers.set('remote', { ...remote, status: 'needs-sign-in', tools: 0, auth: { state: 'needs-sign-in' } });
  const servers = new ServersState(signInBackend(fake), () => undefined);
  stop = servers.start();
  render(ServersView, { servers });
  await waitFor(() => expect(servers.loaded).toBe(true));
  const card = () => within(screen.getByRole('article', { name: 'Remote notes' }));
  return { fake, servers, card };
}

it('a sign-in denied in the browser ends the wait: the card says so and offers Sign in again', async () => {
  const { fake, card } = await setup();
  await fireEvent.click(card().getByRole('button', { name: 'Sign in' }));
  await card().findByText('Waiting for you to finish signing in in your browser…');

  // What the hub does when the browser comes back with error=access_denied.
  setAuth(fake, { state: 'needs-sign-in', failure: DENIED });
  fake.emit({ type: 'log', level: 'warn', server: 'remote', message: 'Sign-in failed: Access was denied…' });

  await card().findByText(`The last sign-in did not finish. ${DENIED}`);
  expect(card().queryByText(/Waiting for you/)).toBeNull();
  expect(card().queryByRole('link', { name: 'Open the sign-in page again' })).toBeNull();
  expect(card().getByRole('button', { name: 'Sign in' })).toBeTruthy();
});

it('a failure still listed from before this Sign in does not end the new wait; the new sign-in hides it', async () => {
  const { fake, servers, card } = await setup();
  setAuth(fake, { state: 'needs-sign-in', failure: DENIED });
  await servers.refresh();
  expect(card().getByText(`The last sign-in did not finish. ${DENIED}`)).toBeTruthy();

  // A list read already under way when Sign in is pressed answers with the old failure.
  let answerOld: (() => void) | undefined;
  const slow = new Promise<void>((resolve) => (answerOld = resolve));
  const list = fake.call.bind(fake);
  fake.call = (async (method: MethodName, req: unknown) => {
    const snapshot = await list(method as 'upstreams.list', req as Req<'upstreams.list'>);
    if (method === 'upstreams.list') await slow;
    return snapshot;
  }) as FakeBackend['call'];
  const stale = servers.refresh();
  await fireEvent.click(card().getByRole('button', { name: 'Sign in' }));
  await card().findByText('Waiting for you to finish signing in in your browser…');
  answerOld!();
  await stale;
  expect(card().getByText('Waiting for you to finish signing in in your browser…')).toBeTruthy();

  fake.call = list;
  await servers.refresh();
  expect(card().getByText('Waiting for you to finish signing in in your browser…')).toBeTruthy();
  expect(card().queryByText(/did not finish/)).toBeNull();
});

/**
 * A connection's refresh sent before a step-up sign-in's code exchange and answered after it: its tokens
 * are older than the ones the exchange stored (which carry the scope the user just granted), so they are
 * dropped, and the connection goes on with the exchange's.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect, it } from 'vitest';
import { OAUTH_SECRETS } from '../../electron/core/oauth/upstream-oauth-provider.js';
import { browse } from '../support/oauth-browser.js';
import { signIn } from '../support/oauth-flow.js';
import { useHoldsHub } from '../support/oauth-holds.js';

const holds = useHoldsHub(['--token-lifetime', '600']);

const text = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as Array<{ text: string }>).map((c) => c.text).join('\n');

it('the step-up sign-in finished while a refresh was under way keeps its tokens (and their scope)', async () => {
  const h = holds();
  const { hub, server } = h;
  await hub.waitForStatus('remote', 'needs-sign-in');
  await signIn(hub);
  const client = await hub.connect();
  expect((await client.callTool({ name: 'remote__admin_report', arguments: {} })).isError).toBe(true); // step-up asked

  // A call meets an expired token: the connection's refresh is held at the token endpoint.
  await h.post('/token-trouble?mode=hold-refresh');
  await h.post('/expire-access-tokens');
  const call = client.callTool({ name: 'remote__whoami', arguments: {} });
  await h.waitHeld('token', 1);

  // Meanwhile the user signs in for the scope (the tokens are kept for a step-up); the code exchange is not held.
  const answer = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
  expect(new URL(answer.value!.authorizationUrl).searchParams.get('scope')).toBe('admin');
  const page = await browse(answer.value!.authorizationUrl);
  expect(page.status, page.text).toBe(200);
  const afterSignIn = await hub.hub.secretStore.get('remote', OAUTH_SECRETS.tokens);

  // The held refresh is answered now (its refresh token is still valid at the server): it was granted.
  await h.post('/token-trouble?mode=off');
  expect(text(await call)).toMatch(/^signed in as /);
  expect((await server.stats()).refreshGrants).toBe(1);

  expect(await hub.hub.secretStore.get('remote', OAUTH_SECRETS.tokens)).toBe(afterSignIn);
  const report = await client.callTool({ name: 'remote__admin_report', arguments: {} });
  expect(text(report)).toMatch(/scopes: admin/);
});

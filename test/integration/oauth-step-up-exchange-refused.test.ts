/**
 * A step-up sign-in keeps the tokens in use (the server's other tools work meanwhile). When its code
 * exchange is refused (the code expired at the server: invalid_grant), the SDK's auth asks the provider to
 * drop the stored tokens; during an exchange only the sign-in's verifier goes, so the server stays ready.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect, it } from 'vitest';
import { OAUTH_SECRETS } from '../../electron/core/oauth/upstream-oauth-provider.js';
import { signIn } from '../support/oauth-flow.js';
import { useHoldsHub } from '../support/oauth-holds.js';

const holds = useHoldsHub(['--token-lifetime', '600']);

const text = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as Array<{ text: string }>).map((c) => c.text).join('\n');

it('a refused step-up code exchange leaves the tokens in use', async () => {
  const h = holds();
  const { hub } = h;
  await hub.waitForStatus('remote', 'needs-sign-in');
  await signIn(hub);
  const client = await hub.connect();
  expect((await client.callTool({ name: 'remote__admin_report', arguments: {} })).isError).toBe(true); // step-up asked
  const held = await hub.hub.secretStore.get('remote', OAUTH_SECRETS.tokens);

  const answer = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
  const asked = await fetch(answer.value!.authorizationUrl, { redirect: 'manual' });
  await asked.body?.cancel();
  const redirect = asked.headers.get('location')!;
  // The user took too long: the server's authorization code expired before the redirect came back.
  await h.post('/forget-codes');
  const page = await fetch(redirect);
  const words = await page.text();
  expect(page.status, words).toBe(502);
  expect(words).toMatch(/could not finish signing in .*refused the authorization code/);

  // The step-up failed; the tokens in use still serve the other tools, and the sign-in's verifier is gone.
  expect(await hub.hub.secretStore.get('remote', OAUTH_SECRETS.tokens)).toBe(held);
  expect(await hub.hub.secretStore.get('remote', OAUTH_SECRETS.verifier)).toBeUndefined();
  const who = await client.callTool({ name: 'remote__whoami', arguments: {} });
  expect(text(who)).toMatch(/^signed in as /);
  expect(hub.hub.pool.get('remote')?.status).toBe('ready');
});

/**
 * Sign-out revokes (RFC 7009, issue 15) at a server whose clients authenticate with client_secret_basic
 * (RFC 7591's default): the client's credentials go in an Authorization: Basic header, not the body.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signIn, startOAuthHub, type OAuthHub } from '../support/oauth-flow.js';

let oauth: OAuthHub;
beforeAll(async () => {
  oauth = await startOAuthHub(['--basic-only', '--token-lifetime', '300']);
});
afterAll(() => oauth?.stop());

it('Sign out revokes the tokens with HTTP Basic client authentication', async () => {
  const { hub, server } = oauth;
  await hub.waitForStatus('remote', 'needs-sign-in');
  await signIn(hub);
  const out = await hub.api<{ revoked: boolean }>('upstreams.signOut', { id: 'remote' });
  expect(out.value?.revoked).toBe(true);
  const stats = (await server.stats()) as { revocations: number; refusedNonBasic?: number };
  expect(stats.revocations).toBe(2);
  expect(stats.refusedNonBasic ?? 0).toBe(0);
});

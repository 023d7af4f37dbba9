/**
 * Sign in follows the server's 401 challenge (issue 15, MCP authorization spec): the resource metadata it
 * names in WWW-Authenticate (which may be the only place it is found) and the scope it asks for.
 */
import { afterEach, expect, it } from 'vitest';
import { browse } from '../support/oauth-browser.js';
import { startOAuthHub, type OAuthHub } from '../support/oauth-flow.js';

let oauth: OAuthHub | undefined;
afterEach(async () => {
  await oauth?.stop();
  oauth = undefined;
});

it('Sign in works when the resource metadata is named only in WWW-Authenticate', async () => {
  oauth = await startOAuthHub(['--split-as', '--prm-header-only', '--token-lifetime', '300']);
  const { hub } = oauth;
  await hub.waitForStatus('remote', 'needs-sign-in');
  const answer = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
  expect(answer.ok).toBe(true);
  const ready = hub.waitForStatus('remote', 'ready');
  expect((await browse(answer.value!.authorizationUrl)).status).toBe(200);
  await ready;
});

it('Sign in asks for the scope the 401 named', async () => {
  oauth = await startOAuthHub(['--split-as', '--required-scope', 'read', '--token-lifetime', '300']);
  const { hub } = oauth;
  await hub.waitForStatus('remote', 'needs-sign-in');
  const answer = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
  expect(answer.ok).toBe(true);
  const asked = new URL(answer.value!.authorizationUrl);
  expect(asked.searchParams.get('scope')).toBe('read');
  const ready = hub.waitForStatus('remote', 'ready');
  expect((await browse(asked.href)).status).toBe(200);
  await ready;
});

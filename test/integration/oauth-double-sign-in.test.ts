/**
 * Two sign-ins of one server at once (issue 15; e.g. Sign in pressed twice): a server has one PKCE code
 * verifier, so only the newer sign-in can finish. Its tab signs in; the older tab's redirect is refused with
 * a page saying a newer sign-in replaced it (not a failed code exchange), and no code is wasted on it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestHub } from '../support/hub-harness.js';
import { browse } from '../support/oauth-browser.js';
import { startOAuthHub, type OAuthHub } from '../support/oauth-flow.js';

let oauth: OAuthHub;
let hub: TestHub;

beforeAll(async () => {
  oauth = await startOAuthHub(['--token-lifetime', '300']);
  hub = oauth.hub;
});
afterAll(() => oauth?.stop());

const signInUrl = async () => (await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' })).value!.authorizationUrl;

it('signs in through the newer of two sign-ins started at once; the older page says it was replaced', async () => {
  await hub.waitForStatus('remote', 'needs-sign-in');
  const urls = await Promise.all([signInUrl(), signInUrl()]);
  const ready = hub.waitForStatus('remote', 'ready');
  // Which one the hub started second is up to the HTTP server's order: each is tried once, in turn.
  const pages = [];
  for (const url of urls) pages.push(await browse(url));
  await ready;
  expect(pages.map((p) => p.status).sort()).toEqual([200, 400]);
  const older = pages.find((p) => p.status === 400)!;
  expect(older.text).toContain('A newer sign-in to this server was started after this one and replaced it.');
  expect((await oauth.server.stats()).codeGrants).toBe(1);
  expect(hub.hub.pool.get('remote')?.status).toBe('ready');
});

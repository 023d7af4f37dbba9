/**
 * A step-up sign-in keeps the tokens in use (issued to the registered client). Pressing Sign in again (the
 * first tab closed, or the sign-in cancelled) must keep that client: a new registration cannot refresh the
 * kept tokens, so the next refresh would be refused and the user signed out; nor may registrations pile up.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, expect, it } from 'vitest';
import { signIn, startOAuthHub, type OAuthHub } from '../support/oauth-flow.js';

let oauth: OAuthHub | undefined;
afterEach(async () => {
  await oauth?.stop();
  oauth = undefined;
});
const text = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as Array<{ text: string }>).map((c) => c.text).join('\n');

for (const between of ['none', 'cancel'] as const) {
  it(`two step-up Sign ins (${between === 'none' ? 'the first never came back' : 'the first cancelled'}) keep the client and its refresh`, async () => {
    oauth = await startOAuthHub(['--token-lifetime', '300']);
    const { hub, server } = oauth;
    await hub.waitForStatus('remote', 'needs-sign-in');
    const first = await signIn(hub);
    const client = await hub.connect();
    expect((await client.callTool({ name: 'remote__admin_report', arguments: {} })).isError).toBe(true);
    const a = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
    if (between === 'cancel') await hub.api('upstreams.cancelSignIn', { id: 'remote' });
    const b = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
    for (const url of [a.value!.authorizationUrl, b.value!.authorizationUrl])
      expect(new URL(url).searchParams.get('client_id')).toBe(first.searchParams.get('client_id'));
    expect((await server.stats()).registrations).toBe(1);
    // The access token expires: the kept refresh token still works for the client it was issued to.
    await fetch(new URL('/expire-access-tokens', server.url), { method: 'POST' });
    const after = await client.callTool({ name: 'remote__whoami', arguments: {} });
    expect(after.isError, text(after)).toBeFalsy();
    expect(text(after)).toMatch(/^signed in as /);
    expect(hub.hub.pool.get('remote')?.status).toBe('ready');
  });
}

/**
 * Sign out (or Remove) while a sign-in waits in the browser: its redirect, when it still comes, is told
 * why it is refused (not that the link "was already used, or was not made by this Spillway"), and no code
 * is exchanged.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browse } from '../support/oauth-browser.js';
import { startHoldsHub, type HoldsHub } from '../support/oauth-holds.js';

let h: HoldsHub;
beforeAll(async () => {
  h = await startHoldsHub(['--token-lifetime', '600']);
});
afterAll(() => h?.stop());

for (const action of ['signOut', 'remove'] as const) {
  it(`the redirect of a sign-in given up by ${action === 'signOut' ? 'Sign out' : 'Remove'} says so`, async () => {
    const { hub, server } = h;
    await hub.waitForStatus('remote', 'needs-sign-in');
    const url = await h.signInUrl();
    expect((await hub.api(`upstreams.${action}`, { id: 'remote' })).ok).toBe(true);
    const page = await browse(url);
    expect(page.status).toBe(400);
    expect(page.text).not.toContain('was already used');
    expect(page.text).toContain('signed out or removed in Spillway');
    expect((await server.stats()).codeGrants).toBe(0);
    if (action === 'remove') {
      const asked = hub.waitForStatus('remote', 'needs-sign-in');
      expect((await hub.api('upstreams.add', { id: 'remote', config: { type: 'http', url: server.url, headers: {} } })).ok).toBe(true);
      await asked;
    }
  });
}

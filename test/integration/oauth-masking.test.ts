/**
 * OAuth tokens are masked by value (issue 13, item 12; issue 15): the secret store keeps a server's tokens
 * and client registration as JSON, and a server that quotes its access token in an error must not put the
 * token into upstream.status events or the event log files.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestHub } from '../support/hub-harness.js';
import { signIn, startOAuthHub, type OAuthHub } from '../support/oauth-flow.js';

let oauth: OAuthHub;
let hub: TestHub;

beforeAll(async () => {
  oauth = await startOAuthHub(['--token-lifetime', '300']);
  hub = oauth.hub;
});
afterAll(() => oauth?.stop());

it('masks an access token a server quotes in its error, in events and in the log files', async () => {
  await hub.waitForStatus('remote', 'needs-sign-in');
  await signIn(hub);
  await (await fetch(new URL('/echo-token-errors', oauth.server.url), { method: 'POST' })).body?.cancel();
  const failed = hub.waitFor(
    (e) => e.type === 'upstream.status' && e.server === 'remote' && JSON.stringify(e).includes('upstream failure'),
    'the error quoting the token',
  );
  await hub.api('upstreams.restart', { id: 'remote' });
  const text = JSON.stringify(await failed);
  expect(text).toContain('credential *** is not valid');
  const { issued } = await oauth.server.stats();
  for (const secret of issued) expect(text).not.toContain(secret);

  await hub.hub.events.flush();
  for (const entry of await readdir(hub.dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    // A file being replaced (write to a temp name, then rename) may be gone by now.
    const content = await readFile(join(entry.parentPath, entry.name), 'latin1').catch(() => '');
    for (const secret of issued) expect(content.includes(secret), `${secret} in ${entry.name}`).toBe(false);
  }
});

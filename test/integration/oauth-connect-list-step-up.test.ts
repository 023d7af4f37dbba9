/**
 * A step-up met at connect on a request other than initialize (the server's tools/list needs a scope the
 * sign-in lacks): the connect ends in 'needs-sign-in' (not an error retried again and again), the tokens
 * stay, the card says why, and the next Sign in asks for the scope and connects.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import { browse } from '../support/oauth-browser.js';
import { startOAuthHub, type OAuthHub } from '../support/oauth-flow.js';

let oauth: OAuthHub;
beforeAll(async () => {
  oauth = await startOAuthHub(['--token-lifetime', '300', '--list-scope', 'tools']);
});
afterAll(() => oauth?.stop());

it("a connect's tools/list step-up asks for a sign-in, keeping the tokens", async () => {
  const { hub } = oauth;
  await hub.waitForStatus('remote', 'needs-sign-in');
  const answer = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
  // The first status the connect after the sign-in ends in.
  const ended = new Promise<string>((resolve) => {
    hub.hub.events.subscribe((e: HubEvent) => {
      if (e.type === 'upstream.status' && e.server === 'remote' && e.status !== 'connecting') resolve(e.status);
    });
  });
  expect((await browse(answer.value!.authorizationUrl)).status).toBe(200);
  expect(await ended).toBe('needs-sign-in');
  expect(await hub.hub.secretStore.get('remote', 'oauth:tokens')).toBeDefined();
  const listed = await hub.api<Array<{ id: string; auth?: { state: string; notice?: string } }>>('upstreams.list');
  const auth = listed.value?.find((u) => u.id === 'remote')?.auth;
  expect(auth?.state).toBe('needs-sign-in');
  expect(auth?.notice).toMatch(/scope tools/);

  const stepUp = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
  expect(new URL(stepUp.value!.authorizationUrl).searchParams.get('scope')?.split(' ')).toContain('tools');
  const ready = hub.waitForStatus('remote', 'ready');
  expect((await browse(stepUp.value!.authorizationUrl)).status).toBe(200);
  await ready;
});

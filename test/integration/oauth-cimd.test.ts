/**
 * A Client ID Metadata Document (issue 15; the MCP authorization spec's preferred registration): with the
 * setting naming where Spillway's document is hosted, a server that accepts such documents signs
 * Spillway in under that URL as its client ID — no dynamic registration — and one that does not falls
 * back to registering. The OAuth fixture stands in for the server and knows the document as if fetched.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../support/hub-harness.js';
import { remoteConfig, signIn, startOAuthFixture, type OAuthFixture } from '../support/oauth-flow.js';

const DOCUMENT = 'https://spillway.example/oauth/client-metadata.json';
const started: Array<{ stop(): Promise<void> }> = [];
afterAll(async () => {
  for (const s of started.reverse()) await s.stop();
});

async function oauthServer(...flags: string[]): Promise<OAuthFixture> {
  const server = await startOAuthFixture('--token-lifetime', '300', ...flags);
  started.push(server);
  return server;
}

async function hubFor(url: string): Promise<TestHub> {
  const hub = await startTestHub(remoteConfig(url, { oauthClientMetadataUrl: DOCUMENT }));
  started.push(hub);
  await hub.waitForStatus('remote', 'needs-sign-in');
  return hub;
}

const registrations = async (server: OAuthFixture) => (await server.stats()).registrations;

describe('sign-in with a Client ID Metadata Document', () => {
  it('a server that accepts one signs Spillway in under the document URL, without registering it', async () => {
    const server = await oauthServer('--cimd', DOCUMENT);
    const hub = await hubFor(server.url);
    expect((await signIn(hub)).searchParams.get('client_id')).toBe(DOCUMENT);
    const client = await hub.connect();
    expect(await client.callTool({ name: 'remote__whoami', arguments: {} })).toMatchObject({ content: [{ text: `signed in as ${DOCUMENT}` }] });
    expect(await registrations(server)).toBe(0);
  });

  it('a server that does not accept one gets a dynamic registration as before', async () => {
    const server = await oauthServer();
    const hub = await hubFor(server.url);
    const answer = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
    expect(new URL(answer.value!.authorizationUrl).searchParams.get('client_id')).not.toBe(DOCUMENT);
    expect(await registrations(server)).toBe(1);
  });

  it('refuses a setting that is not an https address with a path, naming the field', async () => {
    const server = await oauthServer();
    const hub = await hubFor(server.url);
    const refused = await hub.api('settings.set', { oauthClientMetadataUrl: 'http://spillway.example/doc.json' });
    expect(refused).toMatchObject({ ok: false, code: 'invalid', field: 'oauthClientMetadataUrl' });
    expect(await hub.api('settings.set', { oauthClientMetadataUrl: '' })).toMatchObject({ ok: true });
    expect(hub.hub.settings.oauthClientMetadataUrl).toBeUndefined();
  });
});

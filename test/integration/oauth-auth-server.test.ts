/**
 * The hub's OAuth sign-ins against authorization servers that misbehave (issue 15): one that never
 * answers (sign-in and sign-out give up with words to act on, and sign-out has already forgotten the
 * tokens), a revocation endpoint that redirects to another origin, a resource that names another
 * authorization server after a restart (tokens are revoked only where they were issued), and endpoints
 * over plain http off this computer (refused before anything is opened or posted).
 */
import { describe, expect, it } from 'vitest';
import { checkAuthServerEndpoints } from '../../electron/core/oauth/auth-server-requests.js';
import { OAuthSignIns } from '../../electron/core/oauth/oauth-sign-ins.js';
import { OAUTH_SECRETS } from '../../electron/core/oauth/upstream-oauth-provider.js';
import { FAKE_CLIENT_SECRET, type FakeAuthServer } from '../support/fake-auth-server.js';
import { fakeAuthServer as fake, signIns, signInThrough } from '../support/fake-auth-sign-ins.js';
import { memorySecretStore } from '../support/memory-secret-store.js';

const revokes = (server: FakeAuthServer) => server.seen.filter((r) => r.path === '/revoke');

describe('an authorization server that never answers', () => {
  it('fails the sign-in after the time limit, saying what to do', async () => {
    const server = await fake({ hang: ['/.well-known/oauth-authorization-server'] });
    await expect(signIns().signIn('remote', server.mcpUrl)).rejects.toThrow(
      /The sign-in server \(127\.0\.0\.1:\d+\) did not answer within 1 second\. Check your internet connection and try again/,
    );
  }, 10_000);

  it('fails the code exchange after the time limit with a page that says so', async () => {
    const server = await fake();
    const oauth = signIns();
    const res = await fetch(await oauth.signIn('remote', server.mcpUrl), { redirect: 'manual' });
    server.mode.hang = ['/token'];
    const outcome = await oauth.finish(new URL(res.headers.get('location')!).searchParams);
    expect(outcome).toMatchObject({ ok: false, status: 502 });
    expect(!outcome.ok && outcome.message).toMatch(/did not answer within 1 second/);
  }, 10_000);

  it('signs out at once: the tokens are gone before revocation is tried, and a hanging revocation gives up', async () => {
    const server = await fake();
    const store = memorySecretStore();
    const oauth = signIns(store);
    await signInThrough(oauth, server);
    const tokensKey = `remote/${OAUTH_SECRETS.tokens}`;
    expect(store.items.has(tokensKey)).toBe(true);
    server.mode.hang = ['/revoke'];
    const storedWhenRevoking: boolean[] = [];
    server.onRequest = (req) => {
      if (req.path === '/revoke') storedWhenRevoking.push(store.items.has(tokensKey));
    };
    expect(await oauth.signOut('remote', server.mcpUrl)).toEqual({ revoked: false });
    expect(storedWhenRevoking).toEqual([false]);
    expect(store.items.has(tokensKey)).toBe(false);
  }, 10_000);
});

describe('revocation goes only to the server that issued the tokens', () => {
  it('does not follow a revocation endpoint redirecting to another origin', async () => {
    const elsewhere = await fake();
    const server = await fake({ redirectRevokeTo: `${elsewhere.base}revoke` });
    const oauth = signIns();
    await signInThrough(oauth, server);
    expect(await oauth.signOut('remote', server.mcpUrl)).toEqual({ revoked: false });
    expect(revokes(server)).toHaveLength(2); // each token posted once, to the endpoint; neither redirect followed
    expect(elsewhere.seen).toEqual([]);
  });

  it('after a restart, revokes at the issuer stamped on the tokens, not at the one the resource names now', async () => {
    const other = await fake();
    const server = await fake();
    const store = memorySecretStore();
    await signInThrough(signIns(store), server);
    server.mode.authServer = other.base;
    // A fresh OAuthSignIns on the same store is the hub after a restart: nothing discovered yet.
    expect(await signIns(store).signOut('remote', server.mcpUrl)).toEqual({ revoked: true });
    expect(other.seen).toEqual([]);
    expect(revokes(server).map((r) => new URLSearchParams(r.body).get('token'))).toEqual([`refresh-${server.base}`, `access-${server.base}`]);
    // Its metadata names no client authentication methods: RFC 8414's default, client_secret_basic, as the SDK's token requests.
    const basic = `Basic ${Buffer.from(`fake-client:${FAKE_CLIENT_SECRET}`).toString('base64')}`;
    expect(revokes(server).every((r) => r.authorization === basic && !new URLSearchParams(r.body).has('client_secret'))).toBe(true);
  });
});

describe('authorization server endpoints must be https (plain http only on this computer)', () => {
  it.each([
    ['authorizationEndpoint', 'http://203.0.113.7/authorize'],
    ['tokenEndpoint', 'http://auth.example.com/token'],
  ] as const)('refuses a sign-in whose %s is %s, before opening or posting anything', async (field, address) => {
    const server = await fake({ [field]: address });
    const asked: string[] = [];
    const oauth = new OAuthSignIns({
      store: memorySecretStore(),
      redirectUrl: () => 'http://127.0.0.1:1/oauth/callback',
      onNeedsSignIn: (_id, url) => asked.push(url),
    });
    await expect(oauth.signIn('remote', server.mcpUrl)).rejects.toThrow(
      `This server's sign-in uses an address that is not secure (${address}), so Spillway will not sign in there`,
    );
    expect(asked).toEqual([]);
    expect(server.seen.map((r) => r.path)).not.toContain('/register');
  });

  it.each([
    ['https://auth.example.com/', true],
    ['http://127.0.0.1:8080/', true],
    ['http://127.1.2.3/', true],
    ['http://localhost:9000/', true],
    ['http://[::1]:9000/', true],
    ['http://203.0.113.7/', false],
    ['http://127.0.0.1.example.com/', false],
    ['ftp://auth.example.com/', false],
  ])('%s is allowed: %s', (address, allowed) => {
    const check = () => checkAuthServerEndpoints(address);
    if (allowed) expect(check).not.toThrow();
    else expect(check).toThrow(/not secure/);
  });

  it('checks every endpoint the metadata names, revocation included', () => {
    const metadata = {
      issuer: 'https://auth.example.com/',
      authorization_endpoint: 'https://auth.example.com/authorize',
      token_endpoint: 'https://auth.example.com/token',
      revocation_endpoint: 'http://auth.example.com/revoke',
      response_types_supported: ['code'],
    };
    expect(() => checkAuthServerEndpoints('https://auth.example.com/', metadata)).toThrow('(http://auth.example.com/revoke)');
  });
});

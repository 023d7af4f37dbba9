/**
 * The fetch a signed-in upstream's transport holds (audit s13, oauth 2-3): which requests are the SDK's
 * sign-in requests (limited in time, stopped on sign-out) and which are MCP traffic (untouched); how a
 * refresh's failure is told apart (a passing one is reported, a refusal is not); and the pending sign-ins
 * a connection must leave alone (the user's, still waiting).
 */
import { describe, expect, it } from 'vitest';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { connectionAuthFetch, isSignInRequest, type RefreshFailure } from '../../electron/core/oauth/connection-auth-fetch.js';
import { PendingSignIns } from '../../electron/core/oauth/pending-sign-ins.js';

const refresh = () => new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'rt' });

describe('which requests are sign-in requests', () => {
  it.each([
    ['https://mcp.example.com/.well-known/oauth-protected-resource/mcp', undefined, true],
    ['https://auth.example.com/.well-known/oauth-authorization-server', undefined, true],
    ['https://auth.example.com/tenant/.well-known/openid-configuration', undefined, true],
    ['https://auth.example.com/oauth/token', { method: 'POST', body: refresh() }, true],
    ['https://auth.example.com/register', { method: 'POST', body: '{"client_name":"Spillway"}' }, true],
    ['https://mcp.example.com/mcp', { method: 'POST', body: '{"jsonrpc":"2.0"}' }, false],
    ['https://mcp.example.com/mcp', { method: 'GET' }, false],
    ['https://mcp.example.com/messages?sessionId=1', { method: 'POST', body: '{}' }, false],
  ] as const)('%s %j: %s', (url, init, expected) => {
    expect(isSignInRequest(new URL(url), init, 'https://auth.example.com/register')).toBe(expected);
  });
});

describe('the connection’s fetch', () => {
  /** A fetch over `answer`, recording what each refresh reported and the signal each request carried. */
  function setup(answer: (signal: AbortSignal | null | undefined) => Promise<Response>, stop = new AbortController()) {
    const reported: (RefreshFailure | undefined)[] = [];
    const signals: (AbortSignal | null | undefined)[] = [];
    const base: FetchLike = (url, init) => {
      signals.push(init?.signal);
      return answer(init?.signal);
    };
    const fetchFn = connectionAuthFetch(base, {
      timeoutMs: 200,
      stop: stop.signal,
      registrationEndpoint: () => undefined,
      onRefresh: (failure) => reported.push(failure),
    });
    return { fetchFn, reported, signals, stop };
  }
  const token = (fetchFn: FetchLike) => fetchFn('https://auth.example.com/token', { method: 'POST', body: refresh() });

  it.each([
    [503, { host: 'auth.example.com', reason: 'it answered HTTP 503' }],
    [502, { host: 'auth.example.com', reason: 'it answered HTTP 502' }],
    [429, { host: 'auth.example.com', reason: 'it answered HTTP 429' }],
    [400, undefined],
    [401, undefined],
    [200, undefined],
  ])('a refresh answered %i reports %j', async (status, failure) => {
    const { fetchFn, reported } = setup(async () => new Response('{}', { status }));
    expect((await token(fetchFn)).status).toBe(status);
    expect(reported).toEqual([failure]);
  });

  it('a refresh with no answer gives up after the time limit and reports it; a refused connection too', async () => {
    // A server that never answers: only the signal ends the request, as with the real fetch.
    const hanging = setup(
      (signal) => new Promise((_, reject) => signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))),
    );
    await expect(token(hanging.fetchFn)).rejects.toThrow(/did not answer within 1 second/);
    expect(hanging.reported).toEqual([{ host: 'auth.example.com', reason: 'it did not answer within 1 second' }]);
    const refused = setup(() => Promise.reject(new TypeError('fetch failed')));
    await expect(token(refused.fetchFn)).rejects.toThrow('fetch failed');
    expect(refused.reported).toEqual([{ host: 'auth.example.com', reason: 'it could not be reached' }]);
  });

  it('stops sign-in requests under way on retirement, without reporting a failure', async () => {
    const { fetchFn, reported, stop } = setup(
      (signal) => new Promise((_, reject) => signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))),
    );
    const pending = token(fetchFn);
    stop.abort();
    await expect(pending).rejects.toThrow('aborted');
    expect(reported).toEqual([]);
  });

  it('passes MCP requests as they are: no time limit, no stop signal', async () => {
    const { fetchFn, signals, reported } = setup(async () => new Response('{}'));
    await fetchFn('https://mcp.example.com/mcp', { method: 'POST', body: '{}' });
    expect(signals).toEqual([undefined]);
    expect(reported).toEqual([]);
  });
});

describe('pending sign-ins a connection leaves alone', () => {
  it('knows the user’s sign-in still waiting, not a connection’s, nor a cancelled, replaced or expired one', () => {
    let now = 0;
    const pending = new PendingSignIns(60_000, () => now);
    pending.create('gh');
    expect(pending.waitingForUser('gh')).toBe(false);
    const mine = pending.create('gh', true);
    expect(pending.waitingForUser('gh')).toBe(true);
    expect(pending.waitingForUser('notion')).toBe(false);
    expect(pending.serverOf(mine)).toBe('gh');
    pending.cancel('gh');
    expect(pending.waitingForUser('gh')).toBe(false);
    pending.create('gh', true);
    now += 60_001;
    expect(pending.waitingForUser('gh')).toBe(false);
  });

  it('still names the server of an expired sign-in for a while, so its card can say it expired', () => {
    let now = 0;
    const pending = new PendingSignIns(60_000, () => now);
    const state = pending.create('gh', true);
    now += 90_000;
    pending.create('notion'); // sweeps
    expect(pending.serverOf(state)).toBe('gh');
    expect(pending.take(state)).toEqual({ refused: 'expired' });
    expect(pending.serverOf(state)).toBeUndefined();
  });
});

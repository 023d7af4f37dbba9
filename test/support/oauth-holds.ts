/**
 * A hub with the OAuth fixture (test/fixtures/oauth-server.mjs) as its `remote` upstream, and the fixture's
 * test-only controls for races: token requests held by grant type, revocations held, codes forgotten, and
 * long-polls that answer once a request is held or a count reached (no sleeps in the tests).
 */
import { afterEach, beforeEach } from 'vitest';
import { startOAuthHub, type OAuthHub } from './oauth-flow.js';

export interface HoldsHub extends OAuthHub {
  /** POSTs a test-only route of the fixture (e.g. `/token-trouble?mode=hold-code`, `/revoke-trouble?mode=hold`, `/forget-codes`). */
  post(path: string): Promise<void>;
  /** Resolves once the fixture has held `n` requests of that kind in all. */
  waitHeld(what: 'token' | 'revoke', n?: number): Promise<void>;
  /** Resolves once the fixture's stats[name] reaches `n`. */
  waitStat(name: string, n?: number): Promise<void>;
  /** A fresh authorization URL from the hub's Sign in. */
  signInUrl(): Promise<string>;
}

export async function startHoldsHub(flags: string[]): Promise<HoldsHub> {
  const started = await startOAuthHub(flags);
  const { server, hub } = started;
  const ask = async (path: string, init?: RequestInit) => {
    const res = await fetch(new URL(path, server.url), init);
    await res.body?.cancel();
    if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${path}: HTTP ${res.status}`);
  };
  return {
    ...started,
    post: (path) => ask(path, { method: 'POST' }),
    waitHeld: (what, n = 1) => ask(`/wait-held?what=${what}&n=${n}`),
    waitStat: (name, n = 1) => ask(`/wait-stat?name=${encodeURIComponent(name)}&n=${n}`),
    async signInUrl() {
      const answer = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
      if (!answer.ok || !answer.value) throw new Error(`Sign in failed: ${answer.message}`);
      return answer.value.authorizationUrl;
    },
  };
}

/**
 * A fresh HoldsHub for each test of the file, stopped after it: call at the top level of a test file, and
 * the returned getter gives the current test's hub.
 */
export function useHoldsHub(flags: string[]): () => HoldsHub {
  let h: HoldsHub | undefined;
  beforeEach(async () => {
    h = await startHoldsHub(flags);
  });
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });
  return () => {
    if (!h) throw new Error('useHoldsHub: no hub outside a test');
    return h;
  };
}

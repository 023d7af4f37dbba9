/**
 * The OAuth sign-in tests' common steps: the OAuth fixture server (test/fixtures/oauth-server.mjs), a hub
 * with it as the HTTP upstream `remote`, and a sign-in through the hub's API with the browser's steps.
 */
import { expect } from 'vitest';
import { fixture, NODE, startTestHub, type TestHub } from './hub-harness.js';
import { browse } from './oauth-browser.js';
import { spawnUntil, type Started } from './processes.js';

/** What the fixture counts (its test-only GET /stats), and every token and client secret it issued. */
export interface OAuthFixtureStats {
  registrations: number;
  authorizations: number;
  codeGrants: number;
  refreshGrants: number;
  revocations: number;
  /** GETs of the legacy SSE stream that passed the bearer check. */
  sseGets: number;
  /** GETs of the SSE stream refused with a 401 after POST /refuse-sse-tokens. */
  sseRefusals?: number;
  issued: string[];
}

export interface OAuthFixture extends Started {
  /** Its MCP endpoint. */
  url: string;
  stats(): Promise<OAuthFixtureStats>;
}

/** Starts the OAuth fixture with these command-line flags and resolves once it listens. */
export async function startOAuthFixture(...flags: string[]): Promise<OAuthFixture> {
  const started = await spawnUntil(NODE, [fixture('oauth-server.mjs'), ...flags], /^(http:\/\/127\.0\.0\.1:\d+\/mcp)$/m);
  const url = started.match[1]!;
  return { ...started, url, stats: async () => (await (await fetch(new URL('/stats', url))).json()) as OAuthFixtureStats };
}

/** A hub config with one HTTP upstream, `remote`, at `url`. */
export const remoteConfig = (url: string, settings?: Record<string, unknown>) => ({
  version: 1,
  servers: { remote: { type: 'http', url, headers: {} } },
  ...(settings ? { settings } : {}),
});

export interface OAuthHub {
  server: OAuthFixture;
  hub: TestHub;
  stop(): Promise<void>;
}

/** The OAuth fixture (with `flags`) and a test hub with it as `remote`. */
export async function startOAuthHub(flags: string[]): Promise<OAuthHub> {
  const server = await startOAuthFixture(...flags);
  const hub = await startTestHub(remoteConfig(server.url)).catch(async (error: unknown) => {
    await server.stop();
    throw error;
  });
  return {
    server,
    hub,
    async stop() {
      await hub.stop();
      await server.stop();
    },
  };
}

/** Signs `remote` in: the hub's signIn, the browser's steps, then waits for ready. Gives the authorization URL. */
export async function signIn(hub: TestHub): Promise<URL> {
  const answer = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
  expect(answer.ok).toBe(true);
  const ready = hub.waitForStatus('remote', 'ready');
  const url = new URL(answer.value!.authorizationUrl);
  const page = await browse(url.href);
  // The callback page's text says why a sign-in failed (the CI log shows it, not only the status).
  expect(page.status, page.text).toBe(200);
  await ready;
  return url;
}

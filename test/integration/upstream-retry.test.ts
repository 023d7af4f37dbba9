/**
 * How an upstream retries (audit s11, item 2): a failed connect counts as one failure, not two; a stdio
 * server that keeps crashing stops after the configured number of failures; an HTTP server that is not
 * reachable yet is tried again and again, less often, and connects once it is up.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../shared/config.js';
import type { UpstreamStatus } from '../../shared/events.js';
import { Upstream, type UpstreamHooks, type UpstreamOptions } from '../../electron/core/upstream/upstream.js';
import { createTransportFactory } from '../../electron/core/upstream/transport-factory.js';
import { retryPlan } from '../../electron/core/upstream/retry-plan.js';
import { NODE, fixture, freePort } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';

interface Seen {
  status: UpstreamStatus;
  error?: string;
}

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** A real upstream over the real transports, counting its connect attempts and recording its statuses. */
function upstream(config: ServerConfig, options: Partial<UpstreamOptions>) {
  const factory = createTransportFactory({ baseEnv: process.env, platform: process.platform, maxMessageBytes: () => 1e8 });
  const seen: Seen[] = [];
  const waiters: { test: () => boolean; resolve: () => void }[] = [];
  let attempts = 0;
  const check = () => {
    for (const w of [...waiters]) {
      if (!w.test()) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  const hooks: UpstreamHooks = {
    createTransport: (...args) => {
      attempts++;
      return factory(...args);
    },
    onStatus: (_id, status, error) => {
      seen.push({ status, error });
      check();
    },
    onStderr: () => {},
    onListsChanged: () => {},
    onProgress: () => {},
    onLog: () => {},
    onResourceUpdated: () => {},
    routeRequest: () => Promise.resolve({}),
  };
  const up = new Upstream('fx', config, hooks, { clientInfo: { name: 'test', version: '1' }, ...options });
  stops.push(() => up.stop());
  return {
    up,
    seen,
    attempts: () => attempts,
    until: (test: () => boolean, what: string) =>
      new Promise<void>((resolve, reject) => {
        if (test()) return resolve();
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}: ${JSON.stringify(seen.slice(-3))}`)), 20_000);
        waiters.push({ test, resolve: () => (clearTimeout(timer), resolve()) });
      }),
  };
}

const stoppedAfter = (seen: Seen[]) => seen.find((s) => /stopped after/.test(s.error ?? ''));

describe('upstream retries', () => {
  it('counts a stdio server that dies on start once per start, and stops after the configured failures', async () => {
    const script = "process.stderr.write('boom: cannot start\\n'); process.exit(3)";
    const t = upstream({ type: 'stdio', command: NODE, args: ['-e', script], env: {}, enabled: true, prefix: true } as ServerConfig, {
      crashLoopFailures: 4,
      backoffBaseMs: 5,
      backoffMaxMs: 20,
    });
    t.up.start();
    await t.until(() => stoppedAfter(t.seen) !== undefined, 'the crash-loop stop');
    expect(t.attempts()).toBe(4);
    expect(stoppedAfter(t.seen)!.error).toMatch(/stopped after 4 failures in a row; fix the server and press Restart/);
    expect(t.up.status).toBe('error');
  });

  it('keeps trying an HTTP server that is not up yet, says it will, and connects once it is up', async () => {
    const port = await freePort();
    const t = upstream(
      { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { authorization: 'Bearer x' }, enabled: true, prefix: true } as ServerConfig,
      {
        crashLoopFailures: 3,
        backoffBaseMs: 5,
        networkRetryMaxMs: 40,
      },
    );
    t.up.start();
    // Twice the crash-loop count: a stdio server would have been given up on long before.
    await t.until(() => t.attempts() >= 6 || stoppedAfter(t.seen) !== undefined, 'six tries');
    expect(stoppedAfter(t.seen)).toBeUndefined();
    expect(t.seen.filter((s) => s.status === 'error').at(-1)!.error).toMatch(/Spillway tries again in a second; press Restart to try now/);
    const web: Started = await spawnUntil(NODE, [fixture('fixture-server.mjs'), '--http', '--port', String(port)], /listening on/);
    stops.push(() => web.stop());
    await t.until(() => t.up.status === 'ready', 'ready');
    expect(t.up.tools.length).toBeGreaterThan(0);
  });
});

describe('retryPlan', () => {
  const tuning = { crashLoopFailures: 5, backoffBaseMs: 500, backoffMaxMs: 30_000, networkRetryMaxMs: 60_000 };
  it.each([
    ['stdio', 1, 1, { stop: false, delayMs: 500 }],
    ['stdio', 4, 4, { stop: false, delayMs: 4000 }],
    ['stdio', 5, 5, { stop: true }],
    ['http', 5, 5, { stop: false, delayMs: 8000 }],
    ['sse', 2, 8, { stop: false, delayMs: 60_000 }],
    ['http', 1, 500, { stop: false, delayMs: 60_000 }],
  ] as const)('%s, %i recent failures, %i tries since ready', (type, recent, tries, expected) => {
    expect(retryPlan(type, 'unreachable', recent, tries, tuning)).toMatchObject(expected);
  });

  it('tells the user when the next try of a network server is', () => {
    const plan = retryPlan('http', 'could not reach the server', 1, 9, tuning);
    expect(plan.message).toBe('could not reach the server (Spillway tries again in a minute; press Restart to try now)');
  });
});

/**
 * One real Upstream over the real transports, outside a hub: its statuses recorded, its connect attempts
 * counted, and a way to wait for a status (on the status event, never on time).
 */
import type { ServerConfig } from '../../shared/config.js';
import type { UpstreamStatus } from '../../shared/events.js';
import { Upstream, type UpstreamHooks, type UpstreamOptions } from '../../electron/core/upstream/upstream.js';
import { createTransportFactory } from '../../electron/core/upstream/transport-factory.js';

export interface SeenStatus {
  status: UpstreamStatus;
  error?: string;
  /** Milliseconds since the upstream was made. */
  at: number;
}

export interface UpstreamRun {
  up: Upstream;
  seen: SeenStatus[];
  attempts(): number;
  logs(): number;
  /** Resolves once `test` holds (checked on each status change); rejects after `ms`. */
  until(test: () => boolean, what: string, ms?: number): Promise<void>;
}

/** A server to run: a command, or an HTTP or SSE address. */
export type RunConfig = { type: 'stdio'; command: string; args?: string[] } | { type: 'http' | 'sse'; url: string };

/** An upstream for `config` (enabled, no env or headers of its own); the caller stops it. */
export function upstreamRun(config: RunConfig, options: Partial<UpstreamOptions> = {}): UpstreamRun {
  const factory = createTransportFactory({ baseEnv: process.env, platform: process.platform, maxMessageBytes: () => 1e8 });
  const seen: SeenStatus[] = [];
  const waiters: { test: () => boolean; resolve: () => void }[] = [];
  const t0 = Date.now();
  let attempts = 0;
  let logs = 0;
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
      seen.push({ status, error, at: Date.now() - t0 });
      check();
    },
    onStderr: () => {},
    onListsChanged: () => {},
    onProgress: () => {},
    onLog: () => void logs++,
    onResourceUpdated: () => {},
    routeRequest: () => Promise.resolve({}),
  };
  const common = { enabled: true, prefix: true };
  const full: ServerConfig =
    config.type === 'stdio'
      ? { ...common, type: 'stdio', command: config.command, args: config.args ?? [], env: {} }
      : { ...common, type: config.type, url: config.url, headers: {} };
  const up = new Upstream('fx', full, hooks, { clientInfo: { name: 'test', version: '1' }, ...options });
  return {
    up,
    seen,
    attempts: () => attempts,
    logs: () => logs,
    until: (test, what, ms = 20_000) =>
      new Promise<void>((resolve, reject) => {
        if (test()) return resolve();
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}: ${JSON.stringify(seen.slice(-3))}`)), ms);
        waiters.push({ test, resolve: () => (clearTimeout(timer), resolve()) });
      }),
  };
}

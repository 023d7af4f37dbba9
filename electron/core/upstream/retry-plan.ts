/**
 * What happens after an upstream failed or dropped: when to try again, or whether to stop. A stdio
 * server that crashes again and again stops (restarting a broken program will not fix it); an HTTP or
 * SSE server is never given up on — the network may simply not be up yet (Wi-Fi at login) — but is tried
 * less and less often, up to a cap (audit s11, item 2).
 */
import type { ServerConfig } from '../../../shared/config.js';

export interface RetryTuning {
  crashLoopFailures: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  networkRetryMaxMs: number;
}

export type RetryPlan = { stop: true; message: string } | { stop: false; delayMs: number; message: string };

/**
 * The plan after one more failure. `recentFailures`: failures within the crash window since the server
 * last answered a call, this one included (a call that crashes a server that serves is no crash loop);
 * `triesSinceReady`: failed tries since the server was last ready, this one included.
 */
export function retryPlan(
  type: ServerConfig['type'],
  message: string,
  recentFailures: number,
  triesSinceReady: number,
  tuning: RetryTuning,
): RetryPlan {
  if (type === 'stdio') {
    if (recentFailures >= tuning.crashLoopFailures) {
      const failures = recentFailures === 1 ? 'the first failure' : `${recentFailures} failures in a row`;
      return { stop: true, message: `${message} (stopped after ${failures}; fix the server and press Restart)` };
    }
    return { stop: false, delayMs: Math.min(tuning.backoffMaxMs, tuning.backoffBaseMs * 2 ** (recentFailures - 1)), message };
  }
  const delayMs = Math.min(tuning.networkRetryMaxMs, tuning.backoffBaseMs * 2 ** Math.min(triesSinceReady - 1, 30));
  return { stop: false, delayMs, message: `${message} (Spillway tries again ${retryWhen(delayMs)}; press Restart to try now)` };
}

/** When the next try is, in words: "in 30 seconds", "in a minute". */
function retryWhen(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds === 1) return 'in a second';
  if (seconds < 60) return `in ${seconds} seconds`;
  const minutes = Math.round(seconds / 60);
  return minutes === 1 ? 'in a minute' : `in ${minutes} minutes`;
}
